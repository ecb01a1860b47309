import type { AttemptView } from "../../bindings/AttemptView";
import type { DeliveryState } from "../../bindings/DeliveryState";
import type { MessageDetail } from "../../bindings/MessageDetail";
import type { QueueStatus } from "../../bindings/QueueStatus";
import type { WebhookField } from "../../bindings/WebhookField";
import type { I18n } from "../../i18n/i18n";
import { queueReasonWords } from "../../i18n/reasons/words";
import { smppStatusText } from "../../i18n/server/words";
import { DELIVERY_STATES, QUEUE_STATUSES } from "../labels";

/**
 * What the network's reports support, kept apart from any operator decision: under a decision
 * the state shown elsewhere is the operator's, and the network's is `reported_state`.
 */
export function networkState(detail: MessageDetail): DeliveryState {
  const s = detail.state;
  return s.rule === "operator_decision" ? (s.reported_state ?? "pending") : s.state;
}

/** The try whose answer decided a failure: the last one the SMSC answered with a status. */
export function lastAnswered(attempts: readonly AttemptView[]): AttemptView | null {
  let last: AttemptView | null = null;
  for (const a of attempts) if (a.command_status_name !== null || a.error !== null) last = a;
  return last;
}

/** Why the message failed, in the SMSC's words when it gave some, else the queue's reason in words. */
export function failureReason(detail: MessageDetail, t: I18n["t"]): string {
  const a = lastAnswered(detail.attempts);
  if (a?.command_status_name != null) return smppStatusText(a.command_status_name, t);
  return queueReasonWords(detail.queue, t) ?? a?.error ?? t("queue.noReason");
}

/** A webhook's value in the screen's words when it is a status or a state this version knows. */
export function webhookValue(field: WebhookField, value: string, t: I18n["t"]): string {
  if (field === "state" && (DELIVERY_STATES as readonly string[]).includes(value)) {
    return t(`reportedState.${value as DeliveryState}`);
  }
  if (field === "status" && (QUEUE_STATUSES as readonly string[]).includes(value)) {
    return t(`queueStatus.${value as QueueStatus}`);
  }
  return value;
}

/**
 * An exception's resolution (`state:<s>`, `attached:<id>`, `dismissed`, `resend`, `mark_failed`,
 * `cancel`, `auto:<reason>`) in words. These are the engine's documented codes, not text for people.
 */
export function resolutionWords(resolution: string, t: I18n["t"]): string {
  const [code, arg = ""] = splitOnce(resolution, ":");
  switch (code) {
    case "state":
      return (DELIVERY_STATES as readonly string[]).includes(arg)
        ? t("resolution.state", { state: t(`decidedState.${arg as DeliveryState}`) })
        : t("resolution.state", { state: arg });
    case "attached":
      return t("resolution.attached", { id: arg });
    case "dismissed":
      return t("resolution.dismissed");
    case "resend":
      return t("resolution.resend");
    case "mark_failed":
      return t("resolution.markFailed");
    case "cancel":
      return t("resolution.cancel");
    case "auto":
      return t("resolution.auto", { reason: arg });
    default:
      return resolution;
  }
}

function splitOnce(value: string, separator: string): [string, string?] {
  const at = value.indexOf(separator);
  return at < 0 ? [value] : [value.slice(0, at), value.slice(at + separator.length)];
}

/**
 * The strongest evidence that the network already had the message, for a warning before sending
 * it again: a receipt that reported it delivered (when it arrived, and which), else the SMSC's
 * acceptance of a try (when). Null when there is neither.
 */
export type NetworkEvidence =
  | { readonly kind: "delivered"; readonly atMs: number; readonly receiptId: number }
  | { readonly kind: "accepted"; readonly atMs: number };

export function networkEvidence(detail: MessageDetail): NetworkEvidence | null {
  const delivered = detail.receipts.find((r) => r.reported_state === "delivered" && !r.is_repeat);
  if (delivered !== undefined) return { kind: "delivered", atMs: delivered.received_at_ms, receiptId: delivered.id };
  if (detail.queue.accepted_at_ms !== null) return { kind: "accepted", atMs: detail.queue.accepted_at_ms };
  const accepted = detail.attempts.find((a) => a.outcome === "accepted");
  const at = accepted?.responded_at_ms ?? accepted?.sent_at_ms ?? null;
  return at === null ? null : { kind: "accepted", atMs: at };
}

/** The kind of reason a status gives for a refusal for good, for words a person reads. */
export type PermanentReason = "destination" | "source" | "receiver" | "other";

export function permanentReason(status: string | null): PermanentReason {
  switch (status) {
    case "ESME_RINVDSTADR":
    case "ESME_RINVDSTTON":
    case "ESME_RINVDSTNPI":
      return "destination";
    case "ESME_RINVSRCADR":
    case "ESME_RINVSRCTON":
    case "ESME_RINVSRCNPI":
      return "source";
    case "ESME_RX_P_APPN":
    case "ESME_RX_R_APPN":
      return "receiver";
    default:
      return "other";
  }
}
