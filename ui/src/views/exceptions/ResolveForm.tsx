import { useId, useState, type FormEvent } from "react";
import { RadioChoice } from "../../components/RadioChoice";
import { asBackendError, ERROR_CODES, type Backend, type BackendError } from "../../backend";
import type { DeliveryState } from "../../bindings/DeliveryState";
import type { ExceptionDetail } from "../../bindings/ExceptionDetail";
import type { ExceptionKind } from "../../bindings/ExceptionKind";
import type { ResolveRequest } from "../../bindings/ResolveRequest";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";
import type { Translate } from "../../i18n/i18n";
import { ALLOWED_ACTIONS, FINAL_STATES, type ResolveAction } from "../labels";
import { CONFIRMATION_REQUIRED, LimitsRefusal, refusedByLimits } from "../message/guard";
import { MessagePicker } from "./MessagePicker";
import { MismatchNotice, type Mismatch } from "./MismatchNotice";

/** The engine's refusal to attach a receipt before the operator has seen how it misfits the message. */
export const MISMATCHES_NOT_SEEN = "mismatches_not_seen";
/** Someone (or new evidence) settled the exception first. */
export const NOT_OPEN = "not_open";

/**
 * A decision in words. For a message held because its number opted out, or a one-time code held
 * for a surge to its country, sending it and not sending it (which cancels it) read differently
 * from the same decisions on a message whose outcome is unknown ("Release" and "Cancel" for a
 * held code).
 */
export function actionWords(kind: ExceptionKind, t: Translate) {
  // The words' family for a decision on a held message: "optedOut", "unusualVolume", or none.
  const family = (a: ResolveAction): "optedOut" | "unusualVolume" | null =>
    a !== "resend" && a !== "mark_failed" ? null : kind === "opted_out" ? "optedOut" : kind === "unusual_volume" ? "unusualVolume" : null;
  return {
    label: (a: ResolveAction): string => {
      const f = family(a);
      return f !== null && (a === "resend" || a === "mark_failed") ? t(`resolve.${f}.${a}`) : t(`resolve.action.${a}`);
    },
    explained: (a: ResolveAction): string => {
      const f = family(a);
      return f !== null && (a === "resend" || a === "mark_failed")
        ? t(`resolve.${f}.${a}.explained`)
        : t(`resolve.action.${a}.explained`);
    },
    consequence: (a: "resend" | "dismiss" | "mark_failed"): string => {
      const f = family(a);
      return f !== null && a !== "dismiss" ? t(`resolve.${f}.consequence.${a}`) : t(`resolve.consequence.${a}`);
    },
    submit: (a: ResolveAction): string => {
      const f = family(a);
      return f !== null && (a === "resend" || a === "mark_failed") ? t(`resolve.${f}.submit.${a}`) : t(`resolve.submit.${a}`);
    },
  };
}

