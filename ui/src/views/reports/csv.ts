import type { DeliveryReport } from "../../bindings/DeliveryReport";
import type { ReportFigures } from "../../bindings/ReportFigures";
import type { I18n } from "../../i18n/i18n";
import { csvField } from "../csv";
import { valueLabel } from "./values";

type Words = Pick<I18n, "t" | "formatTag">;

/** A number as a spreadsheet reads it in any language: digits and a dot, `decimals` at most. */
function plain(value: number | null, decimals = 0): string {
  if (value === null) return "";
  const factor = 10 ** decimals;
  return String(Math.round(value * factor) / factor);
}

/**
 * A label a person or a provider wrote (an API key's name) as text: one starting like a formula
 * (`=`, `+`, `-`, `@`) gets a leading apostrophe, so that a spreadsheet shows it and runs nothing.
 */
function text(value: string): string {
  return csvField(/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);
}

function countChange(now: number, before: number, t: Words["t"]): string {
  if (before === 0) return now === 0 ? "" : t("reports.change.new");
  return plain(((now - before) / before) * 100);
}

function shareChange(now: number | null, before: number | null, t: Words["t"]): string {
  if (now === null) return "";
  if (before === null) return t("reports.change.new");
  return plain(now - before, 1);
}

function figures(now: ReportFigures, before: ReportFigures, t: Words["t"]): string[] {
  return [
    plain(now.messages),
    countChange(now.messages, before.messages, t),
    plain(now.parts),
    plain(now.delivered_pct, 1),
    shareChange(now.delivered_pct, before.delivered_pct, t),
    plain(now.failed_pct, 1),
    shareChange(now.failed_pct, before.failed_pct, t),
    plain(now.no_receipt_pct, 1),
    shareChange(now.no_receipt_pct, before.no_receipt_pct, t),
    plain(now.latency_p50_ms),
    plain(now.latency_p95_ms),
  ];
}

/**
 * The table as a CSV file: a column per dimension (its values in words, as shown), the figures as
 * plain numbers (shares in %, changes of a count in %, of a share in points, latencies in ms),
 * one line per group and the totals last.
 */
export function reportCsv(report: DeliveryReport, words: Words): string {
  const { t } = words;
  const percent = (name: string): string => t("reports.csv.percent", { name });
  const dimensions = report.by.length === 0 ? [t("reports.dimension.all")] : report.by.map((d) => t(`reports.dimension.${d}`));
  const header = [
    ...dimensions,
    t("reports.col.messages"),
    t("reports.csv.change.percent", { name: t("reports.col.messages") }),
    t("reports.col.parts"),
    percent(t("reports.col.delivered")),
    t("reports.csv.change.pts", { name: t("reports.col.delivered") }),
    percent(t("reports.col.failed")),
    t("reports.csv.change.pts", { name: t("reports.col.failed") }),
    percent(t("reports.col.noReceipt")),
    t("reports.csv.change.pts", { name: t("reports.col.noReceipt") }),
    t("reports.csv.ms", { name: t("reports.col.p50") }),
    t("reports.csv.ms", { name: t("reports.col.p95") }),
  ];
  const lines = [header.map(text).join(",")];
  for (const group of report.groups) {
    const labels =
      report.by.length === 0
        ? [t("reports.total")]
        : report.by.map((d, i) => valueLabel(d, group.key[i] ?? "", words, group.label[i] ?? null));
    lines.push([...labels.map(text), ...figures(group.figures, group.previous, t)].join(","));
  }
  const totalLabels = [t("reports.total"), ...Array.from({ length: dimensions.length - 1 }, () => "")];
  // With no breakdown the one group is the total already.
  if (report.by.length > 0) lines.push([...totalLabels.map(text), ...figures(report.total, report.previous_total, t)].join(","));
  return `${lines.join("\r\n")}\r\n`;
}

/** `report-YYYYMMDD-YYYYMMDD.csv`: the period's first and last day, local time. */
export function reportFileName(report: Pick<DeliveryReport, "from_ms" | "to_ms">): string {
  const day = (ms: number): string => {
    const d = new Date(ms);
    return `${d.getFullYear()}${String(d.getMonth() + 1).padStart(2, "0")}${String(d.getDate()).padStart(2, "0")}`;
  };
  return `report-${day(report.from_ms)}-${day(report.to_ms - 1)}.csv`;
}
