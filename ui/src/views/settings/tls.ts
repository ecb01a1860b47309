/**
 * TLS to the provider: the settings that ask for it, the pin's form checked as it is typed, and
 * what a trial bind sends of them. A connection with `tls` on binds only inside a TLS handshake,
 * never in clear; its other TLS settings are empty by default (the system's authorities, the host
 * as the certificate's name, no client certificate, no pin).
 */
import type { ConnectionTest } from "../../bindings/ConnectionTest";
import type { Translate } from "../../i18n/i18n";

/** The switch. */
export const TLS_SWITCH = "smpp.tls";
/** What TLS is checked with, in the order the forms show them: used only while the switch is on. */
export const TLS_DETAILS = [
  "smpp.tls_ca_file",
  "smpp.tls_server_name",
  "smpp.tls_pin_sha256",
  "smpp.tls_client_cert_file",
  "smpp.tls_client_key_file",
] as const;
export const TLS_KEYS: readonly string[] = [TLS_SWITCH, ...TLS_DETAILS];
/** The client certificate: read from the saved settings by a trial bind, which cannot be given another. */
export const CLIENT_CERTIFICATE: readonly string[] = ["smpp.tls_client_cert_file", "smpp.tls_client_key_file"];

/**
 * A pin as typed, as the engine reads it: its hex digits, colons and spaces left out (as
 * `openssl x509 -noout -fingerprint -sha256` prints it, "AB:CD:…"); "" for none; null when it is
 * not 64 hex digits.
 */
export function pinDigits(text: string): string | null {
  const digits = text.replace(/[:\s]/g, "");
  if (digits === "") return "";
  return /^[0-9A-Fa-f]{64}$/.test(digits) ? digits.toLowerCase() : null;
}

/** Why a pin as typed is not one, in the reader's language; null when it is one, or empty. */
export function pinProblem(t: Translate, text: string): string | null {
  return pinDigits(text) === null ? t("settings.tls.pin.invalid") : null;
}

/** Whether a setting's key (`smpp.tls_pin_sha256`, a connection's `tls_pin_sha256`) is a pin. */
export const isPinKey = (key: string): boolean => key.replace(/^.*\./, "") === "tls_pin_sha256";

/**
 * What a trial bind is told of TLS, from the values on screen: on or off as the switch is (null
 * when the engine has no such setting: as saved), and while it is on, the certificate's checks
 * as typed (empty: the default). While it is off they do not matter, and are left as saved.
 */
export function tlsTrial(valueOf: (key: string) => string): Pick<ConnectionTest, "tls" | "tls_server_name" | "tls_ca_file" | "tls_pin_sha256"> {
  const switched = valueOf(TLS_SWITCH);
  const tls = switched === "" ? null : switched === "true";
  const typed = (key: string): string | null => (tls === true ? valueOf(key).trim() : null);
  return {
    tls,
    tls_server_name: typed("smpp.tls_server_name"),
    tls_ca_file: typed("smpp.tls_ca_file"),
    tls_pin_sha256: typed("smpp.tls_pin_sha256"),
  };
}
