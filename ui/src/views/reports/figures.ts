import type { ReportDimension } from "../../bindings/ReportDimension";
import type { ReportFigures } from "../../bindings/ReportFigures";
import type { ReportPoint } from "../../bindings/ReportPoint";
import { formatDuration } from "../../components/chart/scale";
import { formatRoute } from "../../hooks/useHashRoute";
import type { I18n } from "../../i18n/i18n";
import { commandStatusOf, formatNarrowing, type Narrowing, type NarrowingField } from "../messages/narrowing";

type Words = Pick<I18n, "t" | "formatTag">;

/** The three shares a report gives, each with the outcomes it counts (as the list's filter names them). */
export const SHARES = [
  { share: "delivered_pct", outcome: "delivered" },
  { share: "failed_pct", outcome: "failed,expired" },
  { share: "no_receipt_pct", outcome: "no_receipt" },
] as const;
export type Share = (typeof SHARES)[number]["share"];

/** A share of 0–100 as the locale writes a percentage: "97.1%", "97,1 %". */
export function formatPercent(value: number | null, formatTag: string): string {
  if (value === null) return "–";
  return new Intl.NumberFormat(formatTag, { style: "percent", maximumFractionDigits: 1 }).format(value / 100);
}

/**
 * A count's change against the period before, as a relative figure ("+12%"); "new" when the
 * period before had none; null when neither had any.
 */
export function countChange(now: number, before: number, { t, formatTag }: Words): string | null {
  if (before === 0) return now === 0 ? null : t("reports.change.new");
  return new Intl.NumberFormat(formatTag, { style: "percent", maximumFractionDigits: 0, signDisplay: "exceptZero" }).format(
    (now - before) / before,
  );
}

/**
 * A share's change against the period before, in percentage points ("+3.2 pts"); "new" when the
 * period before had no message; null when this period has none.
 */
export function shareChange(now: number | null, before: number | null, { t, formatTag }: Words): string | null {
  if (now === null) return null;
  if (before === null) return t("reports.change.new");
  const points = new Intl.NumberFormat(formatTag, { maximumFractionDigits: 1, signDisplay: "exceptZero" }).format(
    Math.round((now - before) * 10) / 10,
  );
  return t("reports.change.pts", { value: points });
}

/**
 * A latency percentile: the upper bound of a histogram bucket, so "≤ 12 s" in the unit that
 * reads best (s, min, h); "–" with no receipt.
 */
export function formatLatency(ms: number | null, { t, formatTag }: Words): string {
  if (ms === null) return "–";
  return t("reports.latency.atMost", { value: formatDuration(ms, formatTag) });
}

/** The share of a bucket's messages delivered (0–100), null for a bucket without messages. */
export function pointDeliveredPct(point: ReportPoint): number | null {
  return point.messages === 0 ? null : (point.delivered / point.messages) * 100;
}

/** Whether the message list can select a group's value of a dimension (a command status must be a number). */
export function listable(dimension: ReportDimension, key: string): boolean {
  return dimension !== "command_status" || commandStatusOf(key) !== null;
}

/**
 * The message list's address for a figure: the group's values as the list's filters, the period,
 * and the outcomes a share counts (none for the messages count). Null when the list cannot select
 * the group (see {@link listable}).
 */
export function messagesHref(
  by: readonly ReportDimension[],
  key: readonly string[],
  period: { readonly fromMs: number; readonly toMs: number },
  outcome: string | null = null,
): string | null {
  const fields: { -readonly [K in NarrowingField]?: string } = {};
  for (const [i, dimension] of by.entries()) {
    const value = key[i] ?? "";
    if (!listable(dimension, value)) return null;
    fields[dimension] = value;
  }
  // A group of outcomes and a share of them: the messages both select (none: nothing to open).
  if (outcome !== null) {
    const both = fields.outcome === undefined ? outcome : intersect(fields.outcome, outcome);
    if (both === "") return null;
    fields.outcome = both;
  }
  const narrowing: Narrowing = { ...fields, from_ms: period.fromMs, to_ms: period.toMs };
  return formatRoute({ section: "messages", id: null, query: formatNarrowing(narrowing) });
}

/** The outcomes in both lists (`failed` of `failed,expired`), "" when they share none. */
function intersect(a: string, b: string): string {
  const wanted = new Set(b.split(","));
  return a
    .split(",")
    .filter((o) => wanted.has(o))
    .join(",");
}

/** The figures a row of the table shows, now and before. */
export interface Row {
  readonly key: readonly string[];
  readonly labels: readonly string[];
  readonly figures: ReportFigures;
  readonly previous: ReportFigures;
}
