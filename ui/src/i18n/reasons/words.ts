import type { AuditEntry } from "../../bindings/AuditEntry";
import type { QueueReason } from "../../bindings/QueueReason";
import type { QueueView } from "../../bindings/QueueView";
import type { RetryFact } from "../../bindings/RetryFact";
import type { I18n, MessageKey } from "../i18n";
import { alertTitle, isAlertRule } from "../alerts/words";
import { redactedOf, redactedParts } from "../privacy/redacted";
import { firstSayable, isKey, smppStatusText } from "../server/words";

type Params = Record<string, string | number>;

/** A key built from a code, said with `params` when it is in the catalogue. */
function sayIf(t: I18n["t"], key: string, params: Params = {}): string | undefined {
  return firstSayable(t, [key], params);
}

/** The SMPP status a reason or fact names, in words with its name in brackets. */
function withStatus(params: Record<string, string>, t: I18n["t"]): Params {
  const out: Params = { ...params };
  const status = params["status"];
  if (status !== undefined) out["status"] = smppStatusText(status, t);
  return out;
}

/** The keys that may word a reason, most specific first. */
function reasonKeys(r: QueueReason): string[] {
  const p = r.params;
  const base = `queueReason.${r.code}`;
  switch (r.code) {
    case "opted_out": {
      const via = `${base}.${p["via"] ?? ""}`;
      return p["keyword"] === undefined ? [via, base] : [`${via}.keyword`, via, base];
    }
    case "resent_by_policy":
      return [`${base}.${p["after"] ?? ""}`, base];
    case "operator":
      return [`${base}.${p["action"] ?? ""}`, base];
    case "partly_sent":
      return [`${base}.parts`, base];
    default:
      return [base];
  }
}

/**
 * A queue reason in the reader's language: what happened (an SMPP status in words, its name in
 * brackets), then what came of it (no tries left, or when it is tried next, given `when` to show
 * a time). `undefined` for a code this version has no words for.
 */
export function reasonWords(r: QueueReason, t: I18n["t"], when?: (ms: number) => string): string | undefined {
  const params = withStatus(r.params, t);
  if (r.code === "partly_sent") {
    const { because, parts, ...rest } = r.params;
    const cause =
      because === undefined ? undefined : reasonWords({ code: because as QueueReason["code"], params: rest }, t);
    params["because"] = cause ?? "";
    if (parts === undefined) delete params["parts"];
  }
  const main = firstSayable(t, reasonKeys(r), params);
  if (main === undefined) return undefined;
  const end = r.params["end"];
  const at = Number(r.params["at_ms"]);
  const tail =
    end !== undefined
      ? sayIf(t, `queueReason.end.${end}`)
      : when !== undefined && Number.isFinite(at) && r.params["at_ms"] !== undefined
        ? t("queueReason.retryAt", { at: when(at) })
        : undefined;
  return tail === undefined ? main.trim() : `${main.trim()} ${tail}`;
}

/**
 * Why a queue row is where it is, in the reader's language: its reason code worded with its
 * parameters; the engine's own sentence when the code is one this screen has no words for (or the
 * row was written before reasons were); null when nothing went wrong.
 */
export function queueReasonWords(q: QueueView, t: I18n["t"], when?: (ms: number) => string): string | null {
  if (q.reason === null) return q.last_error;
  return reasonWords(q.reason, t, when) ?? q.last_error;
}

/** One fact a retry meets, in the reader's language. */
export function retryFactWords(f: RetryFact, t: I18n["t"]): string {
  const p = f.params;
  const base = `retryFact.${f.code}`;
  const params = withStatus(p, t);
  let keys: string[];
  switch (f.code) {
    case "limit_reached": {
      const kind = sayIf(t, `retryFact.kind.${p["kind"] ?? ""}`);
      if (kind !== undefined) params["kind"] = kind;
      keys = [`${base}.${p["limit"] ?? ""}`, base];
      break;
    }
    case "rejected_by_network":
      keys = p["state"] === "undeliverable" ? [`${base}.undeliverable`, base] : [base];
      break;
    case "may_arrive_twice":
      keys = [`${base}.${p["risk"] ?? ""}`, base];
      break;
    default:
      keys = [base];
  }
  return firstSayable(t, keys, params) ?? f.code;
}

