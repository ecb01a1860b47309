import { useId } from "react";
import type { FieldError } from "../../bindings/FieldError";
import type { Template } from "../../bindings/Template";
import { FieldProblem } from "../../components/FieldProblem";
import { useI18n } from "../../i18n/context";

/**
 * A template's text, a field for the value of each of its placeholders, and the text as the engine
 * filled it (with its counter), or the placeholders still without a value. Once a send was
 * refused for a placeholder without a value, the refusal shows at that placeholder's field.
 */
export function TemplateValues({
  template,
  values,
  onChange,
  filled,
  counter,
  unfilled,
  refused,
  errors,
}: {
  template: Template;
  values: Readonly<Record<string, string>>;
  onChange: (values: Readonly<Record<string, string>>) => void;
  /** The text as the engine filled it; null until every placeholder has a value. */
  filled: string | null;
  counter: string | null;
  /** The placeholders the engine says still have no value. */
  unfilled: readonly string[];
  /** The engine's refusal of a send, per placeholder named (`template_value_missing`). */
  refused: readonly FieldError[];
  errors: readonly FieldError[];
}) {
  const { t } = useI18n();
  const ids = { legend: useId(), filled: useId() };
  const fieldId = useId();
  return (
    <fieldset className="field field-wide template-values" aria-describedby={ids.filled} data-testid="send-template">
      <legend id={ids.legend}>{t("send.template.using", { name: template.name })}</legend>
      <p className="hint message-body" data-testid="send-template-text">
        {template.text}
      </p>
      {template.placeholders.map((name, i) => {
        const problems = refused.filter((e) => e.params["placeholder"] === name);
        const problemId = `${fieldId}-${i}-problem`;
        return (
          <div className="field" key={name}>
            <label htmlFor={`${fieldId}-${i}`}>{`{${name}}`}</label>
            <input
              id={`${fieldId}-${i}`}
              autoComplete="off"
              value={values[name] ?? ""}
              onChange={(e) => onChange({ ...values, [name]: e.target.value })}
              aria-invalid={unfilled.includes(name) || problems.length > 0}
              aria-describedby={problems.length > 0 ? problemId : undefined}
              data-testid="send-value"
              data-name={name}
            />
            {problems.length > 0 && (
              <p className="field-problem" id={problemId} data-testid="send-value-problem" data-name={name}>
                <FieldProblem error={problems[0]!} />
              </p>
            )}
          </div>
        );
      })}
      <div id={ids.filled} aria-live="polite">
        {filled !== null && (
          <>
            <p className="hint">{t("send.filled")}</p>
            <p className="message-body" data-testid="send-filled">
              {filled}
            </p>
          </>
        )}
        {counter !== null && (
          <p className="hint counter" data-testid="send-counter">
            {counter}
          </p>
        )}
        {unfilled.length > 0 && refused.length === 0 && (
          <p className="hint notice-warning" data-testid="send-placeholders">
            {t("send.placeholders", { names: unfilled.map((n) => `{${n}}`).join(", ") })}
          </p>
        )}
      </div>
      <FieldErrors errors={errors} testId="send-template-errors" />
    </fieldset>
  );
}

/** A field's problems in words, each on its line. */
export function FieldErrors({ id, errors, testId }: { id?: string; errors: readonly FieldError[]; testId: string }) {
  if (errors.length === 0) return null;
  return (
    <ul className="field-problems" id={id} data-testid={testId}>
      {errors.map((e) => (
        <li key={`${e.code}:${e.message}`}>
          <FieldProblem error={e} />
        </li>
      ))}
    </ul>
  );
}
