import type { ExceptionSummary } from "../../bindings/ExceptionSummary";
import type { FieldError } from "../../bindings/FieldError";
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

/** What is wrong with a field, in the reader's language (the engine's English when it has no words). */
export function fieldProblem(e: FieldError, t: I18n["t"]): string {
  const field = baseField(e.field);
  const keys = [`fieldError.${e.code}.${field}`, `fieldError.${e.code}.detailed`, `fieldError.${e.code}`];
  return firstSayable(t, keys, e.params) ?? e.message;
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

/** An audited action in the reader's language, or its code when this version has no words for it. */
export function auditActionText(action: string, t: I18n["t"]): string {
  const key = `audit.action.${action}`;
  return isKey(key) ? say(t, key, {}) : action;
}
