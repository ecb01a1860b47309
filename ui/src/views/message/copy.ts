import type { MessageKind } from "../../bindings/MessageKind";
import type { MessageRecord } from "../../bindings/MessageRecord";

/** What "Copy to a new message" carries to the compose form. */
export interface ComposeSeed {
  readonly destination: string;
  readonly text: string;
  readonly kind: MessageKind;
}

const KINDS: readonly MessageKind[] = ["otp", "transactional", "bulk"];

/**
 * Where "Copy to a new message" leads: the compose form's address with the number (as intake
 * read it), the text and the kind after it. The address parses as the compose form's as it is.
 */
export function copyHref(m: MessageRecord): string {
  const q = new URLSearchParams({ to: m.destination, kind: m.kind, text: m.body });
  return `#/messages/new/copy?${q.toString()}`;
}

/** The seed a copy's address carries, or null for any other address. */
export function readCopy(hash: string): ComposeSeed | null {
  const at = hash.indexOf("/copy?");
  if (!hash.startsWith("#/messages/new/") || at < 0) return null;
  const q = new URLSearchParams(hash.slice(at + "/copy?".length));
  const kind = q.get("kind");
  return {
    destination: q.get("to") ?? "",
    text: q.get("text") ?? "",
    kind: KINDS.find((k) => k === kind) ?? "transactional",
  };
}
