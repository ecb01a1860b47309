import type { MessageKind } from "../../bindings/MessageKind";
import type { ReportDimension } from "../../bindings/ReportDimension";
import type { I18n } from "../../i18n/i18n";
import { MESSAGE_KINDS } from "../labels";

/** What a report groups by, in the order the breakdown lists them. */
export const REPORT_DIMENSIONS: readonly ReportDimension[] = [
  "kind",
  "connection",
  "route",
  "country",
  "sender",
  "outcome",
  "command_status",
  "error_code",
];

/** What became of a message: exactly one of these each. */
export const OUTCOMES = ["delivered", "failed", "expired", "cancelled", "no_receipt", "unknown", "pending"] as const;
export type Outcome = (typeof OUTCOMES)[number];

export function isDimension(value: string): value is ReportDimension {
  return (REPORT_DIMENSIONS as readonly string[]).includes(value);
}

function isKind(value: string): value is MessageKind {
  return (MESSAGE_KINDS as readonly string[]).includes(value);
}

function isOutcome(value: string): value is Outcome {
  return (OUTCOMES as readonly string[]).includes(value);
}

type Words = Pick<I18n, "t" | "formatTag">;

/** A country's name in the reader's language (Intl), or its code when Intl does not know it. */
export function countryName(code: string, formatTag: string): string {
  try {
    return new Intl.DisplayNames([formatTag], { type: "region" }).of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/** `0x0000000B`, the way the SMPP specification writes a command status. */
export function commandStatusHex(status: number): string {
  return `0x${status.toString(16).toUpperCase().padStart(8, "0")}`;
}

/** One or more outcomes (`failed,expired`) in words: "Failed or Expired". */
export function outcomesLabel(value: string, { t, formatTag }: Words): string {
  const words = value
    .split(",")
    .map((o) => o.trim())
    .filter((o) => o !== "")
    .map((o) => (isOutcome(o) ? t(`reports.outcome.${o}`) : o));
  return new Intl.ListFormat(formatTag, { type: "disjunction" }).format(words);
}

/**
 * A group's value in words: the UI's own for kinds, outcomes, countries, the CSV import and the
 * command line, and for having none; else the engine's label (an API key's name, a status's
 * name), else the value itself.
 */
export function valueLabel(dimension: ReportDimension, key: string, words: Words, label: string | null = null): string {
  const { t, formatTag } = words;
  // No SMSC answer is -1, the value the engine groups and filters those messages by.
  if (key === "" || (dimension === "command_status" && key === "-1")) return t(`reports.none.${dimension}`);
  switch (dimension) {
    case "kind":
      return isKind(key) ? t(`messageKind.${key}`) : key;
    case "outcome":
      return outcomesLabel(key, words);
    case "country":
      return countryName(key, formatTag);
    case "sender":
      if (key === "csv") return t("reports.sender.csv");
      if (key === "cli") return t("reports.sender.cli");
      if (label !== null && label !== "") return label;
      if (key.startsWith("key:")) return t("reports.sender.key", { id: key.slice("key:".length) });
      if (key.startsWith("person:")) return key.slice("person:".length);
      return key;
    case "command_status": {
      if (label !== null && label !== "") return label;
      const status = /^\d+$/.test(key) ? Number(key) : null;
      return status === null ? key : commandStatusHex(status);
    }
    default:
      return label !== null && label !== "" ? label : key;
  }
}
