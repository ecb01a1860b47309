import type { DeliveryState } from "../bindings/DeliveryState";
import type { ExceptionStatus } from "../bindings/ExceptionStatus";
import type { QueueStatus } from "../bindings/QueueStatus";

/** How a status reads at a glance; the word is always shown too, colour is never the only cue. */
export type Tone = "neutral" | "progress" | "success" | "warning" | "danger";

export const QUEUE_TONE: Readonly<Record<QueueStatus, Tone>> = {
  queued: "neutral",
  sending: "progress",
  accepted: "progress",
  failed: "danger",
  outcome_unknown: "warning",
  held: "warning",
  cancelled: "neutral",
  expired: "danger",
};

export const STATE_TONE: Readonly<Record<DeliveryState, Tone>> = {
  pending: "neutral",
  scheduled: "neutral",
  enroute: "progress",
  accepted: "progress",
  delivered: "success",
  expired: "danger",
  deleted: "danger",
  undeliverable: "danger",
  rejected: "danger",
  unknown: "warning",
  skipped: "warning",
  partially_delivered: "warning",
};

export const EXCEPTION_STATUS_TONE: Readonly<Record<ExceptionStatus, Tone>> = {
  open: "warning",
  resolved: "success",
  dismissed: "neutral",
};
