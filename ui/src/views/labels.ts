import type { DeliveryState } from "../bindings/DeliveryState";
import type { EvidenceRole } from "../bindings/EvidenceRole";
import type { ExceptionKind } from "../bindings/ExceptionKind";
import type { ExceptionStatus } from "../bindings/ExceptionStatus";
import type { IntakeChannel } from "../bindings/IntakeChannel";
import type { MessageKind } from "../bindings/MessageKind";
import type { Flag } from "../bindings/Flag";
import type { QueueStatus } from "../bindings/QueueStatus";
import type { ResolveRequest } from "../bindings/ResolveRequest";
import type { Rule } from "../bindings/Rule";

// The engine's closed vocabularies (types generated from the Rust enums), in the order screens
// list them. Each list must name every value: a value the engine adds without a place here fails
// the type check, and so does one without words in every dictionary (`t(`flag.${f}`)` needs the
// key in each language).

/**
 * `values` as given; the type check refuses it unless it lists every member of `T`, and names the
 * missing ones.
 */
function every<T extends string>() {
  return <const A extends readonly T[]>(
    values: A & ([Exclude<T, A[number]>] extends [never] ? unknown : { missing: Exclude<T, A[number]> }),
  ): readonly T[] => values;
}

export type { EvidenceRole, Flag, Rule };

export const QUEUE_STATUSES = every<QueueStatus>()([
  "queued",
  "sending",
  "accepted",
  "failed",
  "outcome_unknown",
  "held",
  "cancelled",
  "expired",
]);

export const DELIVERY_STATES = every<DeliveryState>()([
  "pending",
  "scheduled",
  "accepted",
  "enroute",
  "delivered",
  "expired",
  "deleted",
  "undeliverable",
  "rejected",
  "unknown",
  "skipped",
  "partially_delivered",
]);

/** The states a final receipt can set, and so the states an operator may choose on a conflict or a missing receipt. */
export const FINAL_STATES: readonly DeliveryState[] = [
  "delivered",
  "undeliverable",
  "expired",
  "rejected",
  "deleted",
  "unknown",
  "skipped",
];

export const MESSAGE_KINDS = every<MessageKind>()(["otp", "transactional", "bulk"]);

export const CHANNELS = every<IntakeChannel>()(["api", "csv", "compose", "cli"]);

export const EXCEPTION_KINDS = every<ExceptionKind>()([
  "conflicting_final",
  "no_receipt",
  "uncorrelated",
  "ambiguous",
  "unparseable",
  "status_unreadable",
  "outcome_unknown",
  "partly_sent",
  "opted_out",
  "unusual_volume",
]);

export const EXCEPTION_STATUSES = every<ExceptionStatus>()(["open", "resolved", "dismissed"]);

/** The flags a message can carry (MessageSummary.flags), in the order they are shown. */
export const FLAGS = every<Flag>()([
  "outcome_unknown",
  "conflict",
  "no_receipt",
  "mismatch",
  "id_disagree",
  "late",
  "repeat",
]);

/** The flags that need a person: what "Needs a look" lists. */
export const ATTENTION_FLAGS: readonly Flag[] = ["outcome_unknown", "conflict", "no_receipt", "mismatch", "id_disagree"];

/** Facts the evidence shows that need nobody (a late intermediate report, a repeated receipt):
 * noted on the message, never under "Needs a look". */
export const NOTED_FLAGS: readonly Flag[] = FLAGS.filter((f) => !ATTENTION_FLAGS.includes(f));

export type ResolveAction = ResolveRequest["action"];

/** What the engine accepts for each kind (receipts/exceptions.rs `resolve`); anything else is refused. */
export const ALLOWED_ACTIONS: Readonly<Record<ExceptionKind, readonly ResolveAction[]>> = {
  conflicting_final: ["choose_state", "dismiss"],
  no_receipt: ["choose_state", "dismiss"],
  uncorrelated: ["attach", "dismiss"],
  ambiguous: ["attach", "dismiss"],
  unparseable: ["dismiss"],
  status_unreadable: ["choose_state", "dismiss"],
  // A message held for a decision needs one about the message itself: it cannot be dismissed.
  outcome_unknown: ["resend", "mark_failed"],
  partly_sent: ["resend", "mark_failed"],
  // Held because its number opted out: not sending it (cancelling) first, the safe choice; sending
  // is refused while the number is still on the list.
  opted_out: ["mark_failed", "resend"],
  // A one-time code held for a surge to its country: released (sent) or cancelled, never dismissed;
  // cancelling first, as the surge is most likely pumping.
  unusual_volume: ["mark_failed", "resend"],
};

/** Roles evidence plays in an exception (EvidenceItem.role). */
export const EVIDENCE_ROLES = every<EvidenceRole>()([
  "receipt",
  "materialised_final",
  "conflicting_final",
  "candidate",
  "unanswered",
]);

/** The rules the engine names (StateView.rule). */
export const RULES = every<Rule>()([
  "no_report",
  "intermediate",
  "first_final",
  "operator_decision",
  "parts_pending",
  "parts_final",
]);

export function isFinal(state: DeliveryState): boolean {
  return FINAL_STATES.includes(state);
}