/** An audit entry's actor in the reader's language: smsdesk itself, or a person or key by name. */
export function auditActorWords(actor: string, t: I18n["t"]): string {
  if (actor === "system") return t("audit.actor.system");
  if (actor === "operator") return t("audit.actor.operator");
  if (actor === "retention") return t("privacy.actor.retention");
  // Entries written before the engine kept how someone acted in the details.
  const suffixes: [string, MessageKey][] = [
    [" (desktop)", "auditDetail.actor.desktop"],
    [" (command line)", "auditDetail.actor.commandLine"],
    [" (setup link)", "auditDetail.actor.setupLink"],
  ];
  for (const [suffix, key] of suffixes) {
    if (actor.endsWith(suffix)) return sayIf(t, key, { name: actor.slice(0, -suffix.length) }) ?? actor;
  }
  if (actor.endsWith(" (reply)")) return t("auditDetail.actor.reply", { phone: actor.slice(0, -" (reply)".length) });
  if (actor.startsWith("api key ")) return t("auditDetail.actor.apiKey", { name: actor.slice("api key ".length) });
  return actor;
}

/** An audit entry as far as its words need it (the log's entries and a message's timeline lines). */
export type AuditFacts = Pick<AuditEntry, "action" | "details">;

type Details = Record<string, unknown>;

function text(d: Details, name: string): string | undefined {
  const v = d[name];
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined;
}

