import { useId, useMemo } from "react";
import type { FieldError } from "../bindings/FieldError";
import { useI18n } from "../i18n/context";
import { countriesIn, isPhoneRegion } from "./countries";
import { FieldProblem } from "./FieldProblem";
import { numberExample } from "./numberExamples";

export { browserLanguages, suggestedCountry, isPhoneRegion, PHONE_REGIONS } from "./countries";

/**
 * The office's country, chosen from a list: every region the phone numbering data knows, named
 * in the reader's language and in its alphabetical order, and "none" (every number must then be
 * written with its country code). `value` is an ISO 3166 alpha-2 code, or "" for none; a code
 * the list does not have (a setting written by hand) is kept as a choice of its own.
 */
export function CountryPicker({
  value,
  onChange,
  errors = [],
  disabled = false,
  label,
  testId = "country-picker",
}: {
  value: string;
  onChange: (code: string) => void;
  /** The engine's refusal of this field, if any. */
  errors?: readonly FieldError[];
  disabled?: boolean;
  /** The field's name; "Office country" when not given. */
  label?: string;
  testId?: string;
}) {
  const { t, formatTag } = useI18n();
  const ids = { field: useId(), hint: useId(), errors: useId() };
  const countries = useMemo(() => countriesIn(formatTag), [formatTag]);
  const code = value.trim().toUpperCase();
  const stray = code !== "" && !isPhoneRegion(code);
  const example = numberExample(code === "" ? null : code);
  const invalid = errors.length > 0;
  return (
    <div className="field" data-testid={`${testId}-field`}>
      <label htmlFor={ids.field}>{label ?? t("country.label")}</label>
      <select
        id={ids.field}
        value={code}
        onChange={(e) => onChange(e.target.value)}
        disabled={disabled}
        aria-invalid={invalid}
        aria-describedby={invalid ? `${ids.hint} ${ids.errors}` : ids.hint}
        data-testid={testId}
      >
        <option value="">{t("country.none")}</option>
        {stray && <option value={code}>{code}</option>}
        {countries.map((c) => (
          <option key={c.code} value={c.code}>
            {c.name}
          </option>
        ))}
      </select>
      <p className="hint" id={ids.hint}>
        {example === null ? t("country.hint.none") : t("country.hint", { example: example.national })}
      </p>
      {invalid && (
        <ul className="field-problems" id={ids.errors} data-testid={`${testId}-errors`}>
          {errors.map((e) => (
            <li key={`${e.field}:${e.code}`}>
              <FieldProblem error={e} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
