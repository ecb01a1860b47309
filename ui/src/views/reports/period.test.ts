import { describe, expect, it } from "vitest";
import { DEFAULT_VIEW, formatReportView, parseReportView, periodBounds, reportQuery, stepOf, type ReportView } from "./period";

// Local time throughout: the browser's time zone is the office's.
const local = (y: number, m: number, d: number, h = 0): number => new Date(y, m - 1, d, h).getTime();
const NOW = new Date(2026, 10, 18, 15, 42); // 18 Nov 2026, 15:42
const view = (over: Partial<ReportView>): ReportView => ({ ...DEFAULT_VIEW, ...over });

describe("a report's period", () => {
  it("is whole local days, the ones up to today ending at tomorrow's midnight", () => {
    expect(periodBounds(view({ period: "today" }), NOW)).toEqual({ fromMs: local(2026, 11, 18), toMs: local(2026, 11, 19) });
    expect(periodBounds(view({ period: "yesterday" }), NOW)).toEqual({ fromMs: local(2026, 11, 17), toMs: local(2026, 11, 18) });
    expect(periodBounds(view({ period: "7d" }), NOW)).toEqual({ fromMs: local(2026, 11, 12), toMs: local(2026, 11, 19) });
    expect(periodBounds(view({ period: "30d" }), NOW)).toEqual({ fromMs: local(2026, 10, 20), toMs: local(2026, 11, 19) });
    expect(periodBounds(view({ period: "month" }), NOW)).toEqual({ fromMs: local(2026, 11, 1), toMs: local(2026, 11, 19) });
  });

  it("of chosen days includes the last one, and is refused out of order or unreadable", () => {
    expect(periodBounds(view({ period: "range", from: "2026-03-01", to: "2026-03-07" }), NOW)).toEqual({
      fromMs: local(2026, 3, 1),
      toMs: local(2026, 3, 8),
    });
    expect(periodBounds(view({ period: "range", from: "2026-03-07", to: "2026-03-07" }), NOW)).toEqual({
      fromMs: local(2026, 3, 7),
      toMs: local(2026, 3, 8),
    });
    expect(periodBounds(view({ period: "range", from: "2026-03-08", to: "2026-03-07" }), NOW)).toBeNull();
    expect(periodBounds(view({ period: "range", from: "2026-02-30", to: "2026-03-07" }), NOW)).toBeNull();
    expect(periodBounds(view({ period: "range", from: "", to: "" }), NOW)).toBeNull();
  });

  it("is charted by the hour up to two days, by the day beyond", () => {
    expect(stepOf({ fromMs: local(2026, 11, 18), toMs: local(2026, 11, 19) })).toBe("hour");
    expect(stepOf({ fromMs: local(2026, 11, 17), toMs: local(2026, 11, 19) })).toBe("hour");
    expect(stepOf({ fromMs: local(2026, 11, 16), toMs: local(2026, 11, 19) })).toBe("day");
  });

  it("asks the engine for its bounds, its breakdown, its step and where the office's days start", () => {
    expect(reportQuery(view({ period: "7d", by: ["connection", "country"] }), NOW)).toEqual({
      from_ms: local(2026, 11, 12),
      to_ms: local(2026, 11, 19),
      by: "connection,country",
      step: "day",
      utc_offset_minutes: -new Date(local(2026, 11, 12)).getTimezoneOffset(),
    });
    expect(reportQuery(view({ period: "today", by: [] }), NOW)).toMatchObject({ by: null, step: "hour" });
    expect(reportQuery(view({ period: "range", from: "x", to: "y" }), NOW)).toBeNull();
  });
});

describe("a report's address", () => {
  it("reads the period, the breakdown and the chart, with defaults for what it lacks", () => {
    expect(parseReportView("")).toEqual(DEFAULT_VIEW);
    expect(parseReportView("period=range&from=2026-03-01&to=2026-03-07&by=connection,country&chart=messages")).toEqual({
      period: "range",
      from: "2026-03-01",
      to: "2026-03-07",
      by: ["connection", "country"],
      chart: "messages",
    });
    expect(parseReportView("period=7d&by=").by, "no breakdown is a choice").toEqual([]);
    expect(parseReportView("period=soon&by=planet,route,route,kind").by, "unknown and repeated dimensions are left out, two at most").toEqual(["route", "kind"]);
    expect(parseReportView("period=soon").period).toBe(DEFAULT_VIEW.period);
  });

  it("writes back what it reads", () => {
    for (const search of ["period=7d&by=connection", "period=today&by=", "period=range&from=2026-03-01&to=2026-03-07&by=sender,outcome&chart=messages"]) {
      expect(formatReportView(parseReportView(search))).toBe(search);
    }
  });
});
