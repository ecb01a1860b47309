import type { MessageKind } from "../../bindings/MessageKind";

/**
 * The list narrowed from elsewhere (a report's figure): the message filter's fields that select
 * messages exactly as a report classifies them, and an exact period. They travel in the address
 * (`#/messages?connection=primary&outcome=failed,expired&from_ms=…&to_ms=…`), so that a link
 * opens the very messages it counted, and Back, reload and a copied address keep them.
 */

/** The fields a report's breakdown narrows the list by, in the order their chips show. */
export const NARROWING_FIELDS = ["kind", "connection", "route", "country", "sender", "outcome", "command_status", "error_code"] as const;

export type NarrowingField = (typeof NARROWING_FIELDS)[number];

/**
 * What the list is narrowed to: a field absent is not narrowed, "" selects messages with none
 * (never tried on a connection, country unknown, no receipt error). `from_ms` is inclusive and
 * `to_ms` exclusive, as the engine reads them.
 */
export type Narrowing = { readonly [K in NarrowingField]?: string } & {
  readonly from_ms?: number;
  readonly to_ms?: number;
};

export const NO_NARROWING: Narrowing = {};

/** A time in the address: whole milliseconds since the epoch, nothing else. */
function msOf(value: string | null): number | undefined {
  if (value === null || !/^\d{1,16}$/.test(value)) return undefined;
  return Number(value);
}

/** Reads the part of an address after `?`; anything it does not know is left out. */
export function parseNarrowing(search: string): Narrowing {
  const params = new URLSearchParams(search.replace(/^\?/, ""));
  const out: { -readonly [K in keyof Narrowing]: Narrowing[K] } = {};
  for (const field of NARROWING_FIELDS) {
    const value = params.get(field);
    if (value !== null) out[field] = value.trim();
  }
  const from = msOf(params.get("from_ms"));
  const to = msOf(params.get("to_ms"));
  if (from !== undefined) out.from_ms = from;
  if (to !== undefined) out.to_ms = to;
  return out;
}

/** Writes a narrowing as the part of an address after `?` ("" when nothing is narrowed). */
export function formatNarrowing(narrowing: Narrowing): string {
  const params = new URLSearchParams();
  for (const field of NARROWING_FIELDS) {
    const value = narrowing[field];
    if (value !== undefined) params.set(field, value);
  }
  if (narrowing.from_ms !== undefined) params.set("from_ms", String(narrowing.from_ms));
  if (narrowing.to_ms !== undefined) params.set("to_ms", String(narrowing.to_ms));
  // Commas and colons read better as they are (outcome=failed,expired; sender=key:3).
  return params.toString().replace(/%2C/gi, ",").replace(/%3A/gi, ":");
}

export function isNarrowed(narrowing: Narrowing | undefined): boolean {
  return narrowing !== undefined && formatNarrowing(narrowing) !== "";
}

/** The same narrowing without one of its fields (a chip removed); the period goes as one. */
export function without(narrowing: Narrowing, field: NarrowingField | "period"): Narrowing {
  const rest: { -readonly [K in keyof Narrowing]: Narrowing[K] } = { ...narrowing };
  if (field === "period") {
    delete rest.from_ms;
    delete rest.to_ms;
  } else {
    delete rest[field];
  }
  return rest;
}

/**
 * The SMSC's command status as the engine's filter takes it (a number), from the decimal or the
 * `0x…` form, -1 for the messages no submit of which was answered; null when it is none of these
 * (nothing can select it).
 */
export function commandStatusOf(value: string | undefined): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (text === "-1") return -1;
  if (/^\d{1,10}$/.test(text)) return Number(text);
  if (/^0x[0-9a-f]{1,8}$/i.test(text)) return Number.parseInt(text.slice(2), 16);
  return null;
}

const KINDS: readonly string[] = ["otp", "transactional", "bulk"] satisfies readonly MessageKind[];

/** A kind the engine knows, else null. */
export function kindOf(value: string | undefined): MessageKind | null {
  return value !== undefined && KINDS.includes(value) ? (value as MessageKind) : null;
}

/**
 * The engine's filter fields for a narrowing (null where it does not narrow). The kind is the
 * list's own filter too: the one chosen in the list wins over the address's.
 */
export function narrowingFilter(narrowing: Narrowing | undefined): {
  kind: MessageKind | null;
  connection: string | null;
  route: string | null;
  country: string | null;
  sender: string | null;
  outcome: string | null;
  command_status: number | null;
  error_code: string | null;
} {
  const n = narrowing ?? NO_NARROWING;
  return {
    kind: kindOf(n.kind),
    connection: n.connection ?? null,
    route: n.route ?? null,
    country: n.country ?? null,
    sender: n.sender ?? null,
    outcome: n.outcome ?? null,
    command_status: commandStatusOf(n.command_status),
    error_code: n.error_code ?? null,
  };
}
