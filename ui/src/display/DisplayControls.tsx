import { LOCALES } from "../i18n/i18n";
import { useI18n } from "../i18n/context";
import { LANGUAGE_NAMES, THEMES, type LanguageChoice, type ThemeChoice } from "./display";
import { useDisplay } from "./DisplayProvider";

function asLanguage(value: string): LanguageChoice {
  return (LOCALES as readonly string[]).includes(value) ? (value as LanguageChoice) : "system";
}

function asTheme(value: string): ThemeChoice {
  return (THEMES as readonly string[]).includes(value) ? (value as ThemeChoice) : "system";
}

/**
 * The header's language and theme: two labelled selects, each starting on "Follow the system".
 * Languages are named in themselves (with their `lang`), so anyone finds theirs.
 */
export function DisplayControls() {
  const { t } = useI18n();
  const display = useDisplay();
  if (display === null) return null;
  const { choice, choose } = display;

  return (
    <div className="display-controls" role="group" aria-label={t("display.label")} data-testid="display-controls">
      <label className="display-control">
        <span className="display-control-label">{t("display.language")}</span>
        <select
          value={choice.language}
          onChange={(e) => choose({ language: asLanguage(e.target.value) })}
          data-testid="display-language"
        >
          <option value="system">{t("display.system")}</option>
          {LOCALES.map((locale) => (
            <option key={locale} value={locale} lang={locale}>
              {LANGUAGE_NAMES[locale]}
            </option>
          ))}
        </select>
      </label>
      <label className="display-control">
        <span className="display-control-label">{t("display.theme")}</span>
        <select value={choice.theme} onChange={(e) => choose({ theme: asTheme(e.target.value) })} data-testid="display-theme">
          <option value="system">{t("display.system")}</option>
          <option value="light">{t("display.theme.light")}</option>
          <option value="dark">{t("display.theme.dark")}</option>
        </select>
      </label>
    </div>
  );
}
