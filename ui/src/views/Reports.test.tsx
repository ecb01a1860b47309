// @vitest-environment happy-dom
import { useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { Sections } from "../App";
import { BackendError } from "../backend";
import { parseCsv } from "./csv";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { emptyReportFor, REPORT_MESSAGES, reportingBackend } from "../test/fakeReports";
import { Reports } from "./Reports";

// 18 Nov 2026, 15:42 in the browser's time zone (the office's).
const NOW = new Date(2026, 10, 18, 15, 42);
const clock = (): Date => NOW;
const local = (y: number, m: number, d: number): number => new Date(y, m - 1, d).getTime();

/** The screen with its address kept as the app keeps it (each change a new one). */
function Routed({ backend, start, addresses }: { backend: Parameters<typeof Reports>[0]["backend"]; start: string; addresses: string[] }) {
  const [query, setQuery] = useState(start);
  return (
    <Reports
      backend={backend}
      query={query}
      onQuery={(q) => {
        addresses.push(q);
        setQuery(q);
      }}
      now={clock}
    />
  );
}

async function show(start = "period=7d&by=connection", languages: readonly string[] = ["en-US"]) {
  const { backend, queries } = reportingBackend();
  const addresses: string[] = [];
  view = await render(<Routed backend={backend} start={start} addresses={addresses} />, languages);
  await settle();
  return { backend, queries, addresses, root: view.container };
}

async function choose(select: HTMLSelectElement, value: string): Promise<void> {
  select.value = value;
  await settle(() => select.dispatchEvent(new Event("change", { bubbles: true })));
}

function rowsOf(root: HTMLElement) {
  return [...root.querySelectorAll<HTMLElement>('[data-testid="reports-row"]')].map((row) => ({
    key: row.dataset["key"],
    labels: [...row.querySelectorAll('[data-testid="reports-label"]')].map((c) => c.textContent),
    messages: byTestId(row, "reports-messages-link").textContent,
    delivered: byTestId(row, "reports-delivered-link").textContent,
    failed: byTestId(row, "reports-failed-link").textContent,
  }));
}

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
  window.location.hash = "";
});

