import { useId, useState, type FormEvent } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { QueueStatus } from "../../bindings/QueueStatus";
import type { RetryAdvice } from "../../bindings/RetryAdvice";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";
import { NoteField } from "./guard";
import { RetryForm } from "./RetryForm";
import type { NetworkEvidence } from "./words";

export { CONFIRMATION_REQUIRED, LimitsRefusal, refusedByLimits } from "./guard";

const NO_ADVICE: RetryAdvice = { blocked: [], confirm: [] };

/** What was done here, and the queue row's time when it was done (to tell a reload after it). */
type Done = { readonly what: "retried" | "cancelled"; readonly atMs: number };

/**
 * What the operator can do with the message: send it again (any time it is not in the queue
 * already) or cancel it (only while it waits in the queue, or is held because its number opted
 * out). Each asks for a note, kept in the
 * audit log; what a retry meets (a fact that stops it, or one to confirm) is said first.
 *
 * "It will be sent again" stays only until the message has a new outcome: once the detail
 * reloads with the queue moved on past queued or sending, the statements say what became of it.
 */
export function MessageActions({
  backend,
  messageId,
  status,
  evidence = null,
  advice = NO_ADVICE,
  updatedAtMs = 0,
  onDone,
}: {
  backend: Backend;
  messageId: number;
  status: QueueStatus;
  /** What a retry would meet now, by the engine's rules. */
  advice?: RetryAdvice;
  /** When the queue row last changed: a change after an action is the detail reloaded. */
  updatedAtMs?: number;
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

  const finished = (what: Done["what"]): void => {
    setOpen(null);
    setDone({ what, atMs: updatedAtMs });
    onDone();
  };
  // "It will be sent again" stands while the reload has not come, or while the message waits or
  // goes out; once it has a new outcome, a plain line says the retry was made and the statements
  // above say what became of it (never a success beside a failure).
  const waiting =
    done !== null &&
    (done.what === "cancelled" || done.atMs === updatedAtMs || status === "queued" || status === "sending");

  return (
    <section className="actions" aria-labelledby={headingId} data-testid="message-actions">
      <h3 id={headingId}>{t("actions.title")}</h3>
      <div aria-live="polite">
        {done !== null && (
          <p
            className={waiting ? "notice notice-success" : "notice notice-info"}
            data-testid="action-done"
            data-phase={waiting ? "done" : "outcome"}
          >
            {done.what === "cancelled"
              ? t("actions.cancelled")
              : waiting
                ? t("actions.retried")
                : t("actions.retried.outcome")}
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
          advice={advice}
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
