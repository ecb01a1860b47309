import type { AuditAction } from "../../bindings/AuditAction";
import { AUDIT_ACTIONS } from "../../bindings/codes";
import type { ExceptionSummary } from "../../bindings/ExceptionSummary";
import type { FieldError } from "../../bindings/FieldError";
import type { RecordedAction } from "../../bindings/RecordedAction";
import { en } from "../en";
import { placeholdersOf, type I18n, type MessageKey } from "../i18n";

type Params = Record<string, string | number>;

/** Whether a key built from a code is in the catalogue. */
export function isKey(key: string): key is MessageKey {
  return Object.hasOwn(en, key);
}

/** `t` for a key built at run time, with whatever parameters it has. */
function say(t: I18n["t"], key: MessageKey, params: Params): string {
  return (t as unknown as (k: MessageKey, p: Params) => string)(key, params);
}

/**
 * The first of `keys` that exists and whose placeholders `params` all fill: a code's most specific
 * sentence when the engine gave what it needs, else the general one. `undefined` when none does.
 */
export function firstSayable(t: I18n["t"], keys: readonly string[], params: Params): string | undefined {
  for (const key of keys) {
    if (isKey(key) && placeholdersOf(en[key]).every((name) => Object.hasOwn(params, name))) {
      return say(t, key, params);
    }
  }
  return undefined;
}

/** A request field's name, such as "messages[3].text" → "text". */
function baseField(field: string): string {
  return field.replace(/^.*\./, "").replace(/\[\d+\]$/, "");
}

/**
 * The guardrails' refusals have a sentence for each case their parameters name: whose list refused
 * a country, for which kind; which code limit was reached; whose spend limit, over which period.
 */
function guardrailVariant(e: FieldError): string | null {
  const p = e.params;
  switch (e.code) {
    case "country_not_allowed":
      return `${p["kind"] === "otp" ? "otp" : "any"}.${p["whose"] === "key" ? "key" : "office"}`;
    case "velocity_limit":
      return p["limit"] ?? null;
    case "spend_limit":
      return p["whose"] === undefined || p["limit"] === undefined ? null : `${p["whose"]}.${p["limit"]}`;
    default:
      return null;
  }
}

/** The parameters a guardrail's sentence needs, in words: a country not known, how long to wait. */
function guardrailParams(e: FieldError, t: I18n["t"]): Params {
  const params: Params = { ...e.params };
  if (e.code === "country_not_allowed" && (e.params["country"] ?? "") === "") {
    params["country"] = t("fieldError.country_not_allowed.unknown");
  }
  const retry = Number(e.params["retry_after"]);
  if (e.code === "velocity_limit" && e.params["retry_after"] !== undefined && Number.isFinite(retry)) {
    params["wait"] =
      retry < 120
        ? t("fieldError.velocity_limit.seconds", { count: retry })
        : t("fieldError.velocity_limit.minutes", { count: Math.ceil(retry / 60) });
  }
  return params;
}

/** What is wrong with a field, in the reader's language (the engine's English when it has no words). */
export function fieldProblem(e: FieldError, t: I18n["t"]): string {
  const field = baseField(e.field);
  // A code with a `reason` (why a password is weak) has a sentence for each reason.
  const reason = e.params["reason"];
  const variant = guardrailVariant(e);
  const keys = [
    ...(variant === null ? [] : [`fieldError.${e.code}.${variant}`]),
    ...(reason === undefined ? [] : [`fieldError.${e.code}.${reason}`]),
    `fieldError.${e.code}.${field}`,
    `fieldError.${e.code}.detailed`,
    `fieldError.${e.code}`,
  ];
  return firstSayable(t, keys, guardrailParams(e, t)) ?? e.message;
}

/** A field's name in the reader's language, or as the engine wrote it. */
export function fieldName(field: string, t: I18n["t"]): string {
  const key = `field.${baseField(field)}`;
  return isKey(key) ? say(t, key, {}) : field;
}

/** "Phone number: this is not a phone number…": one field error on one line. */
export function fieldErrorLine(e: FieldError, t: I18n["t"]): string {
  return t("fieldError.line", { field: fieldName(e.field, t), problem: fieldProblem(e, t) });
}

/**
 * Why an exception was opened, in the reader's language; `null` for one opened by a version that
 * did not record its code (then the engine's English sentence is all there is).
 */
export function exceptionSummaryText(x: ExceptionSummary, t: I18n["t"]): string | null {
  if (x.summary_code === null) return null;
  const params: Params = { ...x.summary_params };
  const state = x.summary_params["state"];
  if (state !== undefined && isKey(`reportedState.${state}`)) {
    params["state"] = say(t, `reportedState.${state}` as MessageKey, {});
  }
  const code = x.summary_code;
  return firstSayable(t, [`exceptionSummary.${code}.detailed`, `exceptionSummary.${code}`], params) ?? null;
}

/** What an SMPP command status means, in the reader's language. */
export function smppStatusMeaning(name: string, t: I18n["t"]): string {
  const key = `smppStatus.${name}`;
  return isKey(key) ? say(t, key, {}) : t("smppStatus.unlisted");
}

/** An SMPP command status in the reader's language, its name kept for those who quote it. */
export function smppStatusText(name: string, t: I18n["t"]): string {
  return t("smppStatus.line", { meaning: smppStatusMeaning(name, t), name });
}

/** Every action this version knows (the type check refuses a word that is no `AuditAction`). */
const KNOWN_ACTIONS: ReadonlySet<string> = new Set<AuditAction>(AUDIT_ACTIONS);

/** The action an audit row names, when this version knows it: a newer engine may have written others. */
export function knownAuditAction(action: RecordedAction): AuditAction | null {
  return KNOWN_ACTIONS.has(action) ? (action as AuditAction) : null;
}

/** An action in the reader's language (the type check refuses an action without words). */
export function auditActionWords(action: AuditAction, t: I18n["t"]): string {
  const key: MessageKey = `audit.action.${action}`;
  return say(t, key, {});
}

/** An audited action in the reader's language, or its code when this version does not know it. */
export function auditActionText(action: RecordedAction, t: I18n["t"]): string {
  const known = knownAuditAction(action);
  return known === null ? action : auditActionWords(known, t);
}
