import type { Redacted } from "../../bindings/Redacted";
import type { I18n } from "../i18n";

/**
 * A count the engine sends as a JSON number, which the generated types call `bigint` (the
 * engine's `u64`): as a number, whichever it arrives as.
 */
export function count(value: bigint | number): number {
  return Number(value);
}

/** What held the content, in the order a person reads it (the engine's order). */
export const REDACTED_PARTS = ["texts", "numbers", "receipts", "replies", "opt_outs", "audit", "cancelled"] as const satisfies readonly (keyof Redacted)[];

/** What a removal took, part by part, leaving out what it took none of: "Texts: 12", "Numbers: 3". */
export function redactedParts(r: Redacted, t: I18n["t"]): string[] {
  return REDACTED_PARTS.filter((part) => count(r[part]) > 0).map((part) =>
    t("privacy.redacted.part", { what: t(`privacy.redacted.${part}`), count: count(r[part]) }),
  );
}

/** What a removal took, on one line; that it took nothing when so. */
export function redactedWords(r: Redacted, t: I18n["t"]): string {
  const parts = redactedParts(r, t);
  return parts.length === 0 ? t("privacy.redacted.none") : parts.join(", ");
}

/** Reads a count of a removal the audit log recorded (its details are JSON as the engine wrote them). */
export function redactedOf(value: unknown): Redacted | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  const out: Partial<Record<keyof Redacted, bigint>> = {};
  for (const part of REDACTED_PARTS) {
    const n = v[part];
    // A part an older engine did not write counts as none.
    if (n !== undefined && typeof n !== "number") return null;
    out[part] = (n ?? 0) as unknown as bigint;
  }
  return out as Redacted;
}
