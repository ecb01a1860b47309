// @vitest-environment happy-dom
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { byTestId, queryTestId, render, type Rendered } from "../../test/dom";
import { formatDuration, heightOf, linearScale, linePath, timeTickIndexes } from "./scale";
import { TimeChart, type TimeChartProps } from "./TimeChart";

describe("the y scale", () => {
  it("rounds the top up to whole steps of 1, 2 or 5 times a power of ten", () => {
    expect(linearScale(7)).toEqual({ max: 8, step: 2, ticks: [0, 2, 4, 6, 8] });
    expect(linearScale(95)).toEqual({ max: 100, step: 50, ticks: [0, 50, 100] });
    expect(linearScale(100)).toEqual({ max: 100, step: 50, ticks: [0, 50, 100] });
    expect(linearScale(1234).ticks).toEqual([0, 500, 1000, 1500]);
    expect(linearScale(120_000, { integer: false }).ticks).toEqual([0, 50_000, 100_000, 150_000]);
  });

  it("never gives counts a fractional step, and has an axis even with nothing to show", () => {
    expect(linearScale(1)).toEqual({ max: 1, step: 1, ticks: [0, 1] });
    expect(linearScale(3).ticks).toEqual([0, 1, 2, 3]);
    expect(linearScale(0)).toEqual({ max: 1, step: 1, ticks: [0, 1] });
    expect(linearScale(Number.NaN).max).toBe(1);
    expect(linearScale(0.3, { integer: false }).ticks).toEqual([0, 0.1, 0.2, 0.30000000000000004]);
  });

  it("maps values to heights, clamped to the axis", () => {
    const scale = linearScale(8);
    expect(heightOf(4, scale, 200)).toBe(100);
    expect(heightOf(8, scale, 200)).toBe(200);
    expect(heightOf(0, scale, 200)).toBe(0);
    expect(heightOf(-3, scale, 200)).toBe(0);
    expect(heightOf(50, scale, 200)).toBe(200);
  });
});

describe("the time axis", () => {
  it("labels about five evenly spaced buckets of each window", () => {
    expect(timeTickIndexes(60)).toEqual([0, 12, 24, 36, 48]);
    expect(timeTickIndexes(24)).toEqual([0, 5, 10, 15, 20]);
    expect(timeTickIndexes(30)).toEqual([0, 6, 12, 18, 24]);
    expect(timeTickIndexes(3)).toEqual([0, 1, 2]);
    expect(timeTickIndexes(0)).toEqual([]);
  });
});

describe("a line", () => {
  it("breaks where a bucket has no value instead of dropping to zero", () => {
    expect(linePath([[0, 10], [5, 20], null, [15, 5], [20.123, 6]])).toBe("M0 10 L5 20 M15 5 L20.12 6");
    expect(linePath([null, null])).toBe("");
  });
});

describe("durations", () => {
  it("read in the unit that fits, in the user's language", () => {
    expect(formatDuration(850, "en-US")).toBe("850 ms");
    expect(formatDuration(4_200, "en-US")).toBe("4.2 sec");
    expect(formatDuration(45_000, "en-US")).toBe("45 sec");
    expect(formatDuration(210_000, "en-US")).toBe("3.5 min");
    expect(formatDuration(7_200_000, "en-US")).toBe("2 hr");
    // ICU puts a narrow no-break space there; which one depends on its version.
    expect(formatDuration(4_200, "fr-FR").replace(/\s/gu, " ")).toBe("4,2 s");
  });
});

const T0 = Date.UTC(2026, 10, 29, 10, 0, 0);
const MIN = 60_000;

function props(over: Partial<TimeChartProps> = {}): TimeChartProps {
  return {
    title: "Submits to the SMSC",
    summary: "3 accepted, 2 refused",
    kind: "bars",
    times: [T0, T0 + MIN, T0 + 2 * MIN],
    series: [
      { key: "accepted", label: "Accepted", tone: "accepted", values: [1, 0, 2] },
      { key: "refused", label: "Refused", tone: "refused", values: [2, 0, 0] },
    ],
    formatTick: (ms) => `t${(ms - T0) / MIN}`,
    formatTime: (ms) => `minute ${(ms - T0) / MIN}`,
    formatValue: (v) => `${v}!`,
    timeHeader: "Time",
    empty: "Nothing sent in this period.",
    testId: "chart",
    ...over,
  };
}

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

