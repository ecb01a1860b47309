// Builders for the engine's answers, with plausible defaults a test overrides field by field.

import type { AttemptView } from "../bindings/AttemptView";
import type { DeliveryView } from "../bindings/DeliveryView";
import type { EvidenceItem } from "../bindings/EvidenceItem";
import type { EvidenceRole } from "../bindings/EvidenceRole";
import type { ExceptionDetail } from "../bindings/ExceptionDetail";
import type { ExceptionSummary } from "../bindings/ExceptionSummary";
import type { InboxMessage } from "../bindings/InboxMessage";
import type { Me } from "../bindings/Me";
import type { MessageDetail } from "../bindings/MessageDetail";
import type { MessageSummary } from "../bindings/MessageSummary";
import type { OptOutEntry } from "../bindings/OptOutEntry";
import type { ReceiptView } from "../bindings/ReceiptView";
import type { Role } from "../bindings/Role";
import type { SentInThread } from "../bindings/SentInThread";
import type { ThreadItem } from "../bindings/ThreadItem";
import type { ThreadSummary } from "../bindings/ThreadSummary";
import type { ThreadView } from "../bindings/ThreadView";
import type { TimelineEntry } from "../bindings/TimelineEntry";
import type { Pace } from "../bindings/Pace";

export const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);

export function summary(id: number, over: Partial<MessageSummary> = {}): MessageSummary {
  return {
    id,
    created_at_ms: T0,
    channel: "compose",
    destination: `+336123456${String(id % 100).padStart(2, "0")}`,
    preview: "hello",
    body_chars: 5,
    kind: "transactional",
    priority: 5,
    segments: 1,
    encoding: "gsm7",
    status: "queued",
    state: "pending",
    rule: "no_report",
    flags: [],
    attempts: 0,
    client_ref: null,
    api_key_id: null,
    connection: "sandbox",
    scheduled_at_ms: null,
    reason: null,
    ...over,
  };
}

export function attempt(id: number, over: Partial<AttemptView> = {}): AttemptView {
  return {
    id,
    message_id: 7,
    attempt_no: 1,
    segment_no: 1,
    connection: "sandbox",
    session_id: "s-1",
    sequence_number: 41,
    created_at_ms: T0 + 1_000,
    sent_at_ms: T0 + 1_010,
    responded_at_ms: T0 + 1_200,
    command_status: 0,
    command_status_hex: "0x00000000",
    command_status_name: "ESME_ROK",
    command_status_meaning: "No error",
    provider_message_id: "0A1b ",
    provider_id_norm: "0A1b",
    outcome: "accepted",
    error: null,
    registered_delivery: 1,
    routing: null,
    ...over,
  };
}

export function receipt(id: number, over: Partial<ReceiptView> = {}): ReceiptView {
  return {
    id,
    received_at_ms: T0 + 5_000,
    source: "smpp_deliver_sm",
    connection: "sandbox",
    session_id: "s-1",
    sequence_number: 9,
    arrival_no: 1,
    provider: null,
    source_addr: "33612345607",
    destination_addr: "smsdesk",
    esm_class: 4,
    data_coding: 0,
    part: 0,
    parts: 1,
    raw_text: "id:0A1b sub:001 dlvrd:001 submit date:2611291200 done date:2611291201 stat:DELIVRD err:000 text:Your order",
    raw_hex: "69643a304131",
    pdu_hex: null,
    headers: null,
    tlvs: [{ tag: "0x001e", hex: "3041316200" }],
    kind: "receipt",
    parser_version: 1,
    parse_error: null,
    message_id_raw: "0A1b",
    id_source: "tlv",
    text_id: "0A1b",
    event_id: null,
    stat: "DELIVRD",
    stat_raw: "DELIVRD",
    status_unreadable: false,
    err: "000",
    sub: "001",
    dlvrd: "001",
    submit_date: "2611291200",
    done_date: "2611291201",
    submit_ts: "2026-11-29T12:00:00",
    done_ts: "2026-11-29T12:01:00",
    message_state: 2,
    network_error_code: null,
    reported_state: "delivered",
    logical_event_id: 3,
    is_repeat: false,
    processed_at_ms: T0 + 5_010,
    correlation: "matched",
    message_id: 7,
    correlated_by: "system",
    flags: [],
    message_parts: [],
    ...over,
  };
}

