/** Scales for the dashboard's charts: plain functions, so the geometry is tested without a DOM. */

export interface LinearScale {
  /** The top of the axis: the data's maximum rounded up to a whole number of steps. */
  readonly max: number;
  readonly step: number;
  /** 0, step, 2·step, … max. */
  readonly ticks: readonly number[];
}

/**
 * A y axis from 0 that holds `dataMax`, with about `intervals` steps of 1, 2 or 5 times a power of
 * ten. Counts (`integer`) never get a fractional step.
 */
export function linearScale(dataMax: number, { integer = true, intervals = 4 } = {}): LinearScale {
  const top = Number.isFinite(dataMax) && dataMax > 0 ? dataMax : 0;
  if (top === 0) return { max: 1, step: 1, ticks: [0, 1] };
  const rough = top / intervals;
  const power = 10 ** Math.floor(Math.log10(rough));
  const fraction = rough / power;
  const nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
  const step = integer ? Math.max(1, nice * power) : nice * power;
  const max = Math.ceil(top / step - 1e-9) * step;
  const ticks: number[] = [];
  for (let i = 0; i * step <= max + step / 1e6; i += 1) ticks.push(i * step);
  return { max, step, ticks };
}

/** Which buckets get a time label: about `most` of them, evenly spaced from the first. */
export function timeTickIndexes(count: number, most = 5): number[] {
  if (count <= 0) return [];
  const every = Math.max(1, Math.ceil(count / most));
  const out: number[] = [];
  for (let i = 0; i < count; i += every) out.push(i);
  return out;
}

/** A value's height on an axis of `scale`, in a plot `height` units tall (0 at the bottom). */
export function heightOf(value: number, scale: LinearScale, height: number): number {
  if (!(value > 0)) return 0;
  return (Math.min(value, scale.max) / scale.max) * height;
}

/**
 * The path of a line through the points that have a value; a bucket without one (null) breaks the
 * line rather than drawing it through zero.
 */
export function linePath(points: readonly (readonly [number, number] | null)[]): string {
  const parts: string[] = [];
  let drawing = false;
  for (const p of points) {
    if (p === null) {
      drawing = false;
      continue;
    }
    parts.push(`${drawing ? "L" : "M"}${round(p[0])} ${round(p[1])}`);
    drawing = true;
  }
  return parts.join(" ");
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

/** A latency in the unit that reads best: 850 ms, 4.2 s, 3.5 min, 2 h (Intl, in the user's locale). */
export function formatDuration(ms: number, locale: string): string {
  const [value, unit] =
    ms < 1_000
      ? [ms, "millisecond"]
      : ms < 60_000
        ? [ms / 1_000, "second"]
        : ms < 3_600_000
          ? [ms / 60_000, "minute"]
          : [ms / 3_600_000, "hour"];
  return new Intl.NumberFormat(locale, {
    style: "unit",
    unit,
    unitDisplay: "short",
    maximumFractionDigits: value < 10 ? 1 : 0,
  }).format(value);
}
