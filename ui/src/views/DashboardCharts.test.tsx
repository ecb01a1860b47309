// @vitest-environment happy-dom
import { act } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Sections } from "../App";
import type { Activity } from "../bindings/Activity";
import type { ActivityBucket } from "../bindings/ActivityBucket";
import type { ActivityWindow } from "../bindings/ActivityWindow";
import type { DayOutcomes } from "../bindings/DayOutcomes";
import { createI18n } from "../i18n/i18n";
import { byTestId, click, queryTestId, render, settle, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { ACTIVITY_POLL_MS, DashboardCharts } from "./DashboardCharts";

const NOW = Date.UTC(2026, 10, 29, 12, 30, 0);
const DAY = 86_400_000;
const WIDTH: Record<ActivityWindow, number> = { hour: 60_000, day: 3_600_000, month: DAY };
const COUNT: Record<ActivityWindow, number> = { hour: 60, day: 24, month: 30 };

function bucket(start_ms: number, over: Partial<ActivityBucket> = {}): ActivityBucket {
  return {
    start_ms,
    accepted: 0,
    refused: 0,
    unknown: 0,
    receipts: 0,
    finals: 0,
    latency_p50_ms: null,
    latency_p95_ms: null,
    ...over,
  };
}

function day(day_ms: number, over: Partial<DayOutcomes> = {}): DayOutcomes {
  return {
    day_ms,
    created: 0,
    delivered: 0,
    failed: 0,
    expired: 0,
    no_receipt: 0,
    not_sent: 0,
    decided: 0,
    pending: 0,
    ...over,
  };
}

/** A window's answer: empty buckets, with `last` in the current one, and outcomes for today. */
function activity(window: ActivityWindow, last: Partial<ActivityBucket> = {}, today: Partial<DayOutcomes> = {}): Activity {
  const width = WIDTH[window];
  const to = NOW - (NOW % width) + width;
  const from = to - width * COUNT[window];
  const buckets = Array.from({ length: COUNT[window] }, (_, i) => bucket(from + i * width));
  buckets[buckets.length - 1] = bucket(to - width, last);
  const first = NOW - (NOW % DAY) - 29 * DAY;
  const days = Array.from({ length: 30 }, (_, i) => day(first + i * DAY));
  days[29] = day(first + 29 * DAY, today);
  return { window, at_ms: NOW, bucket_ms: width, from_ms: from, to_ms: to, buckets, days };
}

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
  vi.useRealTimers();
  window.location.hash = "";
});