export function exceptionSummary(id: number, over: Partial<ExceptionSummary> = {}): ExceptionSummary {
  return {
    id,
    kind: "conflicting_final",
    status: "open",
    summary_code: null,
    summary_params: {},
    message_id: 7,
    destination: "+33612345607",
    logical_event_id: null,
    summary: "DELIVRD then UNDELIV",
    created_at_ms: T0 + 6_000,
    resolution: null,
    resolution_note: null,
    resolved_by: null,
    resolved_at_ms: null,
    ...over,
  };
}

export function webhook(id: number, over: Partial<DeliveryView> = {}): DeliveryView {
  return {
    id,
    apiKeyId: 2,
    field: "state",
    value: "delivered",
    createdAt: T0 + 5_020,
    status: "delivered",
    attempts: 1,
    nextAttemptAt: T0 + 5_020,
    lastError: null,
    deliveredAt: T0 + 5_100,
    tries: [{ id: 1, at: T0 + 5_050, url: "https://crm.example/hook", httpStatus: 200, error: null, durationMs: 42 }],
    ...over,
  };
}

function entry(at_ms: number, kind: TimelineEntry["kind"], ref_id: number, summary: string): TimelineEntry {
  return { at_ms, kind, ref_id, summary, part: null };
}

/**
 * Message 7: accepted by the SMSC, reported delivered by receipt 11 (and its repeat 12), with
 * the engine's timeline in the engine's order and one webhook notification.
 */
export function deliveredDetail(over: Partial<MessageDetail> = {}): MessageDetail {
  const a = attempt(21, { message_id: 7 });
  const r1 = receipt(11);
  const r2 = receipt(12, { received_at_ms: T0 + 9_000, is_repeat: true });
  return {
    audit: [],
    summary: summary(7, { status: "accepted", state: "delivered", rule: "first_final", flags: ["repeat"], attempts: 1 }),
    message: {
      id: 7,
      created_at_ms: T0,
      channel: "api",
      idempotency_scope: "key:2",
      idempotency_key: "order-1042",
      request_hash: "abc123",
      client_ref: "order-1042",
      source_raw: null,
      source_addr: "smsdesk",
      source_ton: null,
      source_npi: null,
      destination_raw: "+33 6 12 34 56 07",
      destination: "+33612345607",
      dest_ton: 1,
      dest_npi: 1,
      body: "Your order 1042 has shipped.\nTrack it online.",
      encoding: "gsm7",
      segments: 1,
      kind: "transactional",
      priority: 5,
      ordering_key: null,
      valid_until_ms: null,
      scheduled_at_ms: null,
      registered_delivery: 1,
      connection: "sandbox",
      api_key_id: 2,
      api_key_name: "crm",
      submitted_by: null,
      text_removed: null,
      number_removed: null,
    },
    queue: {
      status: "accepted",
      attempts: 1,
      next_attempt_at_ms: T0,
      last_error: null,
      queue_priority: 15,
      lease_owner: null,
      lease_until_ms: null,
      updated_at_ms: T0 + 1_200,
      accepted_at_ms: T0 + 1_200,
      provider_message_ids: ["0A1b "],
      route: "default",
      pinned: null,
      reason: null,
    },
    state: {
      state: "delivered",
      rule: "first_final",
      rule_explained: "The first final state the network reported; later receipts never replace it.",
      reported_state: "delivered",
      decided_by_exception_id: null,
      supporting_event_ids: [3],
      supporting_receipt_ids: [11, 12],
      conflicting_event_ids: [],
      conflicting_receipt_ids: [],
      flags: { late: false, conflict: false, no_receipt: false, mismatch: false, id_disagree: false },
      rules_version: 1,
      updated_at_ms: T0 + 5_010,
      parts: [],
    },
    operator_decision: null,
    attempts: [a],
    receipts: [r1, r2],
    exceptions: [],
    webhooks: [webhook(31)],
    timeline: [
      entry(T0, "created", 7, "Message for +33612345607 received via api (transactional, 1 part, gsm7)."),
      entry(T0 + 1_000, "attempt", 21, "Submit try 1 recorded on sandbox on session s-1, sequence 41."),
      entry(T0 + 1_200, "attempt_result", 21, 'The SMSC accepted try 1 with provider id "0A1b " (acceptance, not delivery).'),
      entry(T0 + 5_000, "receipt", 11, "Receipt DELIVRD (reported delivered), err 000 via smpp_deliver_sm on sandbox."),
      entry(T0 + 9_000, "receipt", 12, "Receipt DELIVRD (reported delivered) via smpp_deliver_sm on sandbox; a repeat."),
    ],
    retry: { blocked: [], confirm: [] },
    text_as_given: null,
    replaced_characters: "",
    cost_micros: null,
    currency: null,
    ...over,
  };
}

