import { useId } from "react";
import { heightOf, linearScale, linePath, timeTickIndexes } from "./scale";
import { ScrollArea } from "../ScrollArea";

/** A series' colour, as a class of styles.css (both themes): `chart-tone-<tone>`. */
export type ChartTone =
  | "accepted"
  | "refused"
  | "unknown"
  | "receipts"
  | "p50"
  | "p95"
  | "delivered"
  | "failed"
  | "expired"
  | "no-receipt"
  | "not-sent"
  | "decided"
  | "pending"
  /** Groups of a report, in their order (the most messages first). */
  | "series-1"
  | "series-2"
  | "series-3"
  | "series-4"
  | "series-5";

export interface ChartSeries {
  readonly key: string;
  readonly label: string;
  readonly tone: ChartTone;
  /** One value per bucket; null where there is none (a line breaks there). */
  readonly values: readonly (number | null)[];
}

export interface TimeChartProps {
  readonly title: string;
  /** What the chart says, in a sentence or two: read by everyone, and by screen readers first. */
  readonly summary: string;
  /** Stacked bars (counts) or lines (a measure per bucket). */
  readonly kind: "bars" | "lines";
  /** Each bucket's start (ms). */
  readonly times: readonly number[];
  readonly series: readonly ChartSeries[];
  /** An axis label for a bucket (short). */
  readonly formatTick: (ms: number) => string;
  /** A bucket in the data table (may be longer than a tick). */
  readonly formatTime: (ms: number) => string;
  readonly formatValue: (value: number) => string;
  /** Header of the data table's first column. */
  readonly timeHeader: string;
  /** Shown instead of the chart when no bucket has a value. */
  readonly empty: string;
  /** Counts get whole-number ticks; measures may not. */
  readonly integer?: boolean;
  readonly testId: string;
}

// Close to the chart's smallest on-screen width (styles.css: .chart-svg), so labels keep their size.
const WIDTH = 420;
const HEIGHT = 200;
const LEFT = 64;
const RIGHT = 8;
const TOP = 10;
const BOTTOM = 26;
const PLOT_W = WIDTH - LEFT - RIGHT;
const PLOT_H = HEIGHT - TOP - BOTTOM;

/**
 * A small chart over time drawn as inline SVG (colours from classes: the CSP allows no inline
 * styles), with a title, a summary, a legend and the same figures as a table for screen readers.
 */
export function TimeChart(props: TimeChartProps) {
  const { title, summary, kind, series, empty, testId } = props;
  const titleId = useId();
  const summaryId = useId();
  // A line's zero is a value (a latency under a millisecond); a bar's zero is nothing.
  const hasData = series.some((s) => s.values.some((v) => v !== null && (kind === "lines" || v > 0)));
  return (
    <figure className="chart" data-testid={testId} data-empty={hasData ? undefined : "true"}>
      <h4 className="chart-title" id={titleId}>
        {title}
      </h4>
      {hasData ? (
        <>
          <p className="chart-summary" id={summaryId}>
            {summary}
          </p>
          <ScrollArea className="chart-plot">
            <Plot {...props} labelledBy={`${titleId} ${summaryId}`} />
          </ScrollArea>
          <ul className="chart-legend" aria-hidden="true">
            {series.map((s) => (
              <li key={s.key}>
                <span className={`chart-swatch chart-tone-${s.tone}${kind === "lines" ? " chart-swatch-line" : ""}`} />
                {s.label}
              </li>
            ))}
          </ul>
          <DataTable {...props} />
        </>
      ) : (
        <p className="chart-empty" data-testid={`${testId}-empty`}>
          {empty}
        </p>
      )}
    </figure>
  );
}

