import type { Erased } from "../bindings/Erased";
import type { PrivacyOverview } from "../bindings/PrivacyOverview";
import type { Redacted } from "../bindings/Redacted";
import type { RetentionRun } from "../bindings/RetentionRun";
import type { SubjectAccess } from "../bindings/SubjectAccess";
import type { Tombstone } from "../bindings/Tombstone";
import { optOutEntry, T0 } from "./fixtures";

/**
 * A count as the engine sends it: a JSON number, which the generated types call `bigint` (the
 * engine's `u64`). The screens read it either way; the tests give what the wire gives.
 */
export const wire = (n: number): bigint => n as unknown as bigint;

/** What a removal took: none of anything unless a test says so. */
export function redacted(over: Partial<Record<keyof Redacted, number>> = {}): Redacted {
  const parts = { texts: 0, numbers: 0, receipts: 0, replies: 0, opt_outs: 0, audit: 0, cancelled: 0, ...over };
  return Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, wire(v)])) as Redacted;
}

export function tombstone(id: number, over: Partial<Omit<Tombstone, "id" | "at">> & { at?: number } = {}): Tombstone {
  const { at = T0, ...rest } = over;
  return { id: wire(id), at: wire(at), rule: "text_days", actor: "retention", summary: redacted({ texts: 12 }), ...rest };
}

/** The defaults of `[retention]`: a day for one-time codes' text, ..., audit notes for ever. */
export function overview(over: Partial<PrivacyOverview> = {}): PrivacyOverview {
  return {
    retention: {
      otp_text_days: 1,
      transactional_text_days: 90,
      bulk_text_days: 0,
      destination_days: 365,
      replies_days: 365,
      audit_days: null,
    },
    recent: [
      tombstone(9, { rule: "erasure", actor: "Alice", at: T0 + 7_200_000, summary: redacted({ texts: 2, numbers: 2, opt_outs: 1, cancelled: 1 }) }),
      tombstone(8, { rule: "destination_days", summary: redacted({ numbers: 3, receipts: 4 }) }),
      tombstone(7, { rule: "text_days", summary: null }),
    ],
    ...over,
  };
}

export function retentionRun(over: Partial<RetentionRun> = {}): RetentionRun {
  return {
    started_at_ms: T0,
    took_ms: 42,
    redacted: redacted({ texts: 12, numbers: 3 }),
    batches: 2,
    longest_batch_ms: wire(9),
    wal_emptied: true,
    ...over,
  };
}

export const HASH = "h:3f2a00000000000000000000000000b1";

export function erased(over: Partial<Erased> = {}): Erased {
  return {
    hash: HASH,
    redacted: redacted({ texts: 2, numbers: 2, replies: 1, opt_outs: 1, cancelled: 1 }),
    still_sending: 0,
    wal_emptied: true,
    ...over,
  };
}

/** Two messages (one whose text and number retention removed), a reply and an opt-out entry. */
export function subjectAccess(): SubjectAccess {
  return {
    record: {
      number: "+33612345600",
      messages: [
        {
          id: 41,
          created_at_ms: T0,
          kind: "transactional",
          channel: "api",
          text: null,
          text_removed_at_ms: T0 + 86_400_000,
          number_removed: true,
          status: "accepted",
          state: "delivered",
          accepted_at_ms: T0 + 1_000,
        },
        {
          id: 42,
          created_at_ms: T0 + 3_600_000,
          kind: "otp",
          channel: "api",
          text: "Votre code : ••••••",
          text_removed_at_ms: null,
          number_removed: false,
          status: "failed",
          state: null,
          accepted_at_ms: null,
        },
      ],
      replies: [{ id: 5, received_at_ms: T0 + 60_000, text: "STOP", intent: "opt_out" }],
      opt_outs: [optOutEntry(3, { phone: "+33612345600" })],
    },
    csv: "kind,id,at\r\nmessage,41,2026-11-29T12:00:00Z\r\n",
  };
}