describe("the Reports screen", () => {
  it("shows each group's figures, most messages first, and the totals", async () => {
    const { root, queries } = await show();
    expect(queries).toEqual([
      {
        from_ms: local(2026, 11, 12),
        to_ms: local(2026, 11, 19),
        by: "connection",
        step: "day",
        utc_offset_minutes: -new Date(local(2026, 11, 12)).getTimezoneOffset(),
      },
    ]);
    expect(rowsOf(root)).toEqual([
      { key: "primary", labels: ["primary"], messages: "1,180", delivered: "96.6%", failed: "1.4%" },
      { key: "backup", labels: ["backup"], messages: "240", delivered: "25%", failed: "75%" },
      { key: "", labels: ["Never tried on a connection"], messages: "3", delivered: "0%", failed: "100%" },
    ]);
    const total = byTestId(root, "reports-total");
    expect(byTestId(total, "reports-messages-link").textContent).toBe("1,423");
    expect(byTestId(root, "reports-table").querySelector("caption")?.textContent).toBe(
      "Delivery by Connection, from Nov 12, 2026 to Nov 18, 2026, compared with the period before",
    );
    const backup = root.querySelector<HTMLElement>('[data-testid="reports-row"][data-key="backup"]');
    expect(backup?.querySelector('[data-testid="reports-p50"]'), "latencies are cells of their own").toBeNull();
    expect(backup?.textContent).toContain("≤ 12 sec");
    expect(backup?.textContent).toContain("≤ 10 min");
    // The table is readable as a table: row and column headers.
    const table = byTestId(root, "reports-table");
    expect(table.querySelectorAll('th[scope="col"]').length).toBe(8);
    expect(table.querySelectorAll('tbody th[scope="row"]').length).toBe(3);
  });

  it("turns each row into a card at phone width, every figure under its column's name, and never widens the page", async () => {
    const { root } = await show("period=7d&by=connection,country");
    const table = byTestId(root, "reports-table");
    expect(table.classList.contains("table-stack"), "rows become cards (styles.css: .table-stack)").toBe(true);
    expect(table.parentElement?.classList.contains("table-scroll"), "else it scrolls inside its panel").toBe(true);
    const cells = [...table.querySelectorAll("tbody td, tfoot td")];
    expect(cells.length).toBeGreaterThan(0);
    expect(cells.filter((c) => !c.hasAttribute("data-label"))).toEqual([]);
  });

  it("says what changed against the period before: points for shares, per cent for counts, new for what it lacked", async () => {
    const { root } = await show();
    const backup = root.querySelector<HTMLElement>('[data-testid="reports-row"][data-key="backup"]');
    const change = (row: HTMLElement | null, id: string) => (row === null ? null : byTestId(row, id).dataset["change"]);
    expect(change(backup, "reports-messages-change"), "240 against 200").toBe("+20%");
    expect(change(backup, "reports-delivered-change"), "25 % against 90 %").toBe("-65 pts");
    expect(change(backup, "reports-failed-change"), "75 % against 10 %").toBe("+65 pts");
    const never = root.querySelector<HTMLElement>('[data-testid="reports-row"][data-key=""]');
    expect(change(never, "reports-messages-change")).toBe("new");
    expect(backup === null ? "" : byTestId(backup, "reports-failed-change").textContent).toContain(
      "Against the period before: +65 pts",
    );
  });

  it("asks again for the period and breakdown chosen, and keeps them in the address", async () => {
    const { root, queries, addresses } = await show();
    await choose(byTestId<HTMLSelectElement>(root, "reports-period"), "yesterday");
    expect(queries.at(-1)).toMatchObject({ from_ms: local(2026, 11, 17), to_ms: local(2026, 11, 18), by: "connection", step: "hour" });
    expect(addresses.at(-1)).toBe("period=yesterday&by=connection");

    await choose(byTestId<HTMLSelectElement>(root, "reports-by-second"), "country");
    expect(queries.at(-1)).toMatchObject({ by: "connection,country", step: "hour" });
    expect(rowsOf(root)[0]).toMatchObject({ key: "primary|FR", labels: ["primary", "France"] });

    await choose(byTestId<HTMLSelectElement>(root, "reports-by"), "");
    expect(queries.at(-1)).toMatchObject({ by: null });
    expect(queryTestId(root, "reports-by-second"), "no second breakdown without a first").toBeNull();
    expect(rowsOf(root), "one line: the totals").toEqual([]);
    expect(byTestId(byTestId(root, "reports-total"), "reports-messages-link").textContent).toBe("1,423");

    await choose(byTestId<HTMLSelectElement>(root, "reports-period"), "30d");
    expect(queries.at(-1)).toMatchObject({ from_ms: local(2026, 10, 20), to_ms: local(2026, 11, 19), step: "day" });
  });

  it("shows chosen days, refusing a first day after the last", async () => {
    const { root, queries, addresses } = await show();
    await choose(byTestId<HTMLSelectElement>(root, "reports-period"), "range");
    expect(addresses.at(-1), "the days shown until now").toBe("period=range&from=2026-11-12&to=2026-11-18&by=connection");
    await type(byTestId<HTMLInputElement>(root, "reports-from"), "2026-11-05");
    await type(byTestId<HTMLInputElement>(root, "reports-to"), "2026-11-01");
    const asked = queries.length;
    await submit(byTestId<HTMLFormElement>(root, "reports-controls"));
    await settle();
    expect(byTestId(root, "reports-range-error").textContent).toBe("Write a first and a last day, the first not after the last.");
    expect(queries, "nothing asked").toHaveLength(asked);

    await type(byTestId<HTMLInputElement>(root, "reports-to"), "2026-11-06");
    await submit(byTestId<HTMLFormElement>(root, "reports-controls"));
    await settle();
    expect(queries.at(-1)).toMatchObject({ from_ms: local(2026, 11, 5), to_ms: local(2026, 11, 7), step: "hour" });
    expect(queryTestId(root, "reports-range-error")).toBeNull();
  });

  it("says at once that days in the address cannot be read, and asks for nothing", async () => {
    const { root, queries } = await show("period=range&from=2026-11-09&to=2026-11-02&by=connection");
    expect(byTestId(root, "reports-range-error").getAttribute("role")).toBe("alert");
    expect(queries).toEqual([]);
    expect(queryTestId(root, "reports-table")).toBeNull();
  });

  it("links every count to the messages it counts: the group's values, the period, the outcomes", async () => {
    const { root } = await show();
    const backup = root.querySelector<HTMLElement>('[data-testid="reports-row"][data-key="backup"]');
    if (backup === null) throw new Error("no backup row");
    const period = `from_ms=${local(2026, 11, 12)}&to_ms=${local(2026, 11, 19)}`;
    expect(byTestId(backup, "reports-failed-link").getAttribute("href")).toBe(`#/messages?connection=backup&outcome=failed,expired&${period}`);
    expect(byTestId(backup, "reports-delivered-link").getAttribute("href")).toBe(`#/messages?connection=backup&outcome=delivered&${period}`);
    expect(byTestId(backup, "reports-no-receipt-link").getAttribute("href")).toBe(`#/messages?connection=backup&outcome=no_receipt&${period}`);
    expect(byTestId(backup, "reports-messages-link").getAttribute("href")).toBe(`#/messages?connection=backup&${period}`);
    const total = byTestId(root, "reports-total");
    expect(byTestId(total, "reports-failed-link").getAttribute("href")).toBe(`#/messages?outcome=failed,expired&${period}`);
  });

  it("charts the groups over time, with the figures as a table too", async () => {
    const { root, addresses } = await show();
    const chart = byTestId(root, "reports-chart");
    expect([...chart.querySelectorAll('[data-testid="line"]')].map((l) => l.getAttribute("data-series"))).toEqual(["primary", "backup", "group-2"]);
    expect(chart.querySelectorAll('[data-testid="chart-table"] tbody tr')).toHaveLength(7);
    expect(chart.textContent).toContain("The share of messages delivered, day by day, for: primary, backup, and Never tried on a connection.");
    await click(byTestId(root, "reports-chart-messages"));
    await settle();
    expect(addresses.at(-1)).toBe("period=7d&by=connection&chart=messages");
    expect(byTestId(root, "reports-chart").querySelectorAll('[data-testid="bar"]').length).toBeGreaterThan(0);
  });

  it("downloads the table as a CSV file", async () => {
    const { root, backend } = await show();
    const saved: { text: string; name: string }[] = [];
    backend.saveCsv = (text, name) => {
      saved.push({ text, name });
      return Promise.resolve(true);
    };
    await click(byTestId(root, "reports-csv"));
    await settle();
    expect(saved.map((s) => s.name)).toEqual(["report-20261112-20261118.csv"]);
    const parsed = parseCsv(saved[0]?.text ?? "");
    const records = "records" in parsed ? parsed.records.map((r) => r.fields[0]) : [];
    expect(records).toEqual(["Connection", "primary", "backup", "Never tried on a connection", "All messages"]);
    expect(byTestId(root, "reports-csv-status").textContent).toBe("CSV file saved.");
  });

  it("says when the period has no messages", async () => {
    const { backend } = reportingBackend();
    backend.deliveryReport = (query) => Promise.resolve(emptyReportFor(query));
    view = await render(<Reports backend={backend} query="period=today&by=connection" onQuery={() => {}} now={clock} />);
    await settle();
    expect(byTestId(view.container, "reports-empty").textContent).toContain("No messages in this period.");
    expect(queryTestId(view.container, "reports-table")).toBeNull();
    expect(queryTestId(view.container, "reports-chart")).toBeNull();
  });

  it("shows why a report could not be made, with a retry", async () => {
    const { backend } = reportingBackend();
    let fail = true;
    const answer = backend.deliveryReport;
    backend.deliveryReport = (query) => (fail ? Promise.reject(new BackendError("unreachable", "GET /api/v1/reports/delivery failed")) : answer(query));
    view = await render(<Reports backend={backend} query="" onQuery={() => {}} now={clock} />);
    await settle();
    const error = byTestId(view.container, "reports-error");
    expect(error.textContent).toContain("The report could not be made");
    expect(byTestId(error, "error-code").textContent).toBe("unreachable");
    fail = false;
    await click(byTestId(error, "retry"));
    await settle();
    expect(queryTestId(view.container, "reports-error")).toBeNull();
    expect(view.container.querySelectorAll('[data-testid="reports-row"]')).toHaveLength(3);
  });

  it("speaks French and Russian, numbers and country names included", async () => {
    for (const [tag, words] of [
      ["fr-FR", ["Rapports", "Répartir par", "France", "1\u202f423", "Télécharger en CSV"]],
      ["ru-RU", ["Отчёты", "Группировать по", "Франция", "1\u00a0423", "Скачать CSV"]],
    ] as const) {
      const { root } = await show("period=7d&by=connection,country", [tag]);
      for (const w of words) expect(root.textContent, `${tag}: ${w}`).toContain(w);
      for (const english of ["Break down by", "Messages over", "Download CSV", "Never tried", "All messages"]) {
        expect(root.textContent, `${tag}: no "${english}"`).not.toContain(english);
      }
      await view?.unmount();
      view = undefined;
    }
  });
});

