import { useEffect } from "react";
import type { FieldError } from "../../bindings/FieldError";
import { browserLanguages, CountryPicker, suggestedCountry } from "../../components/CountryPicker";
import { useI18n } from "../../i18n/context";

/** The setting the office's country is kept in. */
export const COUNTRY_SETTING = "intake.default_region";

/**
 * The connect guide's step for the office's country: the country national numbers are read in,
 * from a list. While no country is saved, the browser's language suggests one ("fr-FR" → France),
 * given to the guide as an edit so that the switch saves it with the provider's details.
 */
export function CountryStep({
  saved,
  edited,
  onChange,
  errors,
}: {
  /** The setting as saved ("" when none). */
  saved: string;
  /** The guide's edit of it, if any. */
  edited: string | undefined;
  onChange: (code: string) => void;
  errors: readonly FieldError[];
}) {
  const { t } = useI18n();
  const suggestion = saved.trim() === "" ? suggestedCountry(browserLanguages()) : null;
  useEffect(() => {
    if (edited === undefined && suggestion !== null) onChange(suggestion);
  }, [edited, suggestion, onChange]);
  return (
    <li className="connect-step" data-testid="connect-step-country">
      <h3>{t("connect.step.country")}</h3>
      <div className="connect-step-intro">
        <p>{t("connect.step.country.intro")}</p>
      </div>
      <div className="form settings-fields">
        <CountryPicker value={edited ?? saved} onChange={onChange} errors={errors} testId="connect-country" />
      </div>
    </li>
  );
}