describe("the chart", () => {
  it("stacks each bucket's bars on a scale that holds the tallest stack", async () => {
    view = await render(<TimeChart {...props()} />);
    const chart = byTestId(view.container, "chart");
    expect(chart.tagName).toBe("FIGURE");
    expect(chart.dataset["empty"]).toBeUndefined();
    const svg = chart.querySelector("svg");
    expect(svg?.getAttribute("role")).toBe("img");
    const labelledBy = svg?.getAttribute("aria-labelledby")?.split(" ") ?? [];
    expect(labelledBy.map((id) => document.getElementById(id)?.textContent)).toEqual([
      "Submits to the SMSC",
      "3 accepted, 2 refused",
    ]);
    expect(svg?.getAttribute("style")).toBeNull();

    const bars = [...chart.querySelectorAll("[data-testid=bar]")];
    expect(bars.map((b) => [b.getAttribute("data-series"), b.getAttribute("data-value")]), "no bar for a zero").toEqual([
      ["accepted", "1"],
      ["refused", "2"],
      ["accepted", "2"],
    ]);
    for (const b of bars) expect(b.getAttribute("class")).toMatch(/^chart-fill chart-tone-(accepted|refused)$/);
    // The first stack (1 + 2) reaches the top of an axis of 0..3; the refused bar sits on the accepted one.
    const [first, second] = bars;
    const bottomOf = (e: Element | undefined): number =>
      Number(e?.getAttribute("y")) + Number(e?.getAttribute("height"));
    expect(Number(second?.getAttribute("y"))).toBeCloseTo(10);
    expect(bottomOf(second)).toBeCloseTo(Number(first?.getAttribute("y")));

    const ticks = [...chart.querySelectorAll("[data-testid=y-tick]")].map((t) => t.textContent);
    expect(ticks).toEqual(["0!", "1!", "2!", "3!"]);
    expect([...chart.querySelectorAll("[data-testid=x-tick]")].map((t) => t.textContent)).toEqual(["t0", "t1", "t2"]);
    expect(chart.querySelector(".chart-legend")?.textContent).toBe("AcceptedRefused");
  });

  it("hides that table in a box that takes no width: a table itself cannot be made narrower than its content", async () => {
    const style = document.createElement("style");
    style.textContent = readFileSync(resolve(process.cwd(), "src/styles.css"), "utf8");
    document.head.append(style);
    try {
      view = await render(<TimeChart {...props()} />);
      const table = byTestId(view.container, "chart-table");
      expect(table.classList.contains("visually-hidden"), "not on the table: it would stretch the page").toBe(false);
      const box = getComputedStyle(byTestId(view.container, "chart-table-hidden"));
      expect([box.display, box.position, box.width, box.height, box.overflow]).toEqual(["block", "absolute", "1px", "1px", "hidden"]);
      expect(box.clipPath).toBe("inset(50%)");
      expect(getComputedStyle(byTestId(view.container, "chart")).position, "placed within its card").toBe("relative");
    } finally {
      style.remove();
    }
  });

  it("gives screen readers the figures as a table", async () => {
    view = await render(<TimeChart {...props()} />);
    const table = byTestId(view.container, "chart-table");
    expect(table.closest(".visually-hidden"), "hidden by a wrapper").toBe(byTestId(view.container, "chart-table-hidden"));
    expect(table.querySelector("caption")?.textContent).toBe("Submits to the SMSC");
    expect([...table.querySelectorAll("thead th")].map((th) => th.textContent)).toEqual(["Time", "Accepted", "Refused"]);
    expect([...table.querySelectorAll("tbody tr")].map((tr) => [...tr.children].map((c) => c.textContent))).toEqual([
      ["minute 0", "1!", "2!"],
      ["minute 1", "0!", "0!"],
      ["minute 2", "2!", "0!"],
    ]);
    expect(table.querySelector("tbody th")?.getAttribute("scope")).toBe("row");
  });

  it("says there is nothing to show rather than drawing an empty box", async () => {
    const nothing = props({
      series: [{ key: "accepted", label: "Accepted", tone: "accepted", values: [0, 0, 0] }],
    });
    view = await render(<TimeChart {...nothing} />);
    const chart = byTestId(view.container, "chart");
    expect(chart.dataset["empty"]).toBe("true");
    expect(byTestId(chart, "chart-empty").textContent).toBe("Nothing sent in this period.");
    expect(chart.querySelector("h4")?.textContent, "the title stays").toBe("Submits to the SMSC");
    expect(chart.querySelector("svg")).toBeNull();
    expect(queryTestId(chart, "chart-table")).toBeNull();
  });

  it("draws lines that skip buckets without a value, and a dot for a value standing alone", async () => {
    const latency = props({
      kind: "lines",
      integer: false,
      series: [
        { key: "p50", label: "Median", tone: "p50", values: [1_000, null, 3_000] },
        { key: "p95", label: "95th percentile", tone: "p95", values: [2_000, null, null] },
        { key: "p99", label: "joined", tone: "p50", values: [null, 1_500, 2_500] },
      ],
    });
    view = await render(<TimeChart {...latency} />);
    const lines = [...view.container.querySelectorAll("[data-testid=line]")];
    expect(lines.map((l) => l.getAttribute("data-series"))).toEqual(["p50", "p95", "p99"]);
    expect(lines[0]?.querySelector("path")?.getAttribute("d")).toMatch(/^M[\d.]+ [\d.]+ M[\d.]+ [\d.]+$/);
    expect(lines[0]?.querySelectorAll("circle")).toHaveLength(2);
    expect(lines[1]?.querySelectorAll("circle")).toHaveLength(1);
    expect(lines[2]?.querySelectorAll("circle"), "a joined value needs no dot").toHaveLength(0);
    expect(lines[2]?.querySelector("path")?.getAttribute("d")).toMatch(/^M[\d.]+ [\d.]+ L[\d.]+ [\d.]+$/);
    const rows = [...byTestId(view.container, "chart-table").querySelectorAll("tbody tr")];
    expect([...(rows[1]?.children ?? [])].map((c) => c.textContent)).toEqual(["minute 1", "–", "–", "1500!"]);
  });

  it("counts a measured zero as a value on a line", async () => {
    const fast = props({
      kind: "lines",
      series: [{ key: "p50", label: "Median", tone: "p50", values: [null, 0, null] }],
    });
    view = await render(<TimeChart {...fast} />);
    expect(byTestId(view.container, "chart").dataset["empty"]).toBeUndefined();
  });
});
