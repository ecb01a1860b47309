// The message picker of an unmatched receipt: where it searches (a number, a time window before
// the receipt arrived, words of the text) and what the receipt's id looks like. Whether each
// message found fits the receipt is the engine's to say (the compareCandidates operation).

import { CLOCK_SLACK_MS } from "../../bindings/codes";
import type { MessageFilter } from "../../bindings/MessageFilter";
import type { ReceiptView } from "../../bindings/ReceiptView";

/** The windows the picker searches, in hours before the receipt arrived. */
export const WINDOWS_HOURS = [1, 6, 24, 168] as const;
export type WindowHours = (typeof WINDOWS_HOURS)[number];

export interface PickerSearch {
  readonly number: string;
  readonly text: string;
  readonly windowHours: WindowHours;
}

/** The search a receipt suggests: its handset's number, in the day before it arrived. */
export function suggestedSearch(r: ReceiptView | null): PickerSearch {
  const handset = r?.source_addr?.replace(/[^\d+]/g, "") ?? "";
  return { number: handset, text: "", windowHours: 24 };
}

/**
 * How far past the receipt's arrival the search still lists messages (a clock running ahead): the
 * engine's own slack, so the picker lists what the comparison may still call a fit.
 */
export const SEARCH_AFTER_MS = CLOCK_SLACK_MS;

/** The message list's filter for a search around a receipt (sent before it arrived, give or take the clocks). */
export function pickerFilter(search: PickerSearch, receivedAtMs: number, limit: number): MessageFilter {
  const number = search.number.trim();
  const text = search.text.trim();
  return {
    status: null,
    state: null,
    kind: null,
    channel: null,
    destination: number === "" ? null : number,
    q: text === "" ? null : text,
    from_ms: receivedAtMs - search.windowHours * 3_600_000,
    to_ms: receivedAtMs + SEARCH_AFTER_MS,
    connection: null,
    route: null,
    country: null,
    sender: null,
    outcome: null,
    command_status: null,
    error_code: null,
    cursor: null,
    limit,
  };
}

export type IdFormat = "text" | "hex" | "decimal";

/**
 * What a receipt's id looks like, and what it would be in the other base: the usual reason a
 * receipt matches nothing is an SMSC that answers submits in one base and reports in the other.
 * `expected` is the connection's id format for where the id was read, when known.
 */
export interface IdHint {
  readonly kind: "hex_where_decimal" | "digits_where_hex" | "looks_hex" | "looks_decimal";
  readonly id: string;
  readonly other: string;
}

export function idHint(id: string | null, expected: IdFormat | null): IdHint | null {
  const v = id?.trim() ?? "";
  if (v === "" || v.length > 30) return null;
  const digits = /^\d+$/.test(v);
  const hex = !digits && /^[0-9a-f]+$/i.test(v);
  if (!digits && !hex) return null;
  const other = digits ? BigInt(v).toString(16) : BigInt(`0x${v}`).toString(10);
  if (expected === "decimal" && hex) return { kind: "hex_where_decimal", id: v, other };
  if (expected === "hex" && digits) return { kind: "digits_where_hex", id: v, other };
  if (expected === null || expected === "text") return { kind: hex ? "looks_hex" : "looks_decimal", id: v, other };
  return null;
}

/**
 * The connection's id format for a receipt's id, read from the settings (`receipts.receipt_id`
 * for an id in the receipt's text, `receipts.tlv_id` for the TLV, which may defer to
 * `receipts.response_id`); null when the settings do not say.
 */
export function expectedIdFormat(settings: readonly { key: string; value: string }[], source: ReceiptView["id_source"]): IdFormat | null {
  const value = (key: string): string | null => settings.find((f) => f.key === key)?.value ?? null;
  const format = (v: string | null): IdFormat | null => (v === "text" || v === "hex" || v === "decimal" ? v : null);
  if (source === "text") return format(value("receipts.receipt_id"));
  if (source === "tlv") {
    const tlv = value("receipts.tlv_id");
    return tlv === "response" ? format(value("receipts.response_id")) : format(tlv);
  }
  return null;
}
