/** The small fields the connections editor's rows share: a field's problems, text, checkbox, and a row's order buttons. */
import type { ReactNode } from "react";
import { FieldProblem } from "../../../components/FieldProblem";
import { useI18n } from "../../../i18n/context";
import type { Problem } from "./drafts";

/** The problems with one field, right below it; `id` is what the field's aria-describedby names. */
export function Problems({ problems, id, field }: { problems: readonly Problem[]; id: string; field?: string }) {
  if (problems.length === 0) return null;
  return (
    <div id={id}>
      {problems.map((p, i) => (
        <p key={i} className="field-problem" data-testid="field-problem" data-field={field}>
          {"text" in p ? p.text : <FieldProblem error={p.error} />}
        </p>
      ))}
    </div>
  );
}

/** A labelled text input with its hint and problems. */
export function TextField({
  id,
  label,
  value,
  onChange,
  testId,
  problems,
  field,
  hint,
  numeric = false,
  type = "text",
  placeholder,
  autoComplete = "off",
  wide = false,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  testId: string;
  problems: readonly Problem[];
  field: string;
  hint?: string;
  numeric?: boolean;
  type?: "text" | "password";
  placeholder?: string;
  autoComplete?: string;
  wide?: boolean;
}) {
  const hintId = `${id}-hint`;
  const problemsId = `${id}-problems`;
  const describedBy = [hint === undefined ? null : hintId, problems.length > 0 ? problemsId : null]
    .filter((x) => x !== null)
    .join(" ");
  return (
    <div className={`field ${wide ? "field-wide" : "field-narrow"}`} data-field={field}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={type}
        inputMode={numeric ? "numeric" : undefined}
        autoComplete={autoComplete}
        spellCheck={false}
        value={value}
        placeholder={placeholder}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={problems.length > 0 ? "true" : undefined}
        aria-describedby={describedBy === "" ? undefined : describedBy}
        data-testid={testId}
      />
      {hint !== undefined && (
        <p className="hint setting-help" id={hintId}>
          {hint}
        </p>
      )}
      <Problems problems={problems} id={problemsId} field={field} />
    </div>
  );
}

/** A checkbox with its label beside it, and what it means below, if that is written. */
export function CheckField({
  id,
  label,
  checked,
  onChange,
  testId,
  hint,
  field,
}: {
  id: string;
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  testId: string;
  hint?: string;
  field?: string;
}) {
  const hintId = `${id}-hint`;
  return (
    <div className={`field ${hint === undefined ? "field-narrow" : "field-wide"} setting-bool`} data-field={field}>
      <label htmlFor={id} className="setting-check">
        <input
          id={id}
          type="checkbox"
          checked={checked}
          onChange={(e) => onChange(e.target.checked)}
          aria-describedby={hint === undefined ? undefined : hintId}
          data-testid={testId}
        />
        <span>{label}</span>
      </label>
      {hint !== undefined && (
        <p className="hint setting-help" id={hintId}>
          {hint}
        </p>
      )}
    </div>
  );
}

/** Up, down and remove, for a row of a list whose order matters. */
export function RowActions({
  prefix,
  index,
  count,
  onMove,
  onRemove,
  canRemove,
  children,
}: {
  prefix: "connection" | "route";
  index: number;
  count: number;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
  canRemove: boolean;
  children?: ReactNode;
}) {
  const { t } = useI18n();
  return (
    <div className="row-actions connection-actions">
      {children}
      <button
        type="button"
        className="button button-secondary button-small"
        onClick={() => onMove(-1)}
        disabled={index === 0}
        data-testid={`${prefix}-up`}
      >
        {t("settings.connections.up")}
      </button>
      <button
        type="button"
        className="button button-secondary button-small"
        onClick={() => onMove(1)}
        disabled={index === count - 1}
        data-testid={`${prefix}-down`}
      >
        {t("settings.connections.down")}
      </button>
      <button
        type="button"
        className="button button-secondary button-small"
        onClick={onRemove}
        disabled={!canRemove}
        data-testid={`${prefix}-remove`}
      >
        {t("settings.connections.remove")}
      </button>
    </div>
  );
}
