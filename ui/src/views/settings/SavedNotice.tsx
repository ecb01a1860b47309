import type { SettingField } from "../../bindings/SettingField";
import type { SettingsSaved } from "../../bindings/SettingsSaved";
import { useI18n } from "../../i18n/context";
import { settingLabel } from "./labels";

/** What a save did: what is in effect now, what waits for the next start, secrets made (once). */
export function SavedNotice({ saved, fields }: { saved: SettingsSaved; fields: Map<string, SettingField> }) {
  const { t } = useI18n();
  const name = (key: string): string => {
    const provider = /^callbacks\.providers\.(.+)$/.exec(key);
    if (provider !== null) return `${settingLabel(t, "callbacks.providers")} (${provider[1]})`;
    return fields.has(key) ? settingLabel(t, key) : key;
  };
  const now = saved.changes.filter((c) => c.applies !== "restart").map((c) => name(c.key));
  const later = saved.changes.filter((c) => c.applies === "restart").map((c) => name(c.key));
  return (
    <div className="notice notice-success" data-testid="settings-saved">
      <h3>{t("settings.saved.title")}</h3>
      {saved.changes.length === 0 && <p>{t("settings.saved.none")}</p>}
      {now.length > 0 && <p data-testid="saved-now">{t("settings.saved.now", { keys: now.join(", ") })}</p>}
      {saved.reconnected && <p data-testid="saved-reconnected">{t("settings.saved.reconnected")}</p>}
      {later.length > 0 && <p data-testid="saved-restart">{t("settings.saved.restart", { keys: later.join(", ") })}</p>}
      {saved.generated_secrets.map((g) => (
        <div key={g.provider} data-testid="generated-secret">
          <h3>{t("settings.generated.title", { name: g.provider })}</h3>
          <p>{t("settings.generated.body")}</p>
          <pre className="command secret">
            <code>{`/api/v1/callbacks/${encodeURIComponent(g.provider)}?token=${encodeURIComponent(g.secret)}`}</code>
          </pre>
        </div>
      ))}
    </div>
  );
}
