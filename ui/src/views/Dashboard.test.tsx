// @vitest-environment happy-dom
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { act } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CONNECTION_POLL_MS, Sections } from "../App";
import { BackendError } from "../backend";
import type { ConnectionStatus } from "../bindings/ConnectionStatus";
import type { Dashboard as DashboardData } from "../bindings/Dashboard";
import type { LinkState } from "../bindings/LinkState";
import type { DataState } from "../hooks/useBackendData";
import { createI18n } from "../i18n/i18n";
import { byTestId, queryTestId, render, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { IDLE_CONNECTION, person } from "../test/fixtures";
import { Dashboard, linkWords, SandboxBanner } from "./Dashboard";

const en = createI18n(["en-US"]);
const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
const SINCE = NOW - 20 * 60_000;

function status(link: LinkState, sandbox = true): ConnectionStatus {
  return { connection: sandbox ? "sandbox" : "smpp", sandbox, link, binds: [{ role: "transceiver", link }], ...IDLE_CONNECTION };
}

function figures(over: Partial<DashboardData> = {}): DashboardData {
  return {
    at_ms: NOW,
    today_start_ms: NOW - 12 * 3_600_000,
    utc_offset_minutes: 0,
    messages_total: 1234,
    created_today: 17,
    created_last_24h: 42,
    queue: [
      { status: "queued", count: 3 },
      { status: "sending", count: 1 },
      { status: "accepted", count: 30 },
      { status: "failed", count: 0 },
      { status: "outcome_unknown", count: 2 },
      { status: "cancelled", count: 0 },
      { status: "expired", count: 0 },
    ],
    states: [
      { state: "pending", count: 5 },
      { state: "delivered", count: 25 },
      { state: "undeliverable", count: 4 },
    ],
    open_exceptions: [
      { kind: "conflicting_final", count: 1 },
      { kind: "no_receipt", count: 0 },
      { kind: "outcome_unknown", count: 2 },
    ],
    open_exceptions_total: 3,
    backups: { last_backup_ms: NOW - 3 * 3_600_000, automatic: true, keep_days: 14 },
    spend: null,
    ...over,
  };
}

const ready = <T,>(data: T): DataState<T> => ({ status: "ready", data });

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
  vi.useRealTimers();
  window.location.hash = "";
});

describe("the connection in plain words", () => {
  it("says each link state as a person would", () => {
    const time = en.formatDateTime(SINCE);
    expect(linkWords(status({ state: "bound", session_id: "s1", since_ms: SINCE }), en)).toBe(
      `Connected to the sandbox since ${time}`,
    );
    expect(linkWords(status({ state: "bound", session_id: "s1", since_ms: SINCE }, false), en)).toBe(
      `Connected to the SMS provider since ${time}`,
    );
    expect(linkWords(status({ state: "connecting", attempt: 1 }), en)).toBe("Connecting…");
    expect(linkWords(status({ state: "connecting", attempt: 3 }), en)).toBe("Reconnecting (attempt 3)");
    expect(
      linkWords(status({ state: "down", error: "connection refused", since_ms: SINCE, retry_in_ms: 4_200 }), en),
    ).toBe(`Down since ${time}: connection refused, retrying in 5 s`);
    expect(
      linkWords(status({ state: "bind_refused", status: 0x0e, name: "ESME_RINVPASWD", since_ms: SINCE }), en),
    ).toBe("The provider refused the login (ESME_RINVPASWD): check the SMPP settings");
    expect(linkWords(status({ state: "bind_refused", status: 0x0e, name: "", since_ms: SINCE }), en)).toContain(
      "(0x0000000e)",
    );
    expect(linkWords(status({ state: "stopped" }), en)).toBe("Stopped: no messages are being sent.");
  });

  it("gives the date, the time and the zone, today as on another day", () => {
    const paris = createI18n(["en-GB"], { timeZone: "Europe/Paris" });
    expect(linkWords(status({ state: "bound", session_id: "s", since_ms: SINCE }), paris)).toMatch(
      /^Connected to the sandbox since \d+ \w+ \d{4}, \d\d:\d\d GMT\+1$/,
    );
    const yesterday = NOW - 30 * 3_600_000;
    expect(linkWords(status({ state: "bound", session_id: "s", since_ms: yesterday }), en)).toBe(
      `Connected to the sandbox since ${en.formatDateTime(yesterday)}`,
    );
  });

  it("speaks French and Russian too", () => {
    const link: LinkState = { state: "connecting", attempt: 2 };
    expect(linkWords(status(link), createI18n(["fr-FR"]))).toBe("Reconnexion (tentative 2)");
    expect(linkWords(status(link), createI18n(["ru-RU"]))).toBe("Повторное подключение (попытка 2)");
  });
});

