import { useMemo } from "react";
import type { DeliveryReport } from "../../bindings/DeliveryReport";
import { TimeChart, type ChartSeries, type ChartTone } from "../../components/chart/TimeChart";
import { useI18n } from "../../i18n/context";
import { formatPercent, pointDeliveredPct } from "./figures";
import type { ChartMetric } from "./period";
import { valueLabel } from "./values";

/** How many groups the chart draws: the ones with the most messages. */
export const CHART_GROUPS = 5;

const TONES: readonly ChartTone[] = ["series-1", "series-2", "series-3", "series-4", "series-5"];

/**
 * The report over time: the share delivered (lines) or the messages (stacked bars) in each
 * bucket, for the groups with the most messages, with the figures as a table for screen readers
 * (the chart's own). Buckets start at the office's hours or midnights.
 */
export function ReportChart({
  report,
  metric,
  onMetric,
}: {
  report: DeliveryReport;
  metric: ChartMetric;
  onMetric: (metric: ChartMetric) => void;
}) {
  const i18n = useI18n();
  const { t, formatNumber, formatTag, formatAxisTime, formatDateTime, formatDateShort } = i18n;
  const axisDay = useMemo(() => new Intl.DateTimeFormat(formatTag, { day: "numeric", month: "short" }), [formatTag]);
  const top = report.groups.slice(0, CHART_GROUPS);
  const series: ChartSeries[] = top.map((g, i) => ({
    key: g.key.join("|") || `group-${i}`,
    label:
      report.by.length === 0
        ? t("reports.total")
        : report.by.map((d, j) => valueLabel(d, g.key[j] ?? "", i18n, g.label[j] ?? null)).join(" · "),
    tone: TONES[i] ?? "series-5",
    values: g.series.map((p) => (metric === "delivered" ? pointDeliveredPct(p) : p.messages)),
  }));
  const hourly = report.step === "hour";
  const groups = new Intl.ListFormat(formatTag, { type: "conjunction" }).format(series.map((s) => s.label));

  return (
    <section className="report-chart" data-testid="reports-chart-section">
      <div className="charts-header">
        {report.groups.length > CHART_GROUPS && <p className="muted">{t("reports.chart.top", { count: CHART_GROUPS })}</p>}
        <div className="charts-window" role="group" aria-label={t("reports.chart.metric")}>
          {(["delivered", "messages"] as const).map((m) => (
            <button
              key={m}
              type="button"
              className={m === metric ? "button button-small" : "button button-small button-secondary"}
              aria-pressed={m === metric}
              data-testid={`reports-chart-${m}`}
              onClick={() => onMetric(m)}
            >
              {t(`reports.chart.metric.${m}`)}
            </button>
          ))}
        </div>
      </div>
      <TimeChart
        testId="reports-chart"
        kind={metric === "delivered" ? "lines" : "bars"}
        integer={metric === "messages"}
        title={t(metric === "delivered" ? "reports.chart.title.delivered" : "reports.chart.title.messages")}
        summary={t(`reports.chart.summary.${metric}.${hourly ? "hour" : "day"}`, { groups })}
        times={report.buckets}
        series={series}
        formatTick={hourly ? formatAxisTime : (ms) => axisDay.format(new Date(ms))}
        formatTime={hourly ? formatDateTime : formatDateShort}
        formatValue={metric === "delivered" ? (v) => formatPercent(v, formatTag) : formatNumber}
        timeHeader={t(hourly ? "reports.chart.time" : "reports.chart.day")}
        empty={t("reports.chart.empty")}
      />
    </section>
  );
}
