/** The connections editor's working copy: drafts, their conversions to what the engine takes, and the checks before saving. */
import type { ConnectionEdit } from "../../../bindings/ConnectionEdit";
import type { ConnectionsUpdate } from "../../../bindings/ConnectionsUpdate";
import type { ConnectionTest } from "../../../bindings/ConnectionTest";
import type { FieldError } from "../../../bindings/FieldError";
import type { MessageKind } from "../../../bindings/MessageKind";
import type { RouteEdit } from "../../../bindings/RouteEdit";
import type { useI18n } from "../../../i18n/context";
import { passwordTooLong, systemIdTooLong } from "../smppLimits";
import { pinProblem } from "../tls";

export const KINDS: readonly MessageKind[] = ["otp", "transactional", "bulk"];
export const BIND_MODES = ["transceiver", "transmitter_receiver"] as const;
/** What a name may be: in routes, URLs, logs and stored rows (the engine's own rule). */
const NAME = /^[A-Za-z0-9_-]{1,32}$/;
const PREFIX = /^\+\d{1,15}$/;
const COUNTRY = /^[A-Za-z]{2}$/;
const BINDS_MAX = 16;

/** A connection as the form edits it: numbers as typed, and the name it was saved under. */
export interface ConnectionDraft {
  /** Stable across edits and moves (React's key, and where the engine's errors stay). */
  readonly key: number;
  /** The name it was loaded with; null for a connection added here. */
  readonly saved: string | null;
  readonly name: string;
  readonly sandbox: boolean;
  readonly host: string;
  readonly port: string;
  readonly system_id: string;
  /** Typed anew; null keeps the one kept for it. */
  readonly password: string | null;
  readonly password_set: boolean;
  readonly system_type: string;
  readonly bind_mode: string;
  readonly binds: string;
  readonly window: string;
  readonly tps: string;
  readonly source_addr: string;
  readonly enabled: boolean;
  /** Over TLS, saved with the connection (and tried so by its test). */
  readonly tls: boolean;
  /**
   * While `tls` is on: what the certificate is checked with, as typed (empty: the default). Kept
   * here while it is off, but saved only with it on (off, the file keeps no TLS key).
   */
  readonly tls_ca_file: string;
  readonly tls_server_name: string;
  readonly tls_pin_sha256: string;
  readonly tls_client_cert_file: string;
  readonly tls_client_key_file: string;
  /** TLS as saved: on or off, and the client certificate a test uses (it cannot be given another). */
  readonly tls_saved: TlsSaved;
}

/** What a trial bind takes of a connection's TLS from what is saved, whatever is typed. */
export interface TlsSaved {
  readonly tls: boolean;
  readonly tls_client_cert_file: string;
  readonly tls_client_key_file: string;
}

/** The TLS fields of a draft, as typed (the switch, then what it is checked with). */
export const TLS_FIELDS = [
  "tls",
  "tls_ca_file",
  "tls_server_name",
  "tls_pin_sha256",
  "tls_client_cert_file",
  "tls_client_key_file",
] as const;
/** The TLS fields typed as text. */
export type TlsTextField = Exclude<(typeof TLS_FIELDS)[number], "tls">;

/** The TLS of a connection added here: off, nothing typed. */
const NO_TLS = {
  tls: false,
  tls_ca_file: "",
  tls_server_name: "",
  tls_pin_sha256: "",
  tls_client_cert_file: "",
  tls_client_key_file: "",
} as const;

/** A route as the form edits it: its lists as typed (comma-separated). */
export interface RouteDraft {
  readonly key: number;
  readonly name: string;
  readonly prefixes: string;
  readonly countries: string;
  readonly api_keys: string;
  readonly kinds: readonly MessageKind[];
  /** In order: the primary first. */
  readonly connections: readonly string[];
}

let nextKey = 0;
/** A new number, never given before (drafts' keys, and the editor's generations). */
export const newKey = (): number => (nextKey += 1);

export function connectionDraft(c: ConnectionEdit): ConnectionDraft {
  return {
    key: newKey(),
    saved: c.name,
    name: c.name,
    sandbox: c.sandbox,
    host: c.host,
    port: String(c.port),
    system_id: c.system_id,
    password: null,
    password_set: c.password_set,
    system_type: c.system_type,
    bind_mode: c.bind_mode,
    binds: String(c.binds),
    window: String(c.window),
    tps: String(c.tps),
    source_addr: c.source_addr,
    enabled: c.enabled,
    tls: c.tls,
    tls_ca_file: c.tls_ca_file,
    tls_server_name: c.tls_server_name,
    tls_pin_sha256: c.tls_pin_sha256,
    tls_client_cert_file: c.tls_client_cert_file,
    tls_client_key_file: c.tls_client_key_file,
    tls_saved: { tls: c.tls, tls_client_cert_file: c.tls_client_cert_file, tls_client_key_file: c.tls_client_key_file },
  };
}

