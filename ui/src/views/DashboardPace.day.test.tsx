// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import type { ConnectionStatus } from "../bindings/ConnectionStatus";
import type { Dashboard as DashboardData } from "../bindings/Dashboard";
import { createI18n } from "../i18n/i18n";
import { byTestId, queryTestId, render, type Rendered } from "../test/dom";
import { IDLE_CONNECTION, pace } from "../test/fixtures";
import { Dashboard } from "./Dashboard";
import { PaceSummary } from "./DashboardPace";
import { paceNote, paceStatus, paceWords, scheduledWords } from "./pace";

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
const TOMORROW_0930 = Date.UTC(2026, 10, 30, 8, 30, 0);
const en = createI18n(["en-GB"], { timeZone: "Europe/Paris" });


let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

describe("the pace counts only what is due", () => {
  it("promises no time for a message scheduled for tomorrow, and says it apart with its time", () => {
    const tomorrow = pace({ scheduled: 1, next_scheduled_at_ms: TOMORROW_0930 });
    expect(paceWords(tomorrow, en), "nothing is due: no ETA").toBe("—");
    expect(paceStatus(tomorrow)).toBe("idle");
    expect(paceNote(tomorrow, en)).toBe("Nothing due now · at most 10/s (the account’s limit)");
    expect(scheduledWords(tomorrow, en)).toBe(`1 scheduled, next at ${en.formatDateTime(TOMORROW_0930)}`);
    expect(scheduledWords(pace(), en), "none scheduled: nothing said").toBeNull();
  });

  it("times only what is due when both wait", () => {
    const both = pace({ queued: 12, sent_last_minute_per_s: 10, eta_seconds: 2, scheduled: 3, next_scheduled_at_ms: TOMORROW_0930 });
    expect(paceWords(both, en)).toBe("12 due now · sending at 10/s (the account’s limit) · about 2 seconds left");
    expect(scheduledWords(both, en)).toContain("3 scheduled, next at ");
  });

  it("words the scheduled ones in French and Russian, in the plural each count needs", () => {
    const fr = createI18n(["fr-FR"], { timeZone: "Europe/Paris" });
    const ru = createI18n(["ru-RU"], { timeZone: "Europe/Paris" });
    const one = pace({ scheduled: 1, next_scheduled_at_ms: TOMORROW_0930 });
    const three = pace({ scheduled: 3, next_scheduled_at_ms: TOMORROW_0930 });
    expect(scheduledWords(one, fr)).toBe(`1 programmé, le prochain le ${fr.formatDateTime(TOMORROW_0930)}`);
    expect(scheduledWords(three, fr)).toBe(`3 programmés, le prochain le ${fr.formatDateTime(TOMORROW_0930)}`);
    expect(scheduledWords(three, ru)).toBe(`запланировано: 3, ближайшее — ${ru.formatDateTime(TOMORROW_0930)}`);
  });

  it("shows the scheduled line apart from the pace line on the dashboard", async () => {
    view = await render(<PaceSummary pace={pace({ queued: 5, eta_seconds: 1, scheduled: 3, next_scheduled_at_ms: TOMORROW_0930 })} />);
    const line = byTestId(view.container, "pace");
    expect(line.textContent).toContain("5 due now");
    expect(line.textContent).not.toContain("scheduled");
    const scheduled = byTestId(view.container, "pace-scheduled");
    expect(scheduled.dataset["count"]).toBe("3");
    expect(scheduled.textContent).toMatch(/^3 scheduled, next at /);
  });
});

const figures: DashboardData = {
  at_ms: NOW,
  today_start_ms: NOW,
  utc_offset_minutes: 0,
  messages_total: 300,
  created_today: 300,
  created_last_24h: 300,
  queue: [
    { status: "queued", count: 127 },
    { status: "sending", count: 19 },
    { status: "accepted", count: 154 },
  ],
  states: [],
  open_exceptions: [],
  open_exceptions_total: 0,
  backups: { last_backup_ms: null, automatic: true, keep_days: 14 },
  spend: null,
};

const link: ConnectionStatus = {
  connection: "smpp",
  sandbox: false,
  link: { state: "bound", session_id: "s", since_ms: NOW - 60_000 },
  binds: [{ role: "transceiver", link: { state: "bound", session_id: "s", since_ms: NOW - 60_000 } }],
  ...IDLE_CONNECTION,
  queued: 102,
};

describe("one screen, one queued figure", () => {
  it("leaves the queued count to the pace when the pace is shown: the queue card and the connection do not repeat it", async () => {
    view = await render(
      <Dashboard
        dashboard={{ status: "ready", data: figures }}
        connection={{ status: "ready", data: link }}
        onRetry={() => {}}
        onRetryConnection={() => {}}
        pace={<PaceSummary pace={pace({ queued: 134, eta_seconds: 14 })} />}
      />,
    );
    const root = view.container;
    const rows = [...root.querySelectorAll<HTMLElement>('[data-testid="queue-count"]')].map((q) => q.dataset["key"]);
    expect(rows).toEqual(["sending", "accepted"]);
    expect(byTestId(root, "connection-figures").textContent).not.toContain("102");
    expect(byTestId(root, "pace").textContent).toContain("134 due now");
    const text = root.textContent ?? "";
    expect(text).not.toContain("127");
  });

  it("keeps the queue card's count where no pace is shown", async () => {
    view = await render(
      <Dashboard
        dashboard={{ status: "ready", data: figures }}
        connection={{ status: "ready", data: link }}
        onRetry={() => {}}
        onRetryConnection={() => {}}
      />,
    );
    const rows = [...view.container.querySelectorAll<HTMLElement>('[data-testid="queue-count"]')].map((q) => q.dataset["key"]);
    expect(rows).toEqual(["queued", "sending", "accepted"]);
    expect(queryTestId(view.container, "pace")).toBeNull();
  });
});
