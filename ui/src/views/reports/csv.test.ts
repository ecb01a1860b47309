import { describe, expect, it } from "vitest";
import { createI18n } from "../../i18n/i18n";
import { deliveryReportFor } from "../../test/fakeReports";
import { parseCsv } from "../csv";
import { reportCsv, reportFileName } from "./csv";

const QUERY = { from_ms: new Date(2026, 10, 12).getTime(), to_ms: new Date(2026, 10, 19).getTime(), step: "day" as const, utc_offset_minutes: 60 };

function rows(text: string): string[][] {
  const parsed = parseCsv(text);
  if (!("records" in parsed)) throw new Error("not CSV");
  return parsed.records.map((r) => r.fields);
}

describe("a report as a CSV file", () => {
  it("has a column per dimension, the figures as plain numbers, a line per group and the totals last", () => {
    const report = deliveryReportFor({ ...QUERY, by: "connection" });
    const text = reportCsv(report, createI18n(["en-US"]));
    expect(text.endsWith("\r\n")).toBe(true);
    const [header, ...lines] = rows(text);
    expect(header).toEqual([
      "Connection",
      "Messages",
      "Messages: change (%)",
      "Parts",
      "Delivered (%)",
      "Delivered: change (pts)",
      "Failed or expired (%)",
      "Failed or expired: change (pts)",
      "No receipt (%)",
      "No receipt: change (pts)",
      "Receipt, median (ms)",
      "Receipt, 95 % (ms)",
    ]);
    expect(lines.map((l) => l[0])).toEqual(["primary", "backup", "Never tried on a connection", "All messages"]);
    // backup: 240 messages (200 before), 60 delivered (25 %, 90 % before), 180 failed or expired (75 %, 10 % before).
    expect(lines[1]).toEqual(["backup", "240", "20", "264", "25", "-65", "75", "65", "0", "0", "12000", "600000"]);
    expect(lines[2]?.slice(0, 3), "none before: new").toEqual(["Never tried on a connection", "3", "new"]);
  });

  it("speaks the UI's language, and puts each value of two dimensions in its own column", () => {
    const report = deliveryReportFor({ ...QUERY, by: "connection,country" });
    const [header, first] = rows(reportCsv(report, createI18n(["fr-FR"])));
    expect(header?.slice(0, 3)).toEqual(["Connexion", "Pays", "Messages"]);
    expect(first?.slice(0, 2)).toEqual(["primary", "France"]);
  });

  it("keeps a label that looks like a formula from running in a spreadsheet", () => {
    const report = deliveryReportFor({ ...QUERY, by: "sender" });
    const withFormula = { ...report, groups: report.groups.map((g, i) => (i === 0 ? { ...g, key: ["key:9"], label: ["=HYPERLINK(1)"] } : g)) };
    expect(rows(reportCsv(withFormula, createI18n(["en-US"])))[1]?.[0]).toBe("'=HYPERLINK(1)");
  });

  it("is named for the period's first and last day", () => {
    expect(reportFileName(QUERY)).toBe("report-20261112-20261118.csv");
  });
});
