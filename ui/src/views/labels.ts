import type { DeliveryState } from "../bindings/DeliveryState";
import type { ExceptionKind } from "../bindings/ExceptionKind";
import type { ExceptionStatus } from "../bindings/ExceptionStatus";
import type { IntakeChannel } from "../bindings/IntakeChannel";
import type { MessageKind } from "../bindings/MessageKind";
import type { QueueStatus } from "../bindings/QueueStatus";
import type { ResolveRequest } from "../bindings/ResolveRequest";

// The engine's closed vocabularies, in the order screens list them. Each value has words of its
// own in every dictionary (the i18n test checks that every key exists in every language).

export const QUEUE_STATUSES: readonly QueueStatus[] = [
  "queued",
  "sending",
  "accepted",
  "failed",
  "outcome_unknown",
  "cancelled",
  "expired",
];

export const DELIVERY_STATES: readonly DeliveryState[] = [
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
];

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

export const MESSAGE_KINDS: readonly MessageKind[] = ["otp", "transactional", "bulk"];

export const CHANNELS: readonly IntakeChannel[] = ["api", "csv", "compose", "cli"];

export const EXCEPTION_KINDS: readonly ExceptionKind[] = [
  "conflicting_final",
  "no_receipt",
  "uncorrelated",
  "ambiguous",
  "unparseable",
  "status_unreadable",
  "outcome_unknown",
  "partly_sent",
];

export const EXCEPTION_STATUSES: readonly ExceptionStatus[] = ["open", "resolved", "dismissed"];

/** The flags a message can carry (MessageSummary.flags), in the order they are shown. */
export const FLAGS = ["outcome_unknown", "conflict", "no_receipt", "mismatch", "id_disagree", "late", "repeat"] as const;
export type Flag = (typeof FLAGS)[number];

export function isFlag(value: string): value is Flag {
  return (FLAGS as readonly string[]).includes(value);
}

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
};

/** Roles evidence plays in an exception (EvidenceItem.role). */
export const EVIDENCE_ROLES = ["receipt", "materialised_final", "conflicting_final", "candidate", "unanswered"] as const;
export type EvidenceRole = (typeof EVIDENCE_ROLES)[number];

export function isEvidenceRole(value: string): value is EvidenceRole {
  return (EVIDENCE_ROLES as readonly string[]).includes(value);
}

/** The rules the engine names (StateView.rule). */
export const RULES = [
  "no_report",
  "intermediate",
  "first_final",
  "operator_decision",
  "parts_pending",
  "parts_final",
] as const;
export type Rule = (typeof RULES)[number];

export function isRule(value: string): value is Rule {
  return (RULES as readonly string[]).includes(value);
}

export function isFinal(state: DeliveryState): boolean {
  return FINAL_STATES.includes(state);
}