describe("from a report to the message list", () => {
  it("opens the list narrowed to the figure's messages, each narrowing a chip that can be removed", async () => {
    // Sent an hour ago: within the last 7 days, whenever the test runs.
    const { backend, filters } = reportingBackend(REPORT_MESSAGES.map((m) => ({ ...m, created_at_ms: Date.now() - 3_600_000 })));
    window.location.hash = "#/reports?period=7d&by=connection";
    view = await render(<Sections backend={backend} />);
    await settle();
    const root = view.container;
    expect(byTestId(root, "nav-reports").getAttribute("aria-current")).toBe("page");
    const backup = root.querySelector<HTMLElement>('[data-testid="reports-row"][data-key="backup"]');
    const href = backup === null ? "" : (byTestId(backup, "reports-failed-link").getAttribute("href") ?? "");
    const params = new URLSearchParams(href.slice(href.indexOf("?") + 1));

    await settle(() => {
      window.location.hash = href;
      window.dispatchEvent(new HashChangeEvent("hashchange"));
    });
    await settle();
    expect(filters.at(-1)).toMatchObject({
      connection: "backup",
      outcome: "failed,expired",
      from_ms: Number(params.get("from_ms")),
      to_ms: Number(params.get("to_ms")),
      route: null,
      country: null,
    });
    expect([...root.querySelectorAll<HTMLElement>('[data-testid="message-row"]')].map((r) => r.dataset["id"]), "backup's failed and expired").toEqual(["3", "4"]);
    const chips = () => [...root.querySelectorAll<HTMLElement>('[data-testid="narrowing-chip"]')];
    expect(chips().map((c) => c.textContent)).toEqual([
      "Connection: backup×",
      "Outcome: Failed or Expired×",
      expect.stringMatching(/^Created from .+ until .+×$/),
    ]);
    expect(byTestId(chips()[1] ?? root, "narrowing-remove").getAttribute("aria-label")).toBe("Remove the filter “Outcome: Failed or Expired”");

    // Removing the outcome's chip keeps the rest, in the list's filter and in the address.
    await click(byTestId(chips()[1] ?? root, "narrowing-remove"));
    await settle();
    expect(filters.at(-1)).toMatchObject({ connection: "backup", outcome: null, from_ms: Number(params.get("from_ms")) });
    expect(window.location.hash).toBe(`#/messages?connection=backup&from_ms=${params.get("from_ms")}&to_ms=${params.get("to_ms")}`);
    expect(chips().map((c) => c.dataset["field"])).toEqual(["connection", "period"]);
    expect([...root.querySelectorAll<HTMLElement>('[data-testid="message-row"]')].map((r) => r.dataset["id"])).toEqual(["3", "4", "5"]);

    // Clearing the filters clears the narrowing too.
    await click(byTestId(root, "filter-clear"));
    await settle();
    expect(window.location.hash).toBe("#/messages");
    expect(filters.at(-1)).toMatchObject({ connection: null, outcome: null, from_ms: null, to_ms: null });
    expect(chips()).toEqual([]);
  });

  it("keeps the narrowing while a message is open over the list", async () => {
    const { backend, filters } = reportingBackend();
    backend.message = () => Promise.reject(new BackendError("not_found", "no such message"));
    window.location.hash = "#/messages?connection=primary&country=";
    view = await render(<Sections backend={backend} />);
    await settle();
    const root = view.container;
    expect(filters.at(-1)).toMatchObject({ connection: "primary", country: "" });
    expect([...root.querySelectorAll<HTMLElement>('[data-testid="narrowing-chip"]')].map((c) => c.textContent)).toEqual([
      "Connection: primary×",
      "Country: Country unknown×",
    ]);
    await click(byTestId(root, "message-row"));
    await settle();
    expect(window.location.hash).toBe("#/messages/1?connection=primary&country=");
  });
});
