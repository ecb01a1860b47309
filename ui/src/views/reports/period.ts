import type { ReportDimension } from "../../bindings/ReportDimension";
import type { ReportQuery } from "../../bindings/ReportQuery";
import type { ReportStep } from "../../bindings/ReportStep";
import { localDayStart } from "../MessageFilters";
import { isDimension } from "./values";

/** The periods offered; `range` is two days chosen. */
export const PERIODS = ["today", "yesterday", "7d", "30d", "month", "range"] as const;
export type Period = (typeof PERIODS)[number];

export type ChartMetric = "delivered" | "messages";

/**
 * What the Reports screen shows, as its address keeps it
 * (`#/reports?period=range&from=2026-03-01&to=2026-03-07&by=connection,country&chart=messages`).
 */
export interface ReportView {
  readonly period: Period;
  /** The chosen days of a range (`YYYY-MM-DD`, the last one included); "" otherwise. */
  readonly from: string;
  readonly to: string;
  /** The breakdown: none, one dimension, or two. */
  readonly by: readonly ReportDimension[];
  readonly chart: ChartMetric;
}

export const DEFAULT_VIEW: ReportView = { period: "7d", from: "", to: "", by: ["connection"], chart: "delivered" };

function isPeriod(value: string): value is Period {
  return (PERIODS as readonly string[]).includes(value);
}

/** Reads the address's part after `?`; what it does not know takes the default. */
export function parseReportView(search: string): ReportView {
  const params = new URLSearchParams(search.replace(/^\?/, ""));
  const period = params.get("period") ?? "";
  const by = params.get("by");
  const dimensions = (by ?? "")
    .split(",")
    .map((d) => d.trim())
    .filter(isDimension);
  return {
    period: isPeriod(period) ? period : DEFAULT_VIEW.period,
    from: params.get("from") ?? "",
    to: params.get("to") ?? "",
    // `by=` (none) is a choice; no `by` at all is the default.
    by: by === null ? DEFAULT_VIEW.by : [...new Set(dimensions)].slice(0, 2),
    chart: params.get("chart") === "messages" ? "messages" : "delivered",
  };
}

/** Writes a view as the part of the address after `?`. */
export function formatReportView(view: ReportView): string {
  const params = new URLSearchParams();
  params.set("period", view.period);
  if (view.period === "range") {
    params.set("from", view.from);
    params.set("to", view.to);
  }
  params.set("by", view.by.join(","));
  if (view.chart !== "delivered") params.set("chart", view.chart);
  return params.toString().replace(/%2C/gi, ",");
}

/** A period's bounds: from (inclusive) and to (exclusive), ms. */
export interface Bounds {
  readonly fromMs: number;
  readonly toMs: number;
}

/** Midnight `days` after the local day of `at` (the browser's time zone, the office's). */
function midnight(at: Date, days = 0): number {
  return new Date(at.getFullYear(), at.getMonth(), at.getDate() + days).getTime();
}

/**
 * A period in whole days of the local time zone: today and the periods up to today end at
 * tomorrow's midnight (the hours to come are empty), so that each compares with as many whole
 * days just before. Null for a range that is not two days in order.
 */
export function periodBounds(view: Pick<ReportView, "period" | "from" | "to">, now: Date): Bounds | null {
  const tomorrow = midnight(now, 1);
  switch (view.period) {
    case "today":
      return { fromMs: midnight(now), toMs: tomorrow };
    case "yesterday":
      return { fromMs: midnight(now, -1), toMs: midnight(now) };
    case "7d":
      return { fromMs: midnight(now, -6), toMs: tomorrow };
    case "30d":
      return { fromMs: midnight(now, -29), toMs: tomorrow };
    case "month":
      return { fromMs: new Date(now.getFullYear(), now.getMonth(), 1).getTime(), toMs: tomorrow };
    case "range": {
      const from = localDayStart(view.from);
      const to = localDayStart(view.to, 1);
      return from === null || to === null || from >= to ? null : { fromMs: from, toMs: to };
    }
  }
}

/** Hours up to two days (a day can be 25 hours long when the clocks change), days beyond. */
export function stepOf(bounds: Bounds): ReportStep {
  return bounds.toMs - bounds.fromMs <= 50 * 3_600_000 ? "hour" : "day";
}

/** What the engine is asked for a view; null when its period cannot be read. */
export function reportQuery(view: ReportView, now: Date): ReportQuery | null {
  const bounds = periodBounds(view, now);
  if (bounds === null) return null;
  return {
    from_ms: bounds.fromMs,
    to_ms: bounds.toMs,
    by: view.by.length === 0 ? null : view.by.join(","),
    step: stepOf(bounds),
    // Where the office's days start, for day buckets.
    utc_offset_minutes: -new Date(bounds.fromMs).getTimezoneOffset(),
  };
}
