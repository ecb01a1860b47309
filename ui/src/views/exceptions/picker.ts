// What the message picker of an unmatched receipt compares: each message found beside the
// receipt, fact by fact, as the engine compares them when a receipt is attached (core
// receipts/mismatch.rs and echo.rs). The engine checks again when the receipt is attached.

import type { MessageFilter } from "../../bindings/MessageFilter";
import type { MessageSummary } from "../../bindings/MessageSummary";
import type { ReceiptView } from "../../bindings/ReceiptView";

/** The receipt's `text:` field, as the engine reads it (the start of the message, as the SMSC echoes it). */
export function receiptTextField(raw: string | null): string | null {
  if (raw === null) return null;
  const at = raw.toLowerCase().indexOf("text:");
  return at < 0 ? null : raw.slice(at + 5).replace(/\0+$/, "");
}

/** Two numbers are the same when their digits agree, one ending the other (at least 6 digits), leading zeros aside. */
export function sameNumber(a: string, b: string): boolean {
  const digits = (s: string): string => s.replace(/\D/g, "").replace(/^0+/, "");
  const [x, y] = [digits(a), digits(b)];
  if (x === "" || y === "") return true;
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  return short.length >= 6 && long.endsWith(short);
}

const survives = (c: string): boolean => /^[A-Za-z0-9 ]$/.test(c);
const alnum = (c: string): boolean => /^[A-Za-z0-9]$/.test(c);
const plainLetter = (c: string): string | null => {
  const first = c.normalize("NFKD")[0] ?? "";
  return alnum(first) ? first.toLowerCase() : null;
};

/**
 * Whether a receipt's text echo can be the start of `body` after an SMSC's lossy transforms: cut
 * short, another case, a letter outside ASCII as `?`, its GSM byte, its plain letter or left out,
 * € as two bytes. With `anyPart`, the echo may start anywhere (a receipt for a later part).
 */
export function echoFits(echo: string, body: string, anyPart: boolean): boolean {
  const e = [...echo.replace(/[\0 ]+$/, "")];
  const b = [...body];
  const dead = new Set<number>();
  const fits = (i: number, j: number): boolean => {
    if (i === e.length) return true;
    if (j === b.length) return false;
    const key = i * (b.length + 1) + j;
    if (dead.has(key)) return false;
    const [ec, bc] = [e[i] ?? "", b[j] ?? ""];
    let found: boolean;
    if (survives(bc)) {
      found = ec.toLowerCase() === bc.toLowerCase() && fits(i + 1, j + 1);
    } else {
      const replaced = !alnum(ec) || ec.toLowerCase() === plainLetter(bc);
      found = (replaced && fits(i + 1, j + 1)) || (!alnum(ec) && fits(i + 2, j + 1)) || fits(i, j + 1);
    }
    if (!found) dead.add(key);
    return found;
  };
  const starts = anyPart ? Math.max(b.length, 1) : 1;
  for (let start = 0; start < starts; start += 1) if (fits(0, start)) return true;
  return false;
}

export type FactVerdict = "agrees" | "differs" | "unknown";

export interface PickerFact {
  readonly field: "connection" | "destination" | "text" | "time";
  readonly receipt: string;
  readonly message: string;
  readonly verdict: FactVerdict;
}

/** A message created this long after a receipt arrived cannot be the receipt's (clocks aside). */
const CLOCK_SLACK_MS = 10 * 60_000;

/** Every fact a receipt and a listed message both carry, each agreeing, differing, or beyond what the list shows. */
export function compareWithReceipt(r: ReceiptView, m: MessageSummary, formatTime: (ms: number) => string): PickerFact[] {
  const facts: PickerFact[] = [
    { field: "connection", receipt: r.connection, message: m.connection, verdict: r.connection === m.connection ? "agrees" : "differs" },
  ];
  const handset = r.source_addr?.trim() ?? "";
  if (handset !== "") {
    const verdict = sameNumber(handset, m.destination) ? "agrees" : "differs";
    facts.push({ field: "destination", receipt: handset, message: m.destination, verdict });
  }
  const echo = receiptTextField(r.raw_text)?.trim() ?? "";
  if (echo !== "") {
    const cut = m.body_chars > [...m.preview].length;
    const fits = echoFits(echo, m.preview, m.segments > 1);
    facts.push({
      field: "text",
      receipt: echo,
      message: [...m.preview].slice(0, [...echo].length).join(""),
      // A UCS-2 text is echoed as raw UTF-16: not compared. The list shows 80 characters: a later
      // part's echo may lie beyond them.
      verdict: m.encoding !== "gsm7" ? "unknown" : fits ? "agrees" : cut && m.segments > 1 ? "unknown" : "differs",
    });
  }
  facts.push({
    field: "time",
    receipt: formatTime(r.received_at_ms),
    message: formatTime(m.created_at_ms),
    verdict: m.created_at_ms <= r.received_at_ms + CLOCK_SLACK_MS ? "agrees" : "differs",
  });
  return facts;
}

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
    to_ms: receivedAtMs + CLOCK_SLACK_MS,
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
