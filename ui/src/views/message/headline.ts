import type { DeliveryState } from "../../bindings/DeliveryState";
import type { MessageDetail } from "../../bindings/MessageDetail";
import type { ReceiptView } from "../../bindings/ReceiptView";
import type { RetryAdvice } from "../../bindings/RetryAdvice";
import { isNoError } from "../../components/evidence/receiptCodes";
import type { Translate } from "../../i18n/i18n";
import { queueReasonWords } from "../../i18n/reasons/words";
import { failureReason, networkState } from "./words";

/** Final states the network reports when a message did not reach the phone. */
const NETWORK_FAILURES: ReadonlySet<DeliveryState> = new Set<DeliveryState>([
  "expired",
  "deleted",
  "undeliverable",
  "rejected",
  "unknown",
  "skipped",
]);

/** The message's state in one phrase: an operator's decision, where our queue stopped, else what the network reported. */
export function headingState(detail: MessageDetail, t: Translate): string {
  const s = detail.state;
  if (s.rule === "operator_decision") return t(`decidedState.${s.state}`);
  const status = detail.queue.status;
  // Until the provider accepted it, where our queue stands is the answer.
  if (status !== "accepted") return t(`queueStatus.${status}`);
  const network = networkState(detail);
  return network === "pending" ? t(`queueStatus.${status}`) : t(`reportedState.${network}`);
}

/** The receipt the network's failure rests on: the first supporting one that carries a status word. */
function failingReceipt(detail: MessageDetail): ReceiptView | null {
  const byId = new Map(detail.receipts.map((r) => [r.id, r]));
  for (const id of detail.state.supporting_receipt_ids) {
    const r = byId.get(id);
    if (r !== undefined && (r.stat_raw ?? r.stat) !== null) return r;
  }
  return null;
}

/**
 * Why the message is where it is, in a few words, or null when nothing went wrong: the queue's
 * reason (a failure says the SMSC's refusal), a hold's opt-out, or the receipt that reported a
 * failure.
 */
export function headingReason(detail: MessageDetail, t: Translate): string | null {
  const q = detail.queue;
  if (detail.state.rule !== "operator_decision" && q.status === "accepted") {
    if (!NETWORK_FAILURES.has(networkState(detail))) return null;
    const r = failingReceipt(detail);
    if (r === null) return null;
    const stat = r.stat_raw ?? r.stat ?? "";
    return r.err === null || isNoError(r.err)
      ? t("detail.reason.receipt", { stat })
      : t("detail.reason.receiptErr", { stat, err: r.err });
  }
  if (q.status === "failed") return q.reason === null ? failureReason(detail, t) : queueReasonWords(q, t);
  if (q.status === "held") return q.reason === null ? t("detail.reason.held") : queueReasonWords(q, t);
  return q.reason === null ? null : queueReasonWords(q, t);
}

/** The page's heading: "Message 204 — Failed: invalid number (ESME_RINVDSTADR)". */
export function headline(detail: MessageDetail, t: Translate): string {
  const id = String(detail.message.id);
  const state = headingState(detail, t);
  const reason = headingReason(detail, t);
  return reason === null ? t("detail.heading.plain", { id, state }) : t("detail.heading", { id, state, reason });
}

/**
 * Whether the message needs correcting rather than sending as it is: our queue gave up on it or
 * held it, or the network reported a failure. These offer "Copy to a new message".
 */
export function needsCorrection(detail: MessageDetail): boolean {
  const status = detail.queue.status;
  if (status === "failed" || status === "held" || status === "expired" || status === "cancelled") return true;
  return NETWORK_FAILURES.has(networkState(detail));
}

/**
 * The provider never accepted the message (no id came back), and our queue is done with it: no
 * receipt can come, so none is waited for.
 */
export function neverAccepted(detail: MessageDetail): boolean {
  const q = detail.queue;
  const done = q.status === "failed" || q.status === "held" || q.status === "cancelled" || q.status === "expired";
  return done && q.provider_message_ids.length === 0 && q.accepted_at_ms === null && detail.receipts.length === 0;
}

/** The advice as given; an engine that gives none (an older one) advises nothing in advance. */
export function adviceOf(detail: MessageDetail): RetryAdvice {
  return (detail as { retry?: RetryAdvice }).retry ?? { blocked: [], confirm: [] };
}
