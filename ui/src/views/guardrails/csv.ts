import type { SpendReport } from "../../bindings/SpendReport";
import type { Translate } from "../../i18n/i18n";
import { csvField } from "../csv";
import { senderWords } from "./words";

/** `YYYY-MM-DD` of a local day. */
export function isoDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

/** Millionths as a plain amount a spreadsheet reads in any language: digits, a dot, 2 to 6 decimals. */
export function plainMicros(micros: number): string {
  const sign = micros < 0 ? "-" : "";
  const abs = Math.abs(Math.round(micros));
  const fraction = String(abs % 1_000_000).padStart(6, "0").replace(/0{1,4}$/, "");
  return `${sign}${Math.floor(abs / 1_000_000)}.${fraction.padEnd(2, "0")}`;
}

/** A label someone wrote (an API key's name) as text: one starting like a formula gets a leading apostrophe. */
function text(value: string): string {
  return csvField(/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);
}

/**
 * The spend report as a CSV file, made here as the screen shows it (the engine's own file is at
 * GET /api/v1/reports/spend.csv over HTTP): a line per day, sender, connection and country with
 * the amounts as plain numbers in the report's currency.
 */
export function spendCsv(report: SpendReport, t: Translate): string {
  const header = [
    t("guardrails.report.col.day"),
    t("guardrails.report.col.sender"),
    t("guardrails.report.col.connection"),
    t("guardrails.report.col.country"),
    t("guardrails.report.col.messages"),
    t("guardrails.report.col.parts"),
    t("guardrails.report.col.cost"),
    t("guardrails.report.col.currency"),
  ];
  const lines = [header.map(text).join(",")];
  for (const l of report.lines) {
    lines.push(
      [
        isoDay(l.day_ms),
        text(senderWords(l.sender, l.label, t)),
        text(l.connection),
        text(l.country),
        String(l.messages),
        String(l.parts),
        plainMicros(l.cost),
        text(report.currency),
      ].join(","),
    );
  }
  return `${lines.join("\r\n")}\r\n`;
}

/** `spend-YYYYMMDD-YYYYMMDD.csv`: the period's first and last day, local time. */
export function spendFileName(report: Pick<SpendReport, "from_ms" | "to_ms">): string {
  const day = (ms: number): string => isoDay(ms).replaceAll("-", "");
  return `spend-${day(report.from_ms)}-${day(report.to_ms - 1)}.csv`;
}
