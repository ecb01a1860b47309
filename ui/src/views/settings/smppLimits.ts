/**
 * What SMPP 3.4 and 5.0 allow in a bind's account fields, checked as they are typed: the bind
 * carries them as C-octet strings of 9 and 16 octets with their closing zero, so a password has
 * at most 8 characters and a System ID at most 15. The engine refuses a longer one on saving with
 * the field errors `password_too_long` and `system_id_too_long`; the form says the same, in the
 * same words, before.
 */
import type { FieldCode } from "../../bindings/FieldCode";
import type { Translate } from "../../i18n/i18n";
import { fieldProblem } from "../../i18n/server/words";

export const PASSWORD_MAX = 8;
export const SYSTEM_ID_MAX = 15;

/** How long a value is for SMPP: its octets (a letter beyond ASCII takes more than one). */
export function smppLength(value: string): number {
  return new TextEncoder().encode(value).length;
}

function tooLong(t: Translate, field: string, code: FieldCode, max: number): string {
  return fieldProblem({ field, code, params: { max: String(max) }, message: "" }, t);
}

/** Why a password cannot go into a bind, in the reader's language; null when it fits. */
export function passwordTooLong(t: Translate, password: string | null): string | null {
  if (password === null || smppLength(password) <= PASSWORD_MAX) return null;
  return tooLong(t, "smpp.password", "password_too_long", PASSWORD_MAX);
}

/** Why a System ID cannot go into a bind; null when it fits. */
export function systemIdTooLong(t: Translate, systemId: string): string | null {
  if (smppLength(systemId.trim()) <= SYSTEM_ID_MAX) return null;
  return tooLong(t, "smpp.system_id", "system_id_too_long", SYSTEM_ID_MAX);
}

/** The limit a setting's value breaks, by its key (`smpp.system_id`, a connection's `system_id`). */
export function smppLimitProblem(t: Translate, key: string, value: string): string | null {
  const field = key.replace(/^.*\./, "");
  if (field === "password") return passwordTooLong(t, value === "" ? null : value);
  if (field === "system_id") return systemIdTooLong(t, value);
  return null;
}
