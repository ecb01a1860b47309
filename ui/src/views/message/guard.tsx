import { useAccess } from "../../access/context";
import { ERROR_CODES, type BackendError } from "../../backend";
import { useI18n } from "../../i18n/context";

/** The engine's answer when a retry may deliver the message twice and needs saying so. */
export const CONFIRMATION_REQUIRED = "confirmation_required";

/** Whether the engine refused a send because of its kind's limits (tries, age), which an admin may override. */
export function refusedByLimits(error: BackendError): boolean {
  return error.code === ERROR_CODES.attemptsExhausted || error.code === ERROR_CODES.tooOld;
}

/**
 * The engine refused to send a message again because of its kind's limits: why, in words (the
 * engine's own English sentence folded away), and for an admin the way past them ("Send
 * anyway"), which then needs a note. Others read why only.
 */
export function LimitsRefusal({
  error,
  overriding,
  onOverride,
  testId,
}: {
  error: BackendError;
  overriding: boolean;
  onOverride: () => void;
  testId: string;
}) {
  const { t } = useI18n();
  const { may } = useAccess();
  const code = error.code === ERROR_CODES.attemptsExhausted ? "attempts_exhausted" : "too_old";
  return (
    <div className="notice notice-warning field-wide" role="alert" data-testid={testId} data-code={error.code}>
      <h3>{t(`limits.${code}.title`)}</h3>
      <p>{t(`limits.${code}.body`)}</p>
      {error.message.trim() !== "" && (
        <details className="error-technical">
          <summary>{t("error.technical")}</summary>
          <p className="muted" data-testid="error-message" lang="en">
            {error.message}
          </p>
        </details>
      )}
      {!may.admin && <p data-testid="limits-admin-only">{t("limits.adminOnly")}</p>}
      {may.admin && !overriding && (
        <button type="button" className="button button-danger" onClick={onOverride} data-testid={`${testId}-override`}>
          {t("limits.override")}
        </button>
      )}
      {may.admin && overriding && <p data-testid="limits-overriding">{t("limits.overriding")}</p>}
    </div>
  );
}

/** The one note an action asks for, kept in the audit log with the person's name. */
export function NoteField({
  id,
  value,
  onChange,
  required,
  hint,
  testId,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  required: boolean;
  hint: string;
  testId: string;
}) {
  const { t } = useI18n();
  const hintId = `${id}-hint`;
  return (
    <div className="field field-wide">
      <label htmlFor={id}>{required ? t("note.labelRequired") : t("note.labelOptional")}</label>
      <textarea
        id={id}
        rows={2}
        value={value}
        required={required}
        aria-required={required}
        onChange={(e) => onChange(e.target.value)}
        aria-describedby={hintId}
        data-testid={testId}
      />
      <p className="hint" id={hintId}>
        {hint}
      </p>
    </div>
  );
}
