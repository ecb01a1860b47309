// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import type { SpendQuery } from "../bindings/SpendQuery";
import { parseCsv } from "./csv";
import { byTestId, click, queryTestId, render, settle, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { guardrailsOverview, spendReportFor } from "../test/fakeGuardrails";
import { person } from "../test/fixtures";
import { Guardrails } from "./Guardrails";
import { formatAmount, formatMicros, sumAmounts } from "./guardrails/money";
import { plainMicros } from "./guardrails/csv";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

/** 18 November 2026, noon, local time. */
const clock = (): Date => new Date(2026, 10, 18, 12);

function engine(overview = guardrailsOverview()) {
  const backend = new FakeBackend();
  const asked: SpendQuery[] = [];
  backend.guardrails = () => Promise.resolve(overview);
  backend.spendReport = (query) => {
    asked.push(query);
    return Promise.resolve(spendReportFor(query));
  };
  return { backend, asked };
}

async function show(e = engine(), languages = ["en-US"]): Promise<HTMLElement> {
  view = await render(<Guardrails backend={e.backend} now={clock} />, languages, person("viewer"));
  await settle();
  return view.container;
}

const cells = (row: Element | null | undefined): string[] =>
  [...(row?.querySelectorAll("th, td") ?? [])].map((c) => c.textContent ?? "");

describe("the Guardrails screen", () => {
  it("counts what was refused and held over the last day, by country and by who asked", async () => {
    const root = await show();
    const byCountry = byTestId(root, "guardrails-by-country");
    const rows = [...byCountry.querySelectorAll('[data-testid="guardrails-count"]')];
    expect(rows.map((r) => (r as HTMLElement).dataset["key"])).toEqual(["GB", "FR", "NG"]);
    expect(cells(rows[0])).toEqual(["United Kingdom (GB)", "4", "0", "0", "0", "4"]);
    expect(cells(rows[1])).toEqual(["France (FR)", "0", "2", "0", "0", "2"]);
    const bySender = [...byTestId(root, "guardrails-by-sender").querySelectorAll('[data-testid="guardrails-count"]')];
    expect(bySender.map((r) => r.querySelector("th")?.textContent)).toEqual(["API key website", "alice"]);
    expect(cells(bySender[0])).toEqual(["API key website", "3", "2", "0", "2", "7"]);
  });

  it("says how many codes are held now, with a link to the queue narrowed to them", async () => {
    const root = await show();
    expect(byTestId(root, "guardrails-held-count").textContent).toBe("Held for a person: 2");
    expect(byTestId(root, "guardrails-held-open").getAttribute("href")).toBe("#/exceptions?kind=unusual_volume");
  });

  it("shows today's and this month's spend against their limits", async () => {
    const root = await show();
    expect(byTestId(root, "spend-day").textContent).toBe("Today€12.50 of €100.00");
    expect(byTestId(root, "spend-month").textContent).toBe("This month€340.25 · No limit");
    expect(byTestId(root, "guardrails-priced").textContent).toContain("Connections with prices: sandbox.");
  });

  it("says when no connection has prices", async () => {
    const overview = guardrailsOverview();
    const root = await show(engine({ ...overview, settings: { ...overview.settings, priced_connections: [] } }));
    expect(byTestId(root, "guardrails-unpriced").textContent).toContain("No connection has prices");
  });

  it("shows the settings in force: any for a list not set, none for a limit of 0", async () => {
    const root = await show();
    const said = (id: string): string => byTestId(root, `guardrails-setting-${id}`).textContent ?? "";
    expect(said("countries")).toBe("Any");
    expect(said("otp-countries")).toBe("FR, BE");
    expect(said("per-number")).toBe("3 within 10 min");
    expect(said("per-prefix")).toBe("30");
    expect(said("per-key")).toBe("None");
    expect(said("anomaly")).toBe("Over 5 times its usual hourly rate, and at least 20 in the hour");
    expect(said("day-limit")).toBe("€100.00");
    expect(said("month-limit")).toBe("None");
  });

  it("says when nothing was refused", async () => {
    const root = await show(engine(guardrailsOverview({ counts: [], held: 0 })));
    expect(byTestId(root, "guardrails-counts-none").textContent).toBe("Nothing was refused or held over the last day.");
    expect(byTestId(root, "guardrails-held-none").textContent).toBe("No one-time code is held.");
  });

  it("reports this month's spend per day, sender, connection and country, and another period when chosen", async () => {
    const e = engine();
    const root = await show(e);
    expect(e.asked[0]?.from_ms).toBe(new Date(2026, 10, 1).getTime());
    expect(e.asked[0]?.to_ms).toBe(new Date(2026, 10, 19).getTime());
    expect(byTestId(root, "spend-total").textContent).toBe("Total from Nov 1, 2026 to Nov 18, 2026: €0.27");
    const lines = [...root.querySelectorAll('[data-testid="spend-line"]')];
    expect(cells(lines[0])).toEqual(["Nov 1, 2026", "API key website", "sandbox", "France (FR)", "2", "2", "€0.10"]);
    expect(cells(lines[1])).toEqual(["Nov 1, 2026", "CSV import", "Not tried yet", "United Kingdom (GB)", "1", "2", "€0.17"]);
    const period = byTestId<HTMLSelectElement>(root, "spend-period");
    await settle(() => {
      period.value = "7d";
      period.dispatchEvent(new Event("change", { bubbles: true }));
    });
    await settle();
    expect(e.asked.at(-1)?.from_ms).toBe(new Date(2026, 10, 12).getTime());
  });

  it("downloads the spend report as a CSV file with plain amounts", async () => {
    const e = engine();
    const root = await show(e);
    const saved: { text: string; name: string }[] = [];
    e.backend.saveCsv = (text, name) => {
      saved.push({ text, name });
      return Promise.resolve(true);
    };
    await click(byTestId(root, "spend-csv"));
    await settle();
    expect(saved[0]?.name).toBe("spend-20261101-20261118.csv");
    const parsed = parseCsv(saved[0]?.text ?? "");
    const records = "records" in parsed ? parsed.records.map((r) => r.fields) : [];
    expect(records[0]).toEqual(["Day", "API key or sender", "Connection", "Country", "Messages", "Parts", "Cost", "Currency"]);
    expect(records[1]).toEqual(["2026-11-01", "API key website", "sandbox", "FR", "2", "2", "0.10", "EUR"]);
    expect(byTestId(root, "spend-csv-status").textContent).toBe("Saved.");
  });

  it("speaks French and Russian", async () => {
    let root = await show(engine(), ["fr-FR"]);
    expect(byTestId(root, "guardrails").querySelector("h2")?.textContent).toBe("Garde-fous");
    expect(byTestId(root, "spend-day").textContent).toBe("Aujourd’hui12,50\u00a0€ sur 100,00\u00a0€");
    await view?.unmount();
    root = await show(engine(), ["ru-RU"]);
    expect(byTestId(root, "guardrails-setting-countries").textContent).toBe("Любые");
    expect(queryTestId(root, "guardrails-error")).toBeNull();
  });
});

describe("amounts", () => {
  it("keep the decimals the engine wrote, in the reader's way of writing money", () => {
    expect(formatAmount("0.090", "EUR", "en-US")).toBe("€0.090");
    expect(formatAmount("12.5", "EUR", "fr-FR")).toBe("12,5\u00a0€");
    expect(formatMicros(12_500_000, "EUR", "en-US")).toBe("€12.50");
    expect(formatMicros(123_456, "USD", "en-US")).toBe("$0.123456");
    expect(formatAmount("3.00", "XYZ1", "en-US"), "a currency Intl does not know").toBe("3.00 XYZ1");
  });

  it("add up exactly, with the most decimals any had", () => {
    expect(sumAmounts(["0.050", null, "0.080", "0.1"], "EUR", "en-US")).toBe("€0.230");
    expect(sumAmounts([null, null], "EUR", "en-US")).toBeNull();
    expect(plainMicros(90_000)).toBe("0.09");
    expect(plainMicros(1_000_000)).toBe("1.00");
    expect(plainMicros(123_456)).toBe("0.123456");
  });
});