function parseId(value: string): number | null {
  const v = value.trim().replace(/^#/, "");
  return /^[1-9][0-9]{0,15}$/.test(v) ? Number(v) : null;
}

/**
 * The operator's decision on an open exception, with the choices its kind allows, and always a
 * note (the submit button stays disabled, saying why, until there is one). Attaching a receipt to
 * a message it does not fit is refused by the engine until the operator has seen every mismatch
 * and said so.
 */
export function ResolveForm({
  backend,
  detail,
  onResolved,
  onStale,
}: {
  backend: Backend;
  detail: ExceptionDetail;
  onResolved: () => void;
  /** It was settled elsewhere first (someone else, or new evidence): show what was decided. */
  onStale: (error: BackendError) => void;
}) {
  const { t } = useI18n();
  const ids = { heading: useId(), note: useId(), noteHint: useId(), blocked: useId(), target: useId(), targetHint: useId() };
  const e = detail.exception;
  const allowed = ALLOWED_ACTIONS[e.kind];
  // Messages the receipt may belong to: those whose ids match (ambiguous), and those whose try
  // went unanswered on its connection. Never chosen for the operator.
  const candidates = [
    ...new Set([
      ...detail.evidence.flatMap((x) => (x.role === "candidate" && x.attempt !== null ? [x.attempt.message_id] : [])),
      ...detail.candidates.map((c) => c.attempt.message_id),
    ]),
  ];
  const receipts = detail.evidence.flatMap((x) => (x.receipt === null ? [] : [x.receipt]));

  // Nothing is chosen for the operator (least of all sending again), unless there is one choice only.
  const [action, setAction] = useState<ResolveAction | null>(allowed.length === 1 ? (allowed[0] ?? null) : null);
  const [state, setState] = useState<DeliveryState | null>(null);
  const [target, setTarget] = useState("");
  const [note, setNote] = useState("");
  const [mismatch, setMismatch] = useState<Mismatch | null>(null);
  const [reviewed, setReviewed] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<BackendError | null>(null);
  // The engine said the network had the message: resending needs saying so once more.
  const [confirmingDuplicate, setConfirmingDuplicate] = useState(false);
  // Resending was refused by the kind's limits; an admin may override them.
  const [limits, setLimits] = useState<BackendError | null>(null);
  const [overriding, setOverriding] = useState(false);
  const resendRefused = action === "resend" && limits !== null && !overriding;

  const words = actionWords(e.kind, t);
  const targetId = parseId(target);
  const shownMismatch = action === "attach" && mismatch !== null && mismatch.messageId === targetId ? mismatch : null;

  const blockedBy = ((): string | null => {
    if (action === null) return t("resolve.blocked.action");
    if (resendRefused) return t("resolve.blocked.limits");
    if (note.trim() === "") return t("resolve.blocked.note");
    if (action === "choose_state" && state === null) return t("resolve.blocked.state");
    if (action === "attach" && targetId === null) return t("resolve.blocked.target");
    if (shownMismatch !== null && !reviewed) return t("resolve.blocked.reviewed");
    return null;
  })();

  const request = (): ResolveRequest | null => {
    const n = note.trim();
    switch (action) {
      case null:
        return null;
      case "choose_state":
        return state === null ? null : { action, state, note: n };
      case "attach":
        return targetId === null
          ? null
          : { action, message_id: targetId, mismatches_seen: shownMismatch !== null && reviewed, note: n };
      case "resend":
        return { action, note: n, confirm_duplicate: confirmingDuplicate, override_limits: overriding };
      case "mark_failed":
      case "dismiss":
        return { action, note: n };
    }
  };

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    const r = request();
    if (busy || blockedBy !== null || r === null) return;
    setBusy(true);
    setError(null);
    backend.resolve(e.id, r).then(
      () => {
        setBusy(false);
        onResolved();
      },
      (x: unknown) => {
        const err = asBackendError(x);
        setBusy(false);
        if (err.code === MISMATCHES_NOT_SEEN && r.action === "attach") {
          const messageId = r.message_id;
          setReviewed(false);
          setMismatch({ messageId, error: err, facts: null });
          // The engine's comparison, fact by fact, so that each mismatch can be checked beside
          // the receipt's and the message's values.
          backend.compareCandidates(e.id, { messages: [messageId] }).then(
            (answer) => {
              const facts = answer.messages.find((m) => m.message_id === messageId)?.facts ?? [];
              setMismatch((cur) => (cur !== null && cur.messageId === messageId ? { ...cur, facts } : cur));
            },
            () => setMismatch((cur) => (cur !== null && cur.messageId === messageId ? { ...cur, facts: [] } : cur)),
          );
          return;
        }
        if (err.code === CONFIRMATION_REQUIRED && r.action === "resend" && !r.confirm_duplicate) {
          setConfirmingDuplicate(true);
          return;
        }
        if (refusedByLimits(err) && r.action === "resend" && !r.override_limits) {
          setLimits(err);
          return;
        }
        if (err.code === NOT_OPEN) onStale(err);
        else setError(err);
      },
    );
  };

  return (
    <section className="resolve" aria-labelledby={ids.heading} data-testid="resolve">
      <h3 id={ids.heading}>{t("resolve.title")}</h3>
      <form className="form resolve-form" onSubmit={submit} aria-busy={busy} noValidate data-testid="resolve-form">
        <fieldset className="choices field-wide">
          <legend>{t("resolve.action")}</legend>
          {allowed.map((a) => (
            <RadioChoice
              key={a}
              name="action"
              value={a}
              checked={action === a}
              onChoose={() => {
                setAction(a);
                setError(null);
              }}
              label={words.label(a)}
              hint={words.explained(a)}
              testId={`resolve-action-${a}`}
            />
          ))}
        </fieldset>

        {action === "choose_state" && (
          <fieldset className="choices field-wide" data-testid="resolve-states">
            <legend>{t("resolve.state")}</legend>
            <p className="hint">{e.kind === "no_receipt" ? t("resolve.state.noReceipt") : t("resolve.state.conflict")}</p>
            {FINAL_STATES.map((s) => {
              const reportedBy = receipts.filter((r) => r.reported_state === s).map((r) => r.id);
              return (
                <label key={s} className="choice">
                  <input
                    type="radio"
                    name="state"
                    value={s}
                    checked={state === s}
                    onChange={() => setState(s)}
                    data-testid="resolve-state"
                  />
                  <span>
                    <span className="choice-label">{t(`deliveryState.${s}`)}</span>
                    {reportedBy.length > 0 && (
                      <span className="hint">
                        {t("resolve.state.reportedBy", {
                          receipts: reportedBy.map((id) => t("receipt.ref", { id: String(id) })).join(", "),
                        })}
                      </span>
                    )}
                  </span>
                </label>
              );
            })}
          </fieldset>
        )}

        {action === "attach" && receipts[0] !== undefined && (
          <MessagePicker
            backend={backend}
            exceptionId={e.id}
            receipt={receipts[0]}
            selected={targetId}
            onPick={(id) => setTarget(String(id))}
          />
        )}
        {action === "attach" && (
          <div className="field field-wide">
            <label htmlFor={ids.target}>{t("resolve.target")}</label>
            <input
              id={ids.target}
              inputMode="numeric"
              autoComplete="off"
              value={target}
              onChange={(x) => setTarget(x.target.value)}
              aria-describedby={ids.targetHint}
              aria-invalid={target.trim() !== "" && targetId === null}
              data-testid="resolve-target"
            />
            <p className="hint" id={ids.targetHint}>
              {t("resolve.target.hint")}
            </p>
            {candidates.length > 0 && (
              <div className="row-actions" data-testid="resolve-candidates">
                <span className="hint">{t("resolve.candidates")}</span>
                {candidates.map((m) => (
                  <button
                    key={m}
                    type="button"
                    className="button button-secondary button-small"
                    onClick={() => setTarget(String(m))}
                  >
                    {t("exceptions.messageRef", { id: String(m) })}
                  </button>
                ))}
              </div>
            )}
          </div>
        )}

        {shownMismatch !== null && (
          <MismatchNotice
            mismatch={shownMismatch}
            reviewed={reviewed}
            onReviewed={setReviewed}
          />
        )}

        {(action === "resend" || action === "dismiss" || action === "mark_failed") && (
          <p
            className={action === "resend" ? "notice notice-warning field-wide" : "hint field-wide"}
            data-testid="resolve-consequence"
          >
            {words.consequence(action)}
          </p>
        )}
        {action === "resend" && confirmingDuplicate && (
          <div className="notice notice-warning field-wide" role="alert" data-testid="resolve-duplicate-warning">
            <p>{t("resolve.duplicate")}</p>
          </div>
        )}
        {action === "resend" && limits !== null && (
          <LimitsRefusal error={limits} overriding={overriding} onOverride={() => setOverriding(true)} testId="resolve-limits" />
        )}

        <div className="field field-wide">
          <label htmlFor={ids.note}>{t("note.labelRequired")}</label>
          <textarea
            id={ids.note}
            rows={3}
            required
            aria-required="true"
            value={note}
            onChange={(x) => setNote(x.target.value)}
            aria-describedby={ids.noteHint}
            data-testid="resolve-note"
          />
          <p className="hint" id={ids.noteHint}>
            {t("resolve.note.hint")}
          </p>
        </div>

        <div className="row-actions field-wide">
          <button
            type="submit"
            className={action === "resend" || shownMismatch !== null ? "button button-danger" : "button"}
            disabled={busy || blockedBy !== null}
            aria-describedby={blockedBy === null ? undefined : ids.blocked}
            data-testid="resolve-submit"
          >
            {busy
              ? t("resolve.busy")
              : shownMismatch !== null
                ? t("resolve.submit.attachAnyway")
                : action === "resend" && overriding
                  ? t("limits.submit")
                  : action === "resend" && confirmingDuplicate
                  ? t("resolve.submit.resendAnyway")
                  : action === null
                    ? t("resolve.submit.none")
                    : words.submit(action)}
          </button>
          {blockedBy !== null && (
            <span className="hint blocked" id={ids.blocked} data-testid="resolve-blocked">
              {blockedBy}
            </span>
          )}
        </div>
        {error !== null && (
          <div className="field-wide">
            <ErrorNotice
              title={error.code === ERROR_CODES.destinationOptedOut ? t("resolve.optedOut.refused") : t("resolve.failed")}
              error={error}
              testId="resolve-error"
            />
          </div>
        )}
      </form>
    </section>
  );
}