describe("the dashboard", () => {
  it("shows the link state and every count", async () => {
    view = await render(
      <Dashboard
        dashboard={ready(figures())}
        connection={ready(status({ state: "connecting", attempt: 3 }))}
        onRetry={() => {}}
        onRetryConnection={() => {}}
      />,
    );
    const root = view.container;
    const link = byTestId(root, "link-state");
    expect(link.dataset["state"]).toBe("connecting");
    expect(link.textContent).toBe("Reconnecting (attempt 3)");

    expect(byTestId(root, "created-today").textContent).toContain("17");
    expect(byTestId(root, "created-24h").textContent).toContain("42");
    expect(byTestId(root, "created-total").textContent).toContain("1,234");

    const queue = [...root.querySelectorAll<HTMLElement>('[data-testid="queue-count"]')];
    expect(queue.map((q) => [q.dataset["key"], q.dataset["count"]])).toEqual([
      ["queued", "3"],
      ["sending", "1"],
      ["accepted", "30"],
      ["failed", "0"],
      ["outcome_unknown", "2"],
      ["cancelled", "0"],
      ["expired", "0"],
    ]);
    expect(queue[0]?.textContent).toBe("Queued3");

    const states = [...root.querySelectorAll<HTMLElement>('[data-testid="state-count"]')];
    expect(states.map((s) => s.textContent)).toEqual(["No report yet5", "Delivered25", "Undeliverable4"]);

    const open = [...root.querySelectorAll<HTMLElement>('[data-testid="open-exception-count"]')];
    expect(open.map((e) => [e.dataset["kind"], e.dataset["count"]]), "kinds with nothing open are left out").toEqual([
      ["conflicting_final", "1"],
      ["outcome_unknown", "2"],
    ]);
    for (const e of open) expect(e.querySelector("a")?.getAttribute("href")).toBe("#/exceptions");
    expect(open[0]?.querySelector("a")?.textContent).toBe("Receipts disagree");
    expect(byTestId(root, "exceptions-all").textContent).toBe("See all open exceptions (3)");
  });

  it("lists each bind of a connection that opens several, and no list for a lone one", async () => {
    const bound: LinkState = { state: "bound", session_id: "acme/tx1#1@1", since_ms: SINCE };
    const down: LinkState = { state: "down", error: "connection refused", since_ms: SINCE, retry_in_ms: 2_000 };
    const pair: ConnectionStatus = {
      ...status(bound, false),
      binds: [
        { role: "transmitter", link: bound },
        { role: "transmitter", link: down },
        { role: "receiver", link: down },
      ],
    };
    view = await render(
      <Dashboard dashboard={ready(figures())} connection={ready(pair)} onRetry={() => {}} onRetryConnection={() => {}} />,
    );
    const root = view.container;
    expect(byTestId(root, "link-state").dataset["state"], "sending while any transmitter is bound").toBe("bound");
    const binds = [...root.querySelectorAll<HTMLElement>('[data-testid="bind-state"]')];
    expect(binds.map((b) => [b.dataset["role"], b.dataset["state"]])).toEqual([
      ["transmitter", "bound"],
      ["transmitter", "down"],
      ["receiver", "down"],
    ]);
    expect(binds[1]?.textContent).toBe(
      `Transmitter 2 Down since ${en.formatDateTime(SINCE)}: connection refused, retrying in 2 s`,
    );
    expect(binds[2]?.textContent).toContain("Receiver 1 Down since");
    await view.unmount();

    view = await render(
      <Dashboard
        dashboard={ready(figures())}
        connection={ready(status(bound, false))}
        onRetry={() => {}}
        onRetryConnection={() => {}}
      />,
    );
    expect(queryTestId(view.container, "bind-states")).toBeNull();
  });

  it("names each connection and its link when there are several, and keeps the one card for one", async () => {
    const bound: LinkState = { state: "bound", session_id: "primary#1@1", since_ms: SINCE };
    const refused: LinkState = { state: "bind_refused", status: 0x0e, name: "ESME_RINVPASWD", since_ms: SINCE };
    const primary: ConnectionStatus = { ...status(refused, false), connection: "primary" };
    const backup: ConnectionStatus = {
      ...status(bound, false),
      connection: "backup",
      binds: [
        { role: "transmitter", link: bound },
        { role: "receiver", link: bound },
      ],
    };
    view = await render(
      <Dashboard
        dashboard={ready(figures())}
        connection={ready(primary)}
        links={ready([primary, backup])}
        onRetry={() => {}}
        onRetryConnection={() => {}}
      />,
    );
    const root = view.container;
    expect(byTestId(root, "dashboard-connection").querySelector("h3")?.textContent).toBe("Connections to the SMS providers");
    const links = [...root.querySelectorAll<HTMLElement>('[data-testid="connection-link"]')];
    expect(links.map((l) => [l.dataset["connection"], byTestId(l, "link-state").dataset["state"]])).toEqual([
      ["primary", "bind_refused"],
      ["backup", "bound"],
    ]);
    expect(byTestId(links[0]!, "link-state").textContent).toContain("primary");
    expect(byTestId(links[0]!, "link-state").textContent).toContain("ESME_RINVPASWD");
    expect(queryTestId(links[0]!, "bind-states"), "one bind: no list").toBeNull();
    expect(links[1]!.querySelectorAll('[data-testid="bind-state"]').length, "the backup's two binds").toBe(2);
    await view.unmount();

    view = await render(
      <Dashboard
        dashboard={ready(figures())}
        connection={ready(primary)}
        links={ready([primary])}
        onRetry={() => {}}
        onRetryConnection={() => {}}
      />,
    );
    expect(queryTestId(view.container, "connection-links")).toBeNull();
    expect(byTestId(view.container, "dashboard-connection").querySelector("h3")?.textContent).toBe(
      "Connection to the SMS provider",
    );
  });

  it("shows a connection down for a certificate problem with the engine's words in full, on one card or several", async () => {
    const error = "TLS: the server's certificate is not the pinned one: its SHA-256 is " + Array(32).fill("9f").join(":");
    const down: LinkState = { state: "down", error, since_ms: SINCE, retry_in_ms: 30_000 };
    const primary: ConnectionStatus = { ...status(down, false), connection: "primary" };
    const backup: ConnectionStatus = { ...status({ state: "bound", session_id: "b", since_ms: SINCE }, false), connection: "backup" };
    for (const links of [[primary], [primary, backup]]) {
      view = await render(
        <Dashboard dashboard={ready(figures())} connection={ready(primary)} links={ready(links)} onRetry={() => {}} onRetryConnection={() => {}} />,
      );
      const link = byTestId(view.container, "link-state");
      expect(link.dataset["state"]).toBe("down");
      expect(link.textContent, "the whole problem, nothing cut").toContain(error);
      expect(link.classList.contains("link-danger")).toBe(true);
      await view.unmount();
      view = undefined;
    }
    // Nothing in the stylesheet cuts a link's words: a long one wraps where it must.
    const css = readFileSync(resolve(process.cwd(), "src/styles.css"), "utf8");
    const rule = /\.link-state \{([^}]*)\}/.exec(css)?.[1] ?? "";
    expect(rule).toContain("overflow-wrap: anywhere");
    expect(rule).not.toMatch(/text-overflow|white-space: nowrap|overflow: hidden|max-height|line-clamp/);
  });

  it("says so when nothing needs a person, and explains a failed load", async () => {
    view = await render(
      <Dashboard
        dashboard={ready(figures({ open_exceptions: [], open_exceptions_total: 0 }))}
        connection={{ status: "error", error: new BackendError("unreachable", "GET /api/v1/connection failed") }}
        onRetry={() => {}}
        onRetryConnection={() => {}}
      />,
    );
    expect(byTestId(view.container, "exceptions-none").textContent).toBe("Nothing needs a person.");
    expect(byTestId(view.container, "connection-error").dataset["code"]).toBe("unreachable");
    expect(queryTestId(view.container, "link-state")).toBeNull();
  });
});

