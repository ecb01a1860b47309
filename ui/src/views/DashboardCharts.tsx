import { useCallback, useId, useState } from "react";
import type { Backend } from "../backend";
import type { Activity } from "../bindings/Activity";
import type { ActivityWindow } from "../bindings/ActivityWindow";
import type { DayOutcomes } from "../bindings/DayOutcomes";
import { formatDuration } from "../components/chart/scale";
import { TimeChart, type ChartSeries, type ChartTone } from "../components/chart/TimeChart";
import { ErrorNotice } from "../components/ErrorNotice";
import { useBackendData } from "../hooks/useBackendData";
import { useI18n } from "../i18n/context";
import type { MessageKey } from "../i18n/i18n";

export const ACTIVITY_WINDOWS: readonly ActivityWindow[] = ["hour", "day", "month"];

/** Time moves the buckets even when nothing changes: the charts reload at least this often. */
export const ACTIVITY_POLL_MS = 60_000;

const anyChange = (): boolean => true;

type Outcome = Exclude<keyof DayOutcomes, "day_ms" | "created">;

const OUTCOMES: readonly [Outcome, ChartTone][] = [
  ["delivered", "delivered"],
  ["failed", "failed"],
  ["expired", "expired"],
  ["no_receipt", "no-receipt"],
  ["not_sent", "not-sent"],
  ["decided", "decided"],
  ["pending", "pending"],
];

/**
 * Bucket times as the rest of the app shows them (the engine's buckets are UTC): short axis
 * labels (the time of day, or the day), and the full date, time and zone in the data table.
 */
function useTimeFormats(period: ActivityWindow) {
  const { formatDateTime, formatAxisTime, formatUtcDay, formatAxisUtcDay } = useI18n();
  return {
    tick: period === "month" ? formatAxisUtcDay : formatAxisTime,
    row: period === "month" ? formatUtcDay : formatDateTime,
    dayTick: formatAxisUtcDay,
    dayRow: formatUtcDay,
  };
}

/** The dashboard's charts: submits, receipts and latency over a chosen period, and outcomes by day. */
export function DashboardCharts({ backend }: { backend: Backend }) {
  const { t } = useI18n();
  const headingId = useId();
  const [period, setPeriod] = useState<ActivityWindow>("hour");
  const load = useCallback((b: Backend) => b.activity(period), [period]);
  const { state, reload } = useBackendData(backend, load, {
    live: anyChange,
    coalesceMs: 1_000,
    pollMs: ACTIVITY_POLL_MS,
  });
  // While another period loads, the previous one stays on screen, marked as such.
  const shown = state.status === "ready" ? state.data : null;
  const stale = shown !== null && shown.window !== period;

  return (
    <section className="dashboard-charts" aria-labelledby={headingId} data-testid="dashboard-charts">
      <div className="charts-header">
        <h3 id={headingId}>{t("charts.title")}</h3>
        <div className="charts-window" role="group" aria-label={t("charts.window")}>
          {ACTIVITY_WINDOWS.map((w) => (
            <button
              key={w}
              type="button"
              className={w === period ? "button button-small" : "button button-small button-secondary"}
              aria-pressed={w === period}
              data-testid={`window-${w}`}
              onClick={() => setPeriod(w)}
            >
              {t(`charts.window.${w}`)}
            </button>
          ))}
        </div>
      </div>
      <p className="muted charts-note">{t("charts.note")}</p>
      {state.status === "loading" && (
        <p className="status" role="status" data-testid="charts-loading">
          <span className="spinner" aria-hidden="true" />
          {t("charts.loading")}
        </p>
      )}
      {state.status === "error" && (
        <ErrorNotice title={t("charts.error")} error={state.error} onRetry={reload} testId="charts-error" />
      )}
      {shown !== null && (
        <div className="charts-grid" aria-busy={stale} data-window={shown.window}>
          <WindowCharts data={shown} />
          <OutcomeChart days={shown.days} />
        </div>
      )}
    </section>
  );
}

