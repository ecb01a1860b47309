import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { useAccess } from "../../access/context";
import { asBackendError, ERROR_CODES, type Backend, type BackendError } from "../../backend";
import type { QueueStatus } from "../../bindings/QueueStatus";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";
import { permanentReason, type NetworkEvidence } from "./words";

/** The engine's answer when a retry may deliver the message twice and needs saying so. */
export const CONFIRMATION_REQUIRED = "confirmation_required";

/** Whether the engine refused a send because of its kind's limits (tries, age), which an admin may override. */
export function refusedByLimits(error: BackendError): boolean {
  return error.code === ERROR_CODES.attemptsExhausted || error.code === ERROR_CODES.tooOld;
}

/**
 * The engine refused to send a message again because of its kind's limits: why, in words, and
 * for an admin the way past them ("Send anyway"), which then needs a note. Others read why only.
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
      <p className="muted" data-testid="error-message">
        {error.message}
      </p>
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

type Done = "retried" | "cancelled";

/**
 * What the operator can do with the message: send it again (any time it is not in the queue
 * already) or cancel it (only while it waits in the queue, or is held because its number opted
 * out). Each asks for a note, kept in the
 * audit log; sending again a message the provider may already have is said plainly first.
 */
export function MessageActions({
  backend,
  messageId,
  status,
  evidence = null,
  onDone,
}: {
  backend: Backend;
  messageId: number;
  status: QueueStatus;
  /** The strongest evidence that the network had it already, named when a retry may deliver it twice. */
  evidence?: NetworkEvidence | null;
  onDone: () => void;
}) {
  const { t } = useI18n();
  const headingId = useId();
  const [open, setOpen] = useState<"retry" | "cancel" | null>(null);
  const [done, setDone] = useState<Done | null>(null);
  const canRetry = status !== "queued" && status !== "sending";
  // A message held because its number opted out was never sent: it can be cancelled too.
  const canCancel = status === "queued" || status === "held";

  const finished = (what: Done): void => {
    setOpen(null);
    setDone(what);
    onDone();
  };

  return (
    <section className="actions" aria-labelledby={headingId} data-testid="message-actions">
      <h3 id={headingId}>{t("actions.title")}</h3>
      <div aria-live="polite">
        {done !== null && (
          <p className="notice notice-success" data-testid="action-done">
            {t(done === "retried" ? "actions.retried" : "actions.cancelled")}
          </p>
        )}
      </div>
      {!canRetry && !canCancel && <p className="hint">{t("actions.none.sending")}</p>}
      {open === null && (canRetry || canCancel) && (
        <div className="row-actions">
          {canRetry && (
            <button type="button" className="button" onClick={() => setOpen("retry")} data-testid="retry-open">
              {t("actions.retry")}
            </button>
          )}
          {canCancel && (
            <button
              type="button"
              className="button button-secondary"
              onClick={() => setOpen("cancel")}
              data-testid="cancel-open"
            >
              {t("actions.cancel")}
            </button>
          )}
        </div>
      )}
      {open === "retry" && (
        <RetryForm
          backend={backend}
          messageId={messageId}
          status={status}
          evidence={evidence}
          onDone={() => finished("retried")}
          onClose={() => setOpen(null)}
        />
      )}
      {open === "cancel" && (
        <CancelForm backend={backend} messageId={messageId} onDone={() => finished("cancelled")} onClose={() => setOpen(null)} />
      )}
    </section>
  );
}

