import { useId } from "react";
import type { FieldError } from "../../bindings/FieldError";
import { useI18n } from "../../i18n/context";
import { FieldErrors } from "../compose/TemplateValues";

/** A phone number to look up or erase, read as intake reads one; what the engine refused in it beneath. */
export function NumberField({
  value,
  onChange,
  errors,
  testId,
}: {
  value: string;
  onChange: (value: string) => void;
  errors: readonly FieldError[];
  testId: string;
}) {
  const { t } = useI18n();
  const ids = { input: useId(), hint: useId(), errors: useId() };
  return (
    <div className="field">
      <label htmlFor={ids.input}>{t("privacy.number")}</label>
      <input
        id={ids.input}
        type="tel"
        autoComplete="off"
        spellCheck={false}
        required
        aria-required="true"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={errors.length > 0}
        aria-describedby={errors.length > 0 ? `${ids.hint} ${ids.errors}` : ids.hint}
        data-testid={testId}
      />
      <p className="hint" id={ids.hint}>
        {t("privacy.number.hint")}
      </p>
      <FieldErrors id={ids.errors} errors={errors} testId={`${testId}-errors`} />
    </div>
  );
}

/** The field errors the engine gave for `field` ("number", "note"). */
export function errorsOf(errors: readonly FieldError[] | undefined, field: string): FieldError[] {
  return (errors ?? []).filter((e) => e.field === field);
}