function Plot({
  kind,
  times,
  series,
  formatTick,
  formatValue,
  integer = true,
  labelledBy,
}: TimeChartProps & { labelledBy: string }) {
  const count = times.length;
  const slot = count > 0 ? PLOT_W / count : PLOT_W;
  const totals = times.map((_, i) =>
    kind === "bars"
      ? series.reduce((sum, s) => sum + Math.max(0, s.values[i] ?? 0), 0)
      : Math.max(0, ...series.map((s) => s.values[i] ?? 0)),
  );
  const scale = linearScale(Math.max(0, ...totals), { integer });
  const y = (value: number): number => TOP + PLOT_H - heightOf(value, scale, PLOT_H);
  const x = (i: number): number => LEFT + slot * i + slot / 2;
  const barWidth = Math.max(1, slot * 0.72);

  return (
    <svg
      className="chart-svg"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-labelledby={labelledBy}
      preserveAspectRatio="xMidYMid meet"
    >
      <g className="chart-grid">
        {scale.ticks.map((tick) => (
          <g key={tick} data-testid="y-tick" data-value={tick}>
            <line x1={LEFT} x2={WIDTH - RIGHT} y1={y(tick)} y2={y(tick)} />
            <text x={LEFT - 6} y={y(tick)} className="chart-label" textAnchor="end" dominantBaseline="middle">
              {formatValue(tick)}
            </text>
          </g>
        ))}
      </g>
      {kind === "bars" ? (
        <g className="chart-bars">
          {times.map((time, i) => {
            let base = 0;
            return (
              <g key={time}>
                {series.map((s) => {
                  const value = Math.max(0, s.values[i] ?? 0);
                  if (value === 0) return null;
                  const bottom = y(base);
                  base += value;
                  const top = y(base);
                  return (
                    <rect
                      key={s.key}
                      className={`chart-fill chart-tone-${s.tone}`}
                      data-testid="bar"
                      data-series={s.key}
                      data-value={value}
                      x={x(i) - barWidth / 2}
                      y={top}
                      width={barWidth}
                      height={Math.max(0.5, bottom - top)}
                    />
                  );
                })}
              </g>
            );
          })}
        </g>
      ) : (
        <g className="chart-lines">
          {series.map((s) => {
            const points = s.values.map((v, i) => (v === null ? null : ([x(i), y(v)] as const)));
            return (
              <g key={s.key} className={`chart-tone-${s.tone}`} data-testid="line" data-series={s.key}>
                <path className="chart-stroke" d={linePath(points)} />
                {points.map((p, i) =>
                  // A value with no neighbour has no line to show it: it gets a dot.
                  p === null || points[i - 1] || points[i + 1] ? null : (
                    <circle key={times[i]} className="chart-point" cx={p[0]} cy={p[1]} r={2.5} />
                  ),
                )}
              </g>
            );
          })}
        </g>
      )}
      <g className="chart-axis">
        <line x1={LEFT} x2={WIDTH - RIGHT} y1={TOP + PLOT_H} y2={TOP + PLOT_H} />
        {timeTickIndexes(count).map((i) => (
          <text
            key={i}
            x={x(i)}
            y={HEIGHT - 6}
            className="chart-label"
            textAnchor="middle"
            data-testid="x-tick"
          >
            {formatTick(times[i] ?? 0)}
          </text>
        ))}
      </g>
    </svg>
  );
}

/**
 * The figures for screen readers. The wrapper hides them: a table cannot be made 1px wide (it is
 * as wide as its content), so hidden by its own class it widened the page by its full width.
 */
function DataTable({ title, times, series, formatTime, formatValue, timeHeader }: TimeChartProps) {
  return (
    <div className="visually-hidden" data-testid="chart-table-hidden">
      <table data-testid="chart-table">
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">{timeHeader}</th>
            {series.map((s) => (
              <th scope="col" key={s.key}>
                {s.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {times.map((time, i) => (
            <tr key={time}>
              <th scope="row">{formatTime(time)}</th>
              {series.map((s) => {
                const v = s.values[i] ?? null;
                return <td key={s.key}>{v === null ? "–" : formatValue(v)}</td>;
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