describe("the dashboard's charts", () => {
  it("chart the last hour, with a summary, locale times and a table for screen readers", async () => {
    const backend = new FakeBackend();
    const asked: ActivityWindow[] = [];
    backend.activity = (w) => {
      asked.push(w);
      return Promise.resolve(
        activity(
          w,
          { accepted: 12, refused: 3, unknown: 1, receipts: 10, finals: 9, latency_p50_ms: 4_200, latency_p95_ms: 45_000 },
          { created: 20, delivered: 15, failed: 1, pending: 4 },
        ),
      );
    };
    view = await render(<DashboardCharts backend={backend} />);
    await settle();
    const root = view.container;
    expect(asked).toEqual(["hour"]);
    expect(byTestId(root, "window-hour").getAttribute("aria-pressed")).toBe("true");
    expect(byTestId(root, "window-day").getAttribute("aria-pressed")).toBe("false");

    const submits = byTestId(root, "chart-submits");
    expect(submits.querySelector(".chart-summary")?.textContent).toBe(
      "12 accepted, 3 refused, 1 without an answer. Accepted by the SMSC is not delivered.",
    );
    const en = createI18n(["en-US"]);
    const firstBucket = NOW - (NOW % 60_000) - 59 * 60_000;
    const firstTick = submits.querySelector("[data-testid=x-tick]")?.textContent;
    expect(firstTick, "ticks are local times of day").toBe(en.formatAxisTime(firstBucket));
    const rows = submits.querySelectorAll("[data-testid=chart-table] tbody tr");
    expect(rows).toHaveLength(60);
    expect(rows[0]?.querySelector("th")?.textContent, "the table gives the date, time and zone, as everywhere").toBe(
      en.formatDateTime(firstBucket),
    );
    expect([...(rows[59]?.querySelectorAll("td") ?? [])].map((td) => td.textContent)).toEqual(["12", "3", "1"]);

    expect(byTestId(root, "chart-receipts").querySelector(".chart-summary")?.textContent).toBe(
      "10 reports received, repeats included.",
    );
    const latency = byTestId(root, "chart-latency");
    expect(latency.querySelector(".chart-summary")?.textContent).toBe(
      "Time from the SMSC accepting a message to its first final receipt, for 9 messages. Highest median 4.2 sec; highest 95th percentile 45 sec.",
    );
    const outcomes = byTestId(root, "chart-outcomes");
    expect(outcomes.querySelectorAll("[data-testid=chart-table] tbody tr")).toHaveLength(30);
    expect(outcomes.querySelectorAll("[data-testid=bar]")).toHaveLength(3);
    const lastDay = outcomes.querySelectorAll("[data-testid=chart-table] tbody tr")[29];
    expect(lastDay?.querySelector("th")?.textContent, "a day is labelled with its UTC date").toBe("Nov 29, 2026");
  });

  it("switch period on request and keep the previous charts until the new ones arrive", async () => {
    const backend = new FakeBackend();
    const pending: ((a: Activity) => void)[] = [];
    backend.activity = (w) =>
      w === "hour"
        ? Promise.resolve(activity(w, { accepted: 1 }))
        : new Promise((resolve) => pending.push(resolve));
    view = await render(<DashboardCharts backend={backend} />);
    await settle();
    const root = view.container;
    await click(byTestId(root, "window-month"));
    expect(byTestId(root, "window-month").getAttribute("aria-pressed")).toBe("true");
    const grid = root.querySelector(".charts-grid");
    expect(grid?.getAttribute("data-window")).toBe("hour");
    expect(grid?.getAttribute("aria-busy")).toBe("true");
    await act(async () => pending[0]?.(activity("month", { accepted: 40 })));
    expect(grid?.getAttribute("data-window")).toBe("month");
    expect(grid?.getAttribute("aria-busy")).toBe("false");
    expect(byTestId(root, "chart-submits").querySelectorAll("[data-testid=chart-table] tbody tr")).toHaveLength(30);
  });

  it("say a period is empty instead of drawing empty boxes", async () => {
    const backend = new FakeBackend();
    backend.activity = (w) => Promise.resolve(activity(w));
    view = await render(<DashboardCharts backend={backend} />, ["fr-FR"]);
    await settle();
    const root = view.container;
    expect(byTestId(root, "chart-submits-empty").textContent).toBe("Rien n’a été envoyé sur cette période.");
    expect(byTestId(root, "chart-receipts-empty").textContent).toBe("Aucun accusé sur cette période.");
    expect(byTestId(root, "chart-latency-empty").textContent).toBe("Aucun accusé final sur cette période.");
    expect(byTestId(root, "chart-outcomes-empty").textContent).toBe("Aucun message créé ces 30 derniers jours.");
    expect(root.querySelector("svg")).toBeNull();
  });

  it("explain a failed load and retry", async () => {
    const backend = new FakeBackend();
    view = await render(<DashboardCharts backend={backend} />);
    await settle();
    expect(byTestId(view.container, "charts-error").textContent).toContain("Could not load the charts");
    backend.activity = (w) => Promise.resolve(activity(w, { receipts: 2 }));
    await click(byTestId(view.container, "charts-error").querySelector("button") as HTMLElement);
    await settle();
    expect(queryTestId(view.container, "charts-error")).toBeNull();
    expect(byTestId(view.container, "chart-receipts").dataset["empty"]).toBeUndefined();
  });
});

describe("the charts on the dashboard section", () => {
  async function advance(ms: number): Promise<void> {
    await act(async () => {
      await vi.advanceTimersByTimeAsync(ms);
    });
  }

  it("reload on engine changes, coalesced, and as time moves the buckets", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(NOW);
    window.location.hash = "#/dashboard";
    const backend = new FakeBackend();
    backend.connection = () => new Promise(() => {});
    backend.dashboard = () => new Promise(() => {});
    let loads = 0;
    backend.activity = (w) => {
      loads += 1;
      return Promise.resolve(activity(w, { accepted: loads }));
    };
    view = await render(<Sections backend={backend} />);
    await advance(0);
    expect(loads).toBe(1);
    expect(byTestId(view.container, "dashboard-charts")).toBeTruthy();

    await act(async () => {
      backend.emit({ entity: "attempt", id: 1 });
      backend.emit({ entity: "receipt", id: 2 });
    });
    await advance(999);
    expect(loads, "changes are coalesced").toBe(1);
    await advance(1);
    expect(loads, "one reload for a burst").toBe(2);
    const cells = () =>
      [...byTestId(view!.container, "chart-submits").querySelectorAll("[data-testid=chart-table] tbody tr")]
        .at(-1)
        ?.querySelector("td")?.textContent;
    expect(cells()).toBe("2");

    await advance(ACTIVITY_POLL_MS);
    expect(loads, "the window moves on with time").toBe(3);
    expect(backend.subscribers, "through the one shared subscription").toBe(1);
  });

  it("are not loaded away from the dashboard", async () => {
    window.location.hash = "#/about";
    const backend = new FakeBackend();
    backend.connection = () => new Promise(() => {});
    backend.dashboard = () => new Promise(() => {});
    backend.info = () => new Promise(() => {});
    view = await render(<Sections backend={backend} />);
    await settle();
    expect(backend.calls).not.toContain("activity");
    expect(queryTestId(view.container, "dashboard-charts")).toBeNull();
  });
});