export function evidenceReceipt(role: EvidenceRole, r: ReceiptView): EvidenceItem {
  return { role, receipt: r, attempt: null };
}

export function exceptionDetail(over: Partial<ExceptionDetail> = {}): ExceptionDetail {
  return {
    exception: exceptionSummary(5),
    details: null,
    message: summary(7, { status: "accepted", state: "delivered", rule: "first_final", flags: ["conflict"] }),
    evidence: [
      evidenceReceipt("materialised_final", receipt(11)),
      evidenceReceipt(
        "conflicting_final",
        receipt(13, { stat: "UNDELIV", stat_raw: "UNDELIV", err: "001", reported_state: "undeliverable", received_at_ms: T0 + 6_000 }),
      ),
    ],
    candidates: [],
    ...over,
  };
}

/** A person signed in from a browser with `role`, as `GET /api/v1/me` describes them. */
export function person(role: Role, actor = role === "admin" ? "Alice" : role === "operator" ? "Olga" : "Victor"): Me {
  return {
    actor,
    kind: "person",
    role,
    scopes: role === "viewer" ? ["read:all"] : ["send", "read:all", "act", "export"],
    admin: role === "admin",
    only_own: false,
    csrf_token: `csrf-${actor}`,
  };
}

/** A reply from the handset +33612345626, read by nobody yet. */
export function inboxMessage(id: number, over: Partial<InboxMessage> = {}): InboxMessage {
  return {
    id,
    connection: "sandbox",
    thread: "+33612345626",
    phone: "+33612345626",
    handset: "33612345626",
    recipient: "smsdesk",
    text: "Je ne pourrai pas venir demain, merci de rappeler.",
    alphabet: "gsm7",
    parts: 1,
    parts_received: 1,
    received_at_ms: T0 + 60_000,
    intent: null,
    keyword: null,
    read_at_ms: null,
    read_by: null,
    ...over,
  };
}

export function received(id: number, over: Partial<InboxMessage> = {}): ThreadItem {
  return { direction: "received", ...inboxMessage(id, over) };
}

export function sent(id: number, over: Partial<SentInThread> = {}): ThreadItem {
  return {
    direction: "sent",
    id,
    text: "Your appointment is tomorrow at 10:30.",
    kind: "transactional",
    created_at_ms: T0,
    status: "accepted",
    state: "delivered",
    ...over,
  };
}

export function threadSummary(thread: string, over: Partial<ThreadSummary> = {}): ThreadSummary {
  return {
    thread,
    phone: thread.startsWith("+") ? thread : null,
    last: inboxMessage(1, { thread, phone: thread.startsWith("+") ? thread : null }),
    replies: 1,
    unread: 1,
    opted_out: false,
    ...over,
  };
}

export function threadView(over: Partial<ThreadView> = {}): ThreadView {
  return {
    thread: "+33612345626",
    phone: "+33612345626",
    opt_out: null,
    items: [sent(7), received(3)],
    next_cursor: null,
    ...over,
  };
}

/** +33612345628 on the list since its handset replied "Arrêt" (reply 4). */
export function optOutEntry(id: number, over: Partial<OptOutEntry> = {}): OptOutEntry {
  return {
    id,
    phone: "+33612345628",
    kinds: ["transactional", "bulk"],
    reason: "reply",
    note: null,
    inbox_message_id: 4,
    reply_text: "Arrêt",
    created_at_ms: T0 + 120_000,
    created_by: "+33612345628 (reply)",
    removed_at_ms: null,
    removed_by: null,
    removed_reason: null,
    removed_note: null,
    removed_inbox_message_id: null,
    ...over,
  };
}

/** A connection's figures when nothing waits for it and no one holds it (spread into a ConnectionStatus). */
export const IDLE_CONNECTION = {
  hold: null,
  queued: 0,
  under_way: 0,
  accepted_per_s: 0,
  tps_limit: 1000,
  window: 64,
} as const;

/** The pace of sending, at T0 on a provider's account with nothing waiting. */
export function pace(over: Partial<Pace> = {}): Pace {
  return {
    at_ms: T0,
    connection: "provider",
    tps_limit: 10,
    window: 10,
    max_rate_per_s: 10,
    queued: 0,
    sent_last_minute_per_s: 0,
    eta_seconds: 0,
    sandbox_tps_limit: 1_000,
    sandbox_window: 64,
    scheduled: 0,
    next_scheduled_at_ms: null,
    ...over,
  };
}