function NoteField({
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

/** Why sending the message again may deliver it twice, naming the strongest evidence there is. */
function DuplicateWarning({ status, evidence }: { status: QueueStatus; evidence: NetworkEvidence | null }) {
  const { t, formatDateTime } = useI18n();
  const says =
    evidence?.kind === "delivered"
      ? t("retry.duplicate.delivered", { when: formatDateTime(evidence.atMs), receipt: evidence.receiptId })
      : evidence?.kind === "accepted"
        ? t("retry.duplicate.acceptedAt", { when: formatDateTime(evidence.atMs) })
        : status === "outcome_unknown"
          ? t("retry.duplicate.outcome_unknown")
          : t("retry.duplicate.other");
  return (
    <>
      <h3>{t("retry.duplicate.title")}</h3>
      <p data-testid="retry-duplicate-evidence" data-evidence={evidence?.kind ?? status}>
        {says}
      </p>
      <p>{t("retry.duplicate.noteNeeded")}</p>
    </>
  );
}

/** Its last try was refused for good: why, in plain words, and that retrying will fail again. */
function PermanentWarning({ error }: { error: BackendError }) {
  const { t } = useI18n();
  const status = error.commandStatus;
  return (
    <>
      <h3>{t("retry.permanent.title")}</h3>
      <p data-testid="retry-permanent-reason" data-status={status ?? ""}>
        {t(`retry.permanent.${permanentReason(status)}`, { status: status ?? "?" })}
      </p>
      <p>{t("retry.permanent.again")}</p>
      <p>{t("retry.permanent.noteNeeded")}</p>
    </>
  );
}

function RetryForm({
  backend,
  messageId,
  status,
  evidence,
  onDone,
  onClose,
}: {
  backend: Backend;
  messageId: number;
  status: QueueStatus;
  evidence: NetworkEvidence | null;
  onDone: () => void;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const noteId = useId();
  const blockedId = useId();
  const warningRef = useRef<HTMLDivElement>(null);
  const [note, setNote] = useState("");
  const [confirming, setConfirming] = useState(false);
  // Its last try was refused for good: retrying needs saying so, with a note.
  const [permanent, setPermanent] = useState<BackendError | null>(null);
  // Refused by its kind's limits; an admin may then override them.
  const [limits, setLimits] = useState<BackendError | null>(null);
  const [overriding, setOverriding] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<BackendError | null>(null);
  const noteRequired = confirming || overriding || permanent !== null;
  const blocked = noteRequired && note.trim() === "";
  const warning = confirming || permanent !== null;

  useEffect(() => {
    if (warning) warningRef.current?.focus();
  }, [warning, permanent]);

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (busy || blocked) return;
    setBusy(true);
    setError(null);
    const action = {
      note: note.trim(),
      confirm_duplicate: confirming,
      override_limits: overriding,
      ...(permanent === null ? {} : { confirm_permanent_failure: true }),
    };
    backend.retry(messageId, action).then(
      () => {
        setBusy(false);
        onDone();
      },
      (e: unknown) => {
        const err = asBackendError(e);
        setBusy(false);
        if (err.code === CONFIRMATION_REQUIRED && !confirming) setConfirming(true);
        else if (err.code === ERROR_CODES.permanentFailureRetry && permanent === null) setPermanent(err);
        else if (refusedByLimits(err) && !overriding) setLimits(err);
        else setError(err);
      },
    );
  };

  // The last refusal confirmed names the button (the engine asks for each in turn).
  const submitWords =
    permanent !== null
      ? t("retry.permanent.confirm")
      : overriding
        ? t("limits.submit")
        : confirming
          ? t("retry.confirm")
          : t("retry.submit");
  const submitId =
    permanent !== null
      ? "retry-permanent-confirm"
      : overriding
        ? "retry-override-submit"
        : confirming
          ? "retry-confirm"
          : "retry-submit";

  return (
    <form className="form action-form" onSubmit={submit} aria-busy={busy} data-testid="retry-form" noValidate>
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
      {!warning && limits === null && (
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
                  : t("note.hint")
          }
          testId="retry-note"
        />
      )}
      <div className="row-actions field-wide">
        {(limits === null || overriding) && (
          <button
            type="submit"
            className={warning || overriding ? "button button-danger" : "button"}
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
            title={error.code === ERROR_CODES.destinationOptedOut ? t("retry.optedOut") : t("retry.failed")}
            error={error}
            testId="retry-error"
          />
        </div>
      )}
    </form>
  );
}

function CancelForm({
  backend,
  messageId,
  onDone,
  onClose,
}: {
  backend: Backend;
  messageId: number;
  onDone: () => void;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const noteId = useId();
  const blockedId = useId();
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<BackendError | null>(null);
  const blocked = note.trim() === "";

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (busy || blocked) return;
    setBusy(true);
    setError(null);
    backend.cancel(messageId, { note: note.trim(), confirm_duplicate: false, override_limits: false }).then(
      () => {
        setBusy(false);
        onDone();
      },
      (e: unknown) => {
        setBusy(false);
        setError(asBackendError(e));
      },
    );
  };

  return (
    <form className="form action-form" onSubmit={submit} aria-busy={busy} data-testid="cancel-form" noValidate>
      <p className="hint field-wide">{t("cancel.explained")}</p>
      <NoteField id={noteId} value={note} onChange={setNote} required hint={t("note.hint")} testId="cancel-note" />
      <div className="row-actions field-wide">
        <button
          type="submit"
          className="button button-danger"
          disabled={busy || blocked}
          aria-describedby={blocked ? blockedId : undefined}
          data-testid="cancel-submit"
        >
          {t("cancel.submit")}
        </button>
        <button type="button" className="button button-secondary" onClick={onClose} disabled={busy}>
          {t("cancel.keep")}
        </button>
      </div>
      {blocked && (
        <p className="hint blocked field-wide" id={blockedId} data-testid="cancel-blocked">
          {t("note.needed")}
        </p>
      )}
      {error !== null && (
        <div className="field-wide">
          <ErrorNotice title={t("cancel.failed")} error={error} testId="cancel-error" />
        </div>
      )}
    </form>
  );
}
