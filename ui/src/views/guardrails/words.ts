import type { GuardrailCount } from "../../bindings/GuardrailCount";
import type { GuardrailReason } from "../../bindings/GuardrailReason";
import type { Translate } from "../../i18n/i18n";

/** Every reason a guardrail refuses or holds for, in the order the screen's columns show them. */
export const GUARDRAIL_REASONS: readonly GuardrailReason[] = [
  "country_not_allowed",
  "velocity_limit",
  "spend_limit",
  "unusual_volume",
] satisfies readonly GuardrailReason[];

/** A country by name in the reader's language, its code in brackets: "France (FR)"; "" is one the numbering data does not tell. */
export function countryWords(code: string, formatTag: string, t: Translate): string {
  if (code === "") return t("guardrails.country.unknown");
  let name: string | undefined;
  try {
    name = new Intl.DisplayNames([formatTag], { type: "region" }).of(code);
  } catch {
    name = undefined;
  }
  return name === undefined || name === code ? code : `${name} (${code})`;
}

/**
 * Who handed messages in, as the engine names them (`key:<id>`, `csv`, `cli`, `person:<login>`),
 * in words: an API key by its name (its label), the CSV import, the command line, a person.
 */
export function senderWords(sender: string, label: string, t: Translate): string {
  if (sender.startsWith("key:")) return t("guardrails.sender.key", { name: label });
  if (sender === "csv") return t("guardrails.sender.csv");
  if (sender === "cli") return t("guardrails.sender.cli");
  if (sender.startsWith("person:")) return t("guardrails.sender.person", { name: sender.slice("person:".length) });
  return label === "" ? sender : label;
}

/** One line of a table of counts: what it is about, the count for each reason, and their total. */
export interface CountLine {
  readonly key: string;
  readonly counts: Readonly<Record<GuardrailReason, number>>;
  readonly total: number;
}

const NONE: Readonly<Record<GuardrailReason, number>> = {
  country_not_allowed: 0,
  velocity_limit: 0,
  spend_limit: 0,
  unusual_volume: 0,
};

/** The counts summed by `keyOf` (a country, or who asked), the largest total first. */
export function countLines(counts: readonly GuardrailCount[], keyOf: (c: GuardrailCount) => string): CountLine[] {
  const lines = new Map<string, { counts: Record<GuardrailReason, number>; total: number }>();
  for (const c of counts) {
    const key = keyOf(c);
    const line = lines.get(key) ?? { counts: { ...NONE }, total: 0 };
    line.counts[c.reason] += c.n;
    line.total += c.n;
    lines.set(key, line);
  }
  return [...lines.entries()]
    .map(([key, line]) => ({ key, ...line }))
    .sort((a, b) => b.total - a.total || a.key.localeCompare(b.key));
}
