// @vitest-environment happy-dom
import { act } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Sections } from "../App";
import type { ConnectionStatus } from "../bindings/ConnectionStatus";
import type { Dashboard } from "../bindings/Dashboard";
import type { Pace } from "../bindings/Pace";
import { byTestId, queryTestId, render, settle, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { IDLE_CONNECTION, person } from "../test/fixtures";
import { PACE_POLL_MS, PaceSummary } from "./DashboardPace";

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);

function pace(over: Partial<Pace> = {}): Pace {
  return {
    at_ms: NOW,
    connection: "provider",
    tps_limit: 10,
    window: 10,
    max_rate_per_s: 10,
    queued: 4_738,
    sent_last_minute_per_s: 10,
    eta_seconds: 474,
    sandbox_tps_limit: 1_000,
    sandbox_window: 64,
    scheduled: 0,
    next_scheduled_at_ms: null,
    ...over,
  };
}

const figures: Dashboard = {
  at_ms: NOW,
  today_start_ms: NOW,
  utc_offset_minutes: 0,
  messages_total: 0,
  created_today: 0,
  created_last_24h: 0,
  queue: [],
  states: [],
  open_exceptions: [],
  open_exceptions_total: 0,
  backups: { last_backup_ms: null, automatic: true, keep_days: 14 },
  spend: null,
};

const bound: ConnectionStatus = {
  connection: "smpp",
  sandbox: false,
  link: { state: "bound", session_id: "s", since_ms: NOW - 60_000 },
  binds: [{ role: "transceiver", link: { state: "bound", session_id: "s", since_ms: NOW - 60_000 } }],
  ...IDLE_CONNECTION,
};

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
  vi.useRealTimers();
  window.location.hash = "";
});

async function advance(ms: number): Promise<void> {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

describe("the pace on the dashboard", () => {
  it("says what is queued, how fast it goes and how long is left", async () => {
    view = await render(<PaceSummary pace={pace()} />);
    const line = byTestId(view.container, "pace");
    expect(line.textContent).toBe("4,738 due now · sending at 10/s (the account’s limit) · about 8 minutes left");
    expect([line.dataset["connection"], line.dataset["queued"]]).toEqual(["provider", "4738"]);
    expect(byTestId(view.container, "dashboard-pace").querySelector("h3")?.textContent).toBe("Sending pace");
  });

  it("is on the dashboard and follows sending: on changes, at most once a second, and as time passes", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(NOW);
    window.location.hash = "#/dashboard";
    const backend = new FakeBackend();
    backend.connection = () => Promise.resolve(bound);
    backend.dashboard = () => Promise.resolve(figures);
    let loads = 0;
    backend.pace = () => {
      loads += 1;
      return Promise.resolve(pace({ queued: 4_738 - 10 * (loads - 1) }));
    };
    view = await render(<Sections backend={backend} />);
    await advance(0);
    const root = view.container;
    expect(byTestId(root, "pace").textContent).toContain("4,738 due now");
    expect(loads).toBe(1);

    await act(async () => {
      for (let id = 1; id <= 10; id += 1) backend.emit({ entity: "queue", id });
    });
    await advance(999);
    expect(loads, "a burst of sends is one reload").toBe(1);
    await advance(1);
    expect(loads).toBe(2);
    expect(byTestId(root, "pace").dataset["queued"]).toBe("4728");

    await advance(PACE_POLL_MS);
    expect(loads, "the measured rate moves with time alone").toBe(3);
    expect(backend.subscribers, "through the one shared subscription").toBe(1);
  });

  it("says on the dashboard that sending is paused while the link is down, and shows a dash when idle", async () => {
    window.location.hash = "#/dashboard";
    const backend = new FakeBackend();
    backend.connection = () =>
      Promise.resolve({ ...bound, link: { state: "down", error: "connection refused", since_ms: NOW, retry_in_ms: 5_000 } });
    backend.dashboard = () => Promise.resolve(figures);
    backend.pace = () => Promise.resolve(pace());
    view = await render(<Sections backend={backend} />);
    await settle();
    const line = byTestId(view.container, "pace");
    expect(line.textContent).toBe("4,738 due now · paused: link down");
    expect(line.dataset["status"]).toBe("paused");
    expect(queryTestId(view.container, "pace-note")).toBeNull();
    await view.unmount();

    view = await render(<PaceSummary pace={pace({ queued: 0, sent_last_minute_per_s: 0, eta_seconds: 0 })} />, ["fr-FR"]);
    expect(byTestId(view.container, "pace").textContent).toBe("—");
    expect(byTestId(view.container, "pace").dataset["status"]).toBe("idle");
    expect(byTestId(view.container, "pace-note").textContent).toBe("Rien en attente d’envoi · au plus 10/s (la limite du compte)");
  });

  it("stays out of the way when it cannot be loaded, and is not asked for by a key that reads only its own", async () => {
    window.location.hash = "#/dashboard";
    const backend = new FakeBackend();
    backend.connection = () => Promise.resolve(bound);
    backend.dashboard = () => Promise.resolve(figures);
    view = await render(<Sections backend={backend} />);
    await settle();
    expect(backend.calls).toContain("pace");
    expect(queryTestId(view.container, "dashboard-pace"), "the other figures stand alone").toBeNull();
    expect(queryTestId(view.container, "dashboard-figures")).not.toBeNull();
    await view.unmount();

    backend.calls.length = 0;
    const key = {
      ...person("operator"),
      kind: "key" as const,
      role: null,
      scopes: ["send" as const, "read:own" as const],
      only_own: true,
    };
    view = await render(<Sections backend={backend} />, ["en-US"], key);
    await settle();
    expect(backend.calls).not.toContain("pace");
  });
});