describe("the dashboard's spend", () => {
  it("shows today's and this month's spend against the limits once a connection has prices, with the way to the Guardrails", async () => {
    const spend = { currency: "EUR", today: "12.50", month: "340.25", day_limit: "100.00", month_limit: null };
    view = await render(
      <Dashboard dashboard={ready(figures({ spend }))} connection={{ status: "loading" }} onRetry={() => {}} onRetryConnection={() => {}} />,
    );
    const card = byTestId(view.container, "dashboard-spend");
    expect(card.querySelector("h3")?.textContent).toBe("Spend");
    expect(byTestId(card, "spend-day").textContent).toBe("Today€12.50 of €100.00");
    expect(byTestId(card, "spend-month").textContent).toBe("This month€340.25 · No limit");
    expect(byTestId(card, "dashboard-spend-more").getAttribute("href")).toBe("#/guardrails");
  });

  it("shows no spend while no connection has prices", async () => {
    view = await render(
      <Dashboard dashboard={ready(figures({ spend: null }))} connection={{ status: "loading" }} onRetry={() => {}} onRetryConnection={() => {}} />,
    );
    expect(queryTestId(view.container, "dashboard-spend")).toBeNull();
  });
});

describe("the sandbox banner", () => {
  it("shows only while the sandbox is the connection", async () => {
    const bound: LinkState = { state: "bound", session_id: "s", since_ms: SINCE };
    view = await render(<SandboxBanner connection={ready(status(bound, true))} />);
    const banner = byTestId(view.container, "sandbox-banner");
    expect(banner.getAttribute("role")).toBe("status");
    expect(byTestId(banner, "sandbox-banner-text").textContent).toBe(
      "Sandbox: no real SMS is sent. Messages go to smsdesk’s built-in test SMSC.",
    );
    await view.unmount();

    view = await render(<SandboxBanner connection={ready(status(bound, false))} />);
    expect(queryTestId(view.container, "sandbox-banner")).toBeNull();
    await view.unmount();

    view = await render(<SandboxBanner connection={{ status: "loading" }} />);
    expect(queryTestId(view.container, "sandbox-banner")).toBeNull();
  });

  it("leads an admin to connecting the provider, and tells anyone else who can", async () => {
    const bound: LinkState = { state: "bound", session_id: "s", since_ms: SINCE };
    view = await render(<SandboxBanner connection={ready(status(bound, true))} />, ["en-US"], person("admin"));
    const link = byTestId<HTMLAnchorElement>(view.container, "sandbox-banner-connect");
    expect(link.textContent).toBe("Connect your provider");
    expect(link.getAttribute("href")).toBe("#/settings/connect");
    expect(queryTestId(view.container, "sandbox-banner-admin")).toBeNull();
    await view.unmount();

    for (const role of ["operator", "viewer"] as const) {
      view = await render(<SandboxBanner connection={ready(status(bound, true))} />, ["en-US"], person(role));
      expect(queryTestId(view.container, "sandbox-banner-connect"), role).toBeNull();
      expect(byTestId(view.container, "sandbox-banner-admin").textContent).toBe(
        "An admin can connect your provider in Settings.",
      );
      await view.unmount();
    }

    view = await render(<SandboxBanner connection={ready(status(bound, true))} />, ["fr-FR"], person("operator"));
    expect(byTestId(view.container, "sandbox-banner-admin").textContent).toBe(
      "Un administrateur peut connecter votre fournisseur dans les Réglages.",
    );
  });
});