function WindowCharts({ data }: { data: Activity }) {
  const { t, formatNumber, formatTag } = useI18n();
  const formats = useTimeFormats(data.window);
  const times = data.buckets.map((b) => b.start_ms);
  const sum = (pick: (b: Activity["buckets"][number]) => number): number =>
    data.buckets.reduce((total, b) => total + pick(b), 0);
  const duration = (ms: number): string => formatDuration(ms, formatTag);
  const common = {
    times,
    formatTick: formats.tick,
    formatTime: formats.row,
    timeHeader: t("charts.time"),
  };

  const values = (pick: (b: Activity["buckets"][number]) => number | null) => data.buckets.map(pick);
  const submits: ChartSeries[] = [
    { key: "accepted", label: t("charts.submits.accepted"), tone: "accepted", values: values((b) => b.accepted) },
    { key: "refused", label: t("charts.submits.refused"), tone: "refused", values: values((b) => b.refused) },
    { key: "unknown", label: t("charts.submits.unknown"), tone: "unknown", values: values((b) => b.unknown) },
  ];
  const finals = sum((b) => b.finals);
  const highest = (pick: (b: Activity["buckets"][number]) => number | null): string => {
    const values = data.buckets.map(pick).filter((v): v is number => v !== null);
    return values.length === 0 ? "–" : duration(Math.max(...values));
  };

  return (
    <>
      <TimeChart
        {...common}
        testId="chart-submits"
        kind="bars"
        title={t("charts.submits.title")}
        summary={t("charts.submits.summary", {
          accepted: sum((b) => b.accepted),
          refused: sum((b) => b.refused),
          unknown: sum((b) => b.unknown),
        })}
        series={submits}
        formatValue={formatNumber}
        empty={t("charts.submits.empty")}
      />
      <TimeChart
        {...common}
        testId="chart-receipts"
        kind="bars"
        title={t("charts.receipts.title")}
        summary={t("charts.receipts.summary", { count: sum((b) => b.receipts) })}
        series={[
          { key: "receipts", label: t("charts.receipts.series"), tone: "receipts", values: values((b) => b.receipts) },
        ]}
        formatValue={formatNumber}
        empty={t("charts.receipts.empty")}
      />
      <TimeChart
        {...common}
        testId="chart-latency"
        kind="lines"
        integer={false}
        title={t("charts.latency.title")}
        summary={t("charts.latency.summary", {
          count: finals,
          p50: highest((b) => b.latency_p50_ms),
          p95: highest((b) => b.latency_p95_ms),
        })}
        series={[
          { key: "p50", label: t("charts.latency.p50"), tone: "p50", values: values((b) => b.latency_p50_ms) },
          { key: "p95", label: t("charts.latency.p95"), tone: "p95", values: values((b) => b.latency_p95_ms) },
        ]}
        formatValue={duration}
        empty={t("charts.latency.empty")}
      />
    </>
  );
}

function OutcomeChart({ days }: { days: readonly DayOutcomes[] }) {
  const { t, formatNumber } = useI18n();
  const formats = useTimeFormats("month");
  const series: ChartSeries[] = OUTCOMES.map(([key, tone]) => ({
    key,
    label: t(`charts.outcomes.${key}` satisfies MessageKey),
    tone,
    values: days.map((d) => d[key]),
  }));
  return (
    <TimeChart
      testId="chart-outcomes"
      kind="bars"
      title={t("charts.outcomes.title")}
      summary={t("charts.outcomes.summary", {
        count: days.reduce((n, d) => n + d.created, 0),
        delivered: days.reduce((n, d) => n + d.delivered, 0),
      })}
      times={days.map((d) => d.day_ms)}
      series={series}
      formatTick={formats.dayTick}
      formatTime={formats.dayRow}
      formatValue={formatNumber}
      timeHeader={t("charts.day")}
      empty={t("charts.outcomes.empty")}
    />
  );
}