export function blankConnection(): ConnectionDraft {
  return {
    key: newKey(),
    saved: null,
    name: "",
    sandbox: false,
    host: "",
    port: "2775",
    system_id: "",
    password: null,
    password_set: false,
    system_type: "",
    bind_mode: "transceiver",
    binds: "1",
    window: "10",
    tps: "10",
    source_addr: "",
    enabled: true,
    ...NO_TLS,
    tls_saved: { tls: false, tls_client_cert_file: "", tls_client_key_file: "" },
  };
}

export function routeDraft(r: RouteEdit): RouteDraft {
  return {
    key: newKey(),
    name: r.name,
    prefixes: r.prefixes.join(", "),
    countries: r.countries.join(", "),
    api_keys: r.api_keys.join(", "),
    kinds: r.kinds,
    connections: r.connections,
  };
}

export function blankRoute(): RouteDraft {
  return { key: newKey(), name: "", prefixes: "", countries: "", api_keys: "", kinds: [], connections: [] };
}

/** "a, b ,, c" → ["a", "b", "c"]. */
export function splitList(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** A whole number typed, within bounds; null otherwise. */
function integer(text: string, min: number, max: number): number | null {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return null;
  const n = Number(trimmed);
  return n >= min && n <= max ? n : null;
}

const U32 = 4_294_967_295;

/** Whether a draft is saved over TLS: switched on, for a real provider (a sandbox has no link). */
const overTls = (d: ConnectionDraft): boolean => d.tls && !d.sandbox;

function toConnectionEdit(d: ConnectionDraft): ConnectionEdit {
  // A sandbox's link values are neither shown nor written: any number will do for them. TLS off,
  // the file keeps none of its keys: what is typed for it is not sent (nor is it a change).
  const tls = overTls(d);
  const tlsText = (value: string): string => (tls ? value.trim() : "");
  return {
    name: d.name.trim(),
    sandbox: d.sandbox,
    host: d.host.trim(),
    port: integer(d.port, 1, 65_535) ?? 2775,
    system_id: d.system_id.trim(),
    system_type: d.system_type.trim(),
    bind_mode: d.bind_mode,
    binds: integer(d.binds, 1, BINDS_MAX) ?? 1,
    window: integer(d.window, 1, U32) ?? 10,
    tps: integer(d.tps, 1, U32) ?? 10,
    source_addr: d.source_addr.trim(),
    enabled: d.enabled,
    password: d.password === null || d.password === "" ? null : d.password,
    password_set: d.password_set,
    tls,
    tls_ca_file: tlsText(d.tls_ca_file),
    tls_server_name: tlsText(d.tls_server_name),
    tls_pin_sha256: tlsText(d.tls_pin_sha256),
    tls_client_cert_file: tlsText(d.tls_client_cert_file),
    tls_client_key_file: tlsText(d.tls_client_key_file),
  };
}

function toRouteEdit(r: RouteDraft): RouteEdit {
  return {
    name: r.name.trim(),
    prefixes: splitList(r.prefixes),
    countries: splitList(r.countries).map((c) => c.toUpperCase()),
    kinds: KINDS.filter((k) => r.kinds.includes(k)),
    api_keys: splitList(r.api_keys),
    connections: [...r.connections],
  };
}

export function toUpdate(connections: readonly ConnectionDraft[], routes: readonly RouteDraft[]): ConnectionsUpdate {
  return { connections: connections.map(toConnectionEdit), routes: routes.map(toRouteEdit) };
}

export const hasConditions = (r: RouteDraft): boolean =>
  splitList(r.prefixes).length > 0 || splitList(r.countries).length > 0 || splitList(r.api_keys).length > 0 || r.kinds.length > 0;

/** One thing wrong, found here before saving or said by the engine after. */
export type Problem = { readonly text: string } | { readonly error: FieldError };

/** Where a problem is: a connection's or a route's field (by the draft's key), or the whole list. */
export interface Placed {
  readonly scope: "connection" | "route";
  readonly key: number;
  /** The field's name (`name`, `port`, `connections`, `connections.2` for a route's third). */
  readonly field: string;
  readonly problem: Problem;
}

type Translate = ReturnType<typeof useI18n>["t"];

/** What must be fixed before saving: each next to its field; `list` for the lists as a whole. */
export function validate(
  t: Translate,
  connections: readonly ConnectionDraft[],
  routes: readonly RouteDraft[],
): { placed: Placed[]; list: string[] } {
  const placed: Placed[] = [];
  const list: string[] = [];
  const at = (scope: Placed["scope"], key: number, field: string, text: string): void => {
    placed.push({ scope, key, field, problem: { text } });
  };
  const names = connections.map((c) => c.name.trim());
  for (const c of connections) {
    const name = c.name.trim();
    if (name === "") at("connection", c.key, "name", t("settings.connections.problem.nameRequired"));
    else if (!NAME.test(name)) at("connection", c.key, "name", t("settings.connections.problem.nameInvalid"));
    else if (names.filter((n) => n === name).length > 1) {
      at("connection", c.key, "name", t("settings.connections.problem.nameTwice"));
    }
    if (!c.sandbox) {
      if (c.host.trim() === "") at("connection", c.key, "host", t("settings.connections.problem.hostRequired"));
      if (integer(c.port, 1, 65_535) === null) at("connection", c.key, "port", t("settings.connections.problem.port"));
      // What SMPP cannot carry in a bind, in the same words as the Settings form's.
      const systemIdLong = systemIdTooLong(t, c.system_id);
      if (systemIdLong !== null) at("connection", c.key, "system_id", systemIdLong);
      const passwordLong = passwordTooLong(t, c.password);
      if (passwordLong !== null) at("connection", c.key, "password", passwordLong);
      if (integer(c.binds, 1, BINDS_MAX) === null) {
        at("connection", c.key, "binds", t("settings.connections.problem.binds", { max: BINDS_MAX }));
      }
      if (integer(c.window, 1, U32) === null) at("connection", c.key, "window", t("settings.connections.problem.atLeastOne"));
      if (integer(c.tps, 1, U32) === null) at("connection", c.key, "tps", t("settings.connections.problem.atLeastOne"));
    }
    if (overTls(c)) {
      // The engine's own checks, said as typed: a pin is 64 hex digits, a client certificate has both its files.
      const pin = pinProblem(t, c.tls_pin_sha256);
      if (pin !== null) at("connection", c.key, "tls_pin_sha256", pin);
      if ((c.tls_client_cert_file.trim() === "") !== (c.tls_client_key_file.trim() === "")) {
        at("connection", c.key, "tls_client_key_file", t("settings.tls.clientPair"));
      }
    }
  }
  if (connections.length > 0 && connections.every((c) => !c.enabled)) {
    list.push(t("settings.connections.problem.allDisabled"));
  }
  for (const r of routes) {
    if (r.name.trim() === "") at("route", r.key, "name", t("settings.routes.problem.nameRequired"));
    for (const p of splitList(r.prefixes)) {
      if (!PREFIX.test(p)) at("route", r.key, "prefixes", t("settings.routes.problem.prefix", { value: p }));
    }
    for (const c of splitList(r.countries)) {
      if (!COUNTRY.test(c)) at("route", r.key, "countries", t("settings.routes.problem.country", { value: c }));
    }
    if (r.connections.length === 0) at("route", r.key, "connections", t("settings.routes.problem.noConnection"));
    r.connections.forEach((name, j) => {
      if (!names.includes(name)) {
        at("route", r.key, `connections.${j}`, t("settings.routes.problem.missing", { name }));
      } else if (r.connections.indexOf(name) !== j) {
        at("route", r.key, `connections.${j}`, t("settings.routes.problem.twice", { name }));
      }
    });
  }
  return { placed, list };
}

/**
 * The fields whose refusals an edit of `fields` answers: a client certificate's pair is refused
 * on its key's file, and TLS switched off leaves none of its own to refuse.
 */
export function answeredBy(fields: readonly string[]): string[] {
  const out = new Set(fields);
  if (out.has("tls_client_cert_file")) out.add("tls_client_key_file");
  if (out.has("tls") || out.has("sandbox")) TLS_FIELDS.forEach((f) => out.add(f));
  return [...out];
}

/** Whether a test of the draft uses a client certificate other than the one typed: a test takes the saved one. */
export function clientCertificateUntested(d: ConnectionDraft): boolean {
  return (
    overTls(d) &&
    (d.tls_client_cert_file.trim() !== d.tls_saved.tls_client_cert_file ||
      d.tls_client_key_file.trim() !== d.tls_saved.tls_client_key_file)
  );
}

/**
 * The trial bind of one connection: its values as typed, completed from what it was saved with;
 * TLS as switched (while on, the certificate's checks as typed; the client certificate is the
 * saved one, which a test cannot be given).
 */
export function trialOfDraft(d: ConnectionDraft): ConnectionTest {
  // The sandbox has no link: TLS as saved, which it does not use.
  const tls = d.sandbox ? null : d.tls;
  const typed = (value: string): string | null => (tls === true ? value.trim() : null);
  return {
    connection: d.saved,
    sandbox: d.sandbox,
    host: d.host.trim(),
    port: integer(d.port, 1, 65_535),
    system_id: d.system_id.trim(),
    password: d.password === null || d.password === "" ? null : d.password,
    system_type: d.system_type.trim(),
    interface_version: null,
    address_range: null,
    tls,
    tls_server_name: typed(d.tls_server_name),
    tls_ca_file: typed(d.tls_ca_file),
    tls_pin_sha256: typed(d.tls_pin_sha256),
  };
}