function list(d: Details, name: string): string[] {
  const v = d[name];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** How a number came on (or off) the opt-out list, for an opt-out entry. */
function optOutWords(d: Details, t: I18n["t"]): string | undefined {
  const phone = text(d, "phone");
  if (phone === undefined) return undefined;
  const reason = text(d, "reason") ?? "operator";
  const keyword = text(d, "keyword");
  const key = `auditDetail.optOut.${reason}${reason === "reply" && keyword !== undefined ? ".keyword" : ""}`;
  const main = firstSayable(t, [key, "auditDetail.optOut.operator"], { phone, keyword: keyword ?? "" });
  const held = Array.isArray(d["held_messages"]) ? d["held_messages"].length : 0;
  return held > 0 ? `${main ?? phone}. ${t("auditDetail.optOut.held", { count: held })}` : main;
}

/** Why a message was held for an opt-out, from the entry's details. */
function holdWords(d: Details, t: I18n["t"]): string | undefined {
  const phone = text(d, "phone");
  const via = text(d, "via");
  if (phone === undefined || via === undefined) return undefined;
  const keyword = text(d, "keyword");
  const keys = keyword === undefined ? [`auditDetail.hold.${via}`] : [`auditDetail.hold.${via}.keyword`];
  return firstSayable(t, keys, { phone, keyword: keyword ?? "", actor: text(d, "actor") ?? "" });
}

/** What a guardrail refused: why, and the countries the refused messages were for. */
function guardrailWords(d: Details, t: I18n["t"]): string | undefined {
  const reason = sayIf(t, `guardrails.reason.${text(d, "reason") ?? ""}`);
  if (reason === undefined) return undefined;
  const one = text(d, "country");
  const countries = [...new Set([...list(d, "countries"), ...(one === undefined ? [] : [one])])].map((c) =>
    c === "" ? t("guardrails.country.unknown") : c,
  );
  return countries.length === 0 ? reason : t("auditDetail.guardrail", { reason, countries: countries.join(", ") });
}

/** What an account entry changed. */
function accountWords(action: string, d: Details, t: I18n["t"]): string | undefined {
  const name = text(d, "name");
  if (name === undefined) return undefined;
  const role = (r: string | undefined): string => (r === undefined ? "" : (sayIf(t, `role.${r}`) ?? r));
  if (action === "account.create") {
    const key = text(d, "via") === "setup_link" ? "auditDetail.account.setupLink" : "auditDetail.account";
    return sayIf(t, key, { name, role: role(text(d, "role")) });
  }
  const done: string[] = [];
  const [from, to] = list(d, "role");
  if (from !== undefined && to !== undefined) {
    done.push(t("auditDetail.account.role", { from: role(from), to: role(to) }));
  }
  if (d["disabled"] === true) done.push(t("auditDetail.account.disabled"));
  if (d["disabled"] === false) done.push(t("auditDetail.account.enabled"));
  if (d["password_set"] === true) done.push(t("auditDetail.account.passwordSet"));
  return done.length === 0 ? name : `${name}: ${done.join(", ")}`;
}

/** What a retention run or an erasure removed, or how much an access gave. */
function privacyWords(action: string, d: Details, t: I18n["t"]): string | undefined {
  if (action === "privacy.access") {
    const items = d["items"];
    return typeof items === "number" ? t("auditDetail.privacy.access", { count: items }) : undefined;
  }
  const redacted = redactedOf(d["redacted"]);
  if (redacted === null) return undefined;
  const parts = redactedParts(redacted, t);
  const removed = parts.length === 0 ? t("privacy.redacted.none") : t("auditDetail.privacy.removed", { what: parts.join(", ") });
  const sending = d["still_sending"];
  return typeof sending === "number" && sending > 0
    ? `${removed}. ${t("auditDetail.privacy.stillSending", { count: sending })}`
    : removed;
}

/**
 * What the engine recorded with an audit entry, in the reader's language: the number and how it
 * came on the opt-out list, the settings changed, the account and its role, the SMPP status a
 * retry went past... `null` when the entry has no details this version words (an entry written
 * before details were kept shows its note as it is).
 */
export function auditDetailWords(entry: AuditFacts, t: I18n["t"]): string | null {
  const d = entry.details;
  if (d === null || typeof d !== "object" || Array.isArray(d)) return null;
  const details = d as Details;
  let out: string | undefined;
  switch (entry.action) {
    case "opt_out.reply":
    case "opt_in.reply":
    case "opt_out.add":
    case "opt_out.remove":
    case "opt_out.import":
      out = optOutWords(details, t);
      break;
    case "message.hold_opted_out":
      out = holdWords(details, t);
      break;
    case "guardrail.refused":
      out = guardrailWords(details, t);
      break;
    case "message.hold_unusual_volume": {
      const [country, count, average] = [text(details, "country"), text(details, "count"), text(details, "average")];
      if (country !== undefined && count !== undefined && average !== undefined) {
        out = t("auditDetail.unusualVolume", { country, count, average });
      }
      break;
    }
    case "settings.update": {
      const keys = list(details, "keys");
      if (keys.length > 0) out = t("auditDetail.settings.keys", { keys: keys.join(", ") });
      else if (Array.isArray(details["connections"])) {
        out = t("auditDetail.settings.connections", {
          connections: list(details, "connections").join(", "),
          routes: list(details, "routes").join(", "),
        });
      }
      break;
    }
    case "settings.reload":
      out = t("auditDetail.settings.reload");
      break;
    case "account.create":
    case "account.update":
      out = accountWords(entry.action, details, t);
      break;
    case "api_key.create": {
      const [name, prefix, scopes] = [text(details, "name"), text(details, "prefix"), text(details, "scopes")];
      if (name !== undefined && prefix !== undefined) {
        out = t("auditDetail.apiKey", { name, prefix, scopes: scopes ?? "" });
      }
      break;
    }
    case "smpp.submit_refused": {
      const ends = text(details, "number_ends");
      if (ends !== undefined) out = t("auditDetail.smppSubmitRefused", { ends });
      break;
    }
    case "queue.recovered": {
      const [requeued, unknown] = [text(details, "requeued"), text(details, "unknown")];
      if (requeued !== undefined && unknown !== undefined) out = t("auditDetail.recovered", { requeued, unknown });
      break;
    }
    case "message.retry_permanent_confirmed": {
      const status = text(details, "command_status");
      if (status !== undefined) out = t("auditDetail.permanentConfirmed", { status: smppStatusText(status, t) });
      break;
    }
    case "exception.closed": {
      const resolution = text(details, "resolution")?.replace(/^auto:/, "");
      if (resolution !== undefined) out = sayIf(t, `auditDetail.closed.${resolution}`);
      break;
    }
    case "template.create":
    case "template.delete": {
      const name = text(details, "name");
      if (name !== undefined) out = t("auditDetail.template", { name });
      break;
    }
    case "retention.run":
    case "privacy.erase":
    case "privacy.access":
      out = privacyWords(entry.action, details, t);
      break;
    case "alert.fired":
    case "alert.resolved":
    case "alert.acknowledge": {
      const rule = details["rule"];
      if (isAlertRule(rule)) out = alertTitle(rule, text(details, "subject") ?? "", t);
      break;
    }
    case "connection.drain":
    case "connection.disable":
    case "connection.enable": {
      const connection = text(details, "connection");
      if (connection !== undefined) out = t("auditDetail.connection", { connection });
      break;
    }
    default:
      out = undefined;
  }
  return out ?? null;
}

/** Whether a key exists, for the tests: every code's words are in the catalogue. */
export function hasWords(key: string): boolean {
  return isKey(key);
}
