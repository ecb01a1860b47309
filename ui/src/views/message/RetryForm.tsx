import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { asBackendError, ERROR_CODES, type Backend, type BackendError } from "../../backend";
import type { QueueStatus } from "../../bindings/QueueStatus";
import type { RetryAdvice } from "../../bindings/RetryAdvice";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";
import { CONFIRMATION_REQUIRED, LimitsRefusal, NoteField, refusedByLimits } from "./guard";
import { BlockedFacts, ConfirmFacts, confirmedBy } from "./RetryFacts";
import { DuplicateWarning, PermanentWarning } from "./RetryWarnings";
import type { NetworkEvidence } from "./words";

/**
 * Sending the message again, starting with what a retry meets now (the engine's advice): a fact
 * no note overcomes (opted out, a limit an operator may not pass) is said and nothing is asked;
 * facts to confirm (rejected by the network, will fail again, may arrive twice, past a limit for
 * an admin) are said before the one note is asked. The advice can be stale: a refusal the
 * engine still answers after sending is shown and asked for in turn, as it comes.
 */
export function RetryForm({
  backend,
  messageId,
  status,
  evidence,
  advice,
  onDone,
  onClose,
}: {
  backend: Backend;
  messageId: number;
  status: QueueStatus;
  evidence: NetworkEvidence | null;
  advice: RetryAdvice;
  onDone: () => void;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const noteId = useId();
  const blockedId = useId();
  const warningRef = useRef<HTMLDivElement>(null);
  const advised = advice.confirm.length > 0;
  const [note, setNote] = useState("");
  const [confirming, setConfirming] = useState(false);
  // Its last try was refused for good: retrying needs saying so, with a note.
  const [permanent, setPermanent] = useState<BackendError | null>(null);
  // Refused by its kind's limits; an admin may then override them.
  const [limits, setLimits] = useState<BackendError | null>(null);
  const [overriding, setOverriding] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<BackendError | null>(null);
  const noteRequired = advised || confirming || overriding || permanent !== null;
  const blocked = noteRequired && note.trim() === "";
  const warning = confirming || permanent !== null;

  useEffect(() => {
    if (warning) warningRef.current?.focus();
  }, [warning, permanent]);

  if (advice.blocked.length > 0) {
    return (
      <div className="form action-form" data-testid="retry-form">
        <BlockedFacts advice={advice} />
        <div className="row-actions field-wide">
          <button type="button" className="button button-secondary" onClick={onClose} data-testid="retry-close">
            {t("actions.keep")}
          </button>
        </div>
      </div>
    );
  }

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (busy || blocked) return;
    setBusy(true);
    setError(null);
    const fromAdvice = confirmedBy(advice.confirm);
    const action = {
      note: note.trim(),
      confirm_duplicate: confirming || fromAdvice.confirm_duplicate,
      override_limits: overriding || fromAdvice.override_limits,
      ...(permanent === null && fromAdvice.confirm_permanent_failure !== true ? {} : { confirm_permanent_failure: true }),
    };
    backend.retry(messageId, action).then(
      () => {
        setBusy(false);
        onDone();
      },
      (e: unknown) => {
        const err = asBackendError(e);
        setBusy(false);
        if (err.code === CONFIRMATION_REQUIRED && !action.confirm_duplicate) setConfirming(true);
        else if (err.code === ERROR_CODES.permanentFailureRetry && action.confirm_permanent_failure !== true) setPermanent(err);
        else if (refusedByLimits(err) && !action.override_limits) setLimits(err);
        else setError(err);
      },
    );
  };

  // The last refusal confirmed names the button (the engine asks for each in turn).
  const [submitWords, submitId] =
    permanent !== null
      ? [t("retry.permanent.confirm"), "retry-permanent-confirm"]
      : overriding
        ? [t("limits.submit"), "retry-override-submit"]
        : confirming
          ? [t("retry.confirm"), "retry-confirm"]
          : advised
            ? [t("retry.confirm"), "retry-facts-confirm"]
            : [t("retry.submit"), "retry-submit"];

  return (
    <form className="form action-form" onSubmit={submit} aria-busy={busy} data-testid="retry-form" noValidate>
      {advised && <ConfirmFacts facts={advice.confirm} status={status} evidence={evidence} />}
      {warning && (
        <div
          className="notice notice-warning action-warning"
          role="alert"
          tabIndex={-1}
          ref={warningRef}
          data-testid={permanent !== null ? "retry-permanent-warning" : "retry-duplicate-warning"}
        >
          {confirming && <DuplicateWarning status={status} evidence={evidence} />}
          {permanent !== null && <PermanentWarning error={permanent} />}
        </div>
      )}
      {!advised && !warning && limits === null && (
        <p className="hint field-wide">{status === "held" ? t("retry.held") : t("retry.explained")}</p>
      )}
      {limits !== null && (
        <LimitsRefusal
          error={limits}
          overriding={overriding}
          onOverride={() => {
            setOverriding(true);
            setError(null);
          }}
          testId="retry-limits"
        />
      )}
      {(limits === null || overriding) && (
        <NoteField
          id={noteId}
          value={note}
          onChange={setNote}
          required={noteRequired}
          hint={
            permanent !== null
              ? t("retry.permanent.note")
              : overriding
                ? t("limits.note")
                : confirming
                  ? t("retry.note.required")
                  : advised
                    ? t("retry.facts.note")
                    : t("note.hint")
          }
          testId="retry-note"
        />
      )}
      <div className="row-actions field-wide">
        {(limits === null || overriding) && (
          <button
            type="submit"
            className={warning || overriding || advised ? "button button-danger" : "button"}
            disabled={busy || blocked}
            aria-describedby={blocked ? blockedId : undefined}
            data-testid={submitId}
          >
            {submitWords}
          </button>
        )}
        <button type="button" className="button button-secondary" onClick={onClose} disabled={busy} data-testid="retry-close">
          {t("actions.keep")}
        </button>
      </div>
      {blocked && (
        <p className="hint blocked field-wide" id={blockedId} data-testid="retry-blocked">
          {t("note.needed")}
        </p>
      )}
      {error !== null && (
        <div className="field-wide">
          <ErrorNotice
            title={t("retry.failed")}
            error={error}
            testId="retry-error"
          />
        </div>
      )}
    </form>
  );
}