describe("the dashboard section", () => {
  async function advance(ms: number): Promise<void> {
    await act(async () => {
      await vi.advanceTimersByTimeAsync(ms);
    });
  }

  it("polls the connection every 5 s and reloads the figures on any change, debounced", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(NOW);
    window.location.hash = "#/dashboard";
    const backend = new FakeBackend();
    let link: LinkState = { state: "bound", session_id: "s", since_ms: SINCE };
    let connections = 0;
    let dashboards = 0;
    backend.connection = () => {
      connections += 1;
      return Promise.resolve(status(link));
    };
    backend.dashboard = () => {
      dashboards += 1;
      return Promise.resolve(figures({ created_today: dashboards }));
    };

    view = await render(<Sections backend={backend} />);
    await advance(0);
    const root = view.container;
    expect(byTestId(root, "nav-dashboard").getAttribute("aria-current")).toBe("page");
    expect(byTestId(root, "sandbox-banner").textContent).toContain("no real SMS is sent");
    expect(byTestId(root, "link-state").dataset["state"]).toBe("bound");
    expect([connections, dashboards]).toEqual([1, 1]);

    link = { state: "down", error: "connection reset", since_ms: NOW, retry_in_ms: 5_000 };
    await advance(CONNECTION_POLL_MS - 1);
    expect(connections, "not before 5 s").toBe(1);
    await advance(1);
    expect(connections).toBe(2);
    expect(byTestId(root, "link-state").textContent).toContain("Down since");
    await advance(CONNECTION_POLL_MS);
    expect(connections).toBe(3);

    await act(async () => {
      backend.emit({ entity: "message", id: 1 });
      backend.emit({ entity: "queue", id: 1 });
      backend.emit({ entity: "receipt", id: 2 });
    });
    await advance(499);
    expect(dashboards, "changes are coalesced").toBe(1);
    await advance(1);
    expect(dashboards, "one reload for a burst of changes").toBe(2);
    expect(byTestId(root, "created-today").dataset["count"]).toBe("2");
    expect(backend.subscribers, "through the one shared subscription").toBe(1);
  });

  it("does not poll the connection from other sections, but still shows the banner", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    window.location.hash = "#/about";
    const backend = new FakeBackend();
    let connections = 0;
    backend.connection = () => {
      connections += 1;
      return Promise.resolve(status({ state: "stopped" }));
    };
    backend.dashboard = () => Promise.resolve(figures());
    backend.info = () => new Promise(() => {});
    view = await render(<Sections backend={backend} />);
    await advance(0);
    expect(queryTestId(view.container, "sandbox-banner")).not.toBeNull();
    await advance(3 * CONNECTION_POLL_MS);
    expect(connections).toBe(1);
  });

  it("says when the last backup was taken and whether one is taken daily", async () => {
    const last = NOW - 3 * 3_600_000;
    view = await render(
      <Dashboard dashboard={ready(figures())} connection={ready(status({ state: "stopped" }))} onRetry={() => {}} onRetryConnection={() => {}} />,
    );
    expect(byTestId(view.container, "backup-last").dataset["ms"]).toBe(String(last));
    expect(byTestId(view.container, "backup-last").textContent).toBe(`Last backup: ${en.formatDateTime(last)}`);
    expect(byTestId(view.container, "backup-automatic").textContent).toBe("A backup is taken every day and kept 14 days.");
    await view.unmount();

    view = await render(
      <Dashboard
        dashboard={ready(figures({ backups: { last_backup_ms: null, automatic: false, keep_days: 0 } }))}
        connection={ready(status({ state: "stopped" }))}
        onRetry={() => {}}
        onRetryConnection={() => {}}
      />,
    );
    expect(byTestId(view.container, "backup-last").textContent).toBe("No backup yet.");
    expect(byTestId(view.container, "backup-automatic").dataset["automatic"]).toBe("false");
    expect(byTestId(view.container, "backup-automatic").textContent).toContain("smsdesk backup");
  });
});
