// @vitest-environment happy-dom
import { act } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Sections } from "../App";
import { BackendError } from "../backend";
import type { Me } from "../bindings/Me";
import type { SmppServerSession } from "../bindings/SmppServerSession";
import type { SmppServerStatus } from "../bindings/SmppServerStatus";
import { byTestId, queryTestId, render, settle, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { IDLE_CONNECTION, person } from "../test/fixtures";
import { DashboardSmppServer, SMPP_SERVER_POLL_MS } from "./DashboardSmppServer";

const NOW = Date.UTC(2026, 11, 7, 9, 0, 0);

function session(id: number, more: Partial<SmppServerSession> = {}): SmppServerSession {
  return {
    id,
    account: "pbx",
    bind: "transceiver",
    peer: "192.168.1.20:51234",
    tls: true,
    since_ms: NOW - 20 * 60_000,
    submitted: 1234,
    refused: 0,
    rate_per_s: 2.46,
    delivered: 1200,
    ...more,
  };
}

function server(more: Partial<SmppServerStatus> = {}): SmppServerStatus {
  return {
    enabled: true,
    listening: "0.0.0.0:2775",
    tls: true,
    problem: null,
    sessions: [session(1), session(2, { account: "lab", bind: "transmitter", tls: false, refused: 3, rate_per_s: 0, peer: "10.0.0.7:40000" })],
    waiting: 3,
    ...more,
  };
}

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
  vi.useRealTimers();
  window.location.hash = "";
});

async function panel(answer: () => Promise<SmppServerStatus>, languages = ["en-US"]) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(NOW);
  const backend = new FakeBackend();
  backend.smppServer = answer;
  view = await render(<DashboardSmppServer backend={backend} />, languages);
  await settle();
  return { backend, root: view.container };
}

const cells = (row: HTMLElement) => [...row.querySelectorAll("td")].map((td) => td.textContent);

describe("the SMPP server on the dashboard", () => {
  it("says where it listens with its TLS badge, lists the clients bound, and the receipts waiting", async () => {
    const { root } = await panel(() => Promise.resolve(server()));
    const card = byTestId(root, "dashboard-smpp-server");
    expect(card.querySelector("h3")?.textContent).toBe("SMPP server");
    const listening = byTestId(card, "smpp-server-listening");
    expect(listening.textContent).toBe("Listening on 0.0.0.0:2775 TLS");
    expect(listening.querySelector(".badge-success")?.textContent).toBe("TLS");
    expect([...card.querySelectorAll("th")].map((th) => th.textContent)).toEqual([
      "Account",
      "Bind",
      "Address",
      "TLS",
      "Since",
      "Submitted",
      "Refused",
      "Rate/s",
      "Receipts delivered",
    ]);
    const rows = [...card.querySelectorAll<HTMLElement>('[data-testid="smpp-server-session"]')];
    expect(rows.map(cells)).toEqual([
      ["pbx", "Transceiver", "192.168.1.20:51234", "TLS", "20 minutes ago", "1,234", "0", "2.5", "1,200"],
      ["lab", "Transmitter", "10.0.0.7:40000", "No", "20 minutes ago", "1,234", "3", "0", "1,200"],
    ]);
    const since = byTestId(rows[0]!, "smpp-session-since");
    expect(since.getAttribute("title"), "the moment itself in its tooltip").toContain("2026");
    expect(byTestId(rows[1]!, "smpp-session-refused").querySelector(".badge-warning"), "refusals stand out").not.toBeNull();
    expect(byTestId(card, "smpp-server-waiting").textContent).toBe("3 receipts waiting for their client");
    expect(queryTestId(card, "smpp-server-problem")).toBeNull();
  });

  it("says why it does not listen, in full, as an error", async () => {
    const problem = "cannot listen on 0.0.0.0:2775: address already in use (another program has the port)";
    const { root } = await panel(() => Promise.resolve(server({ listening: null, problem, sessions: [], waiting: 1 })));
    const error = byTestId(root, "smpp-server-problem");
    expect(error.getAttribute("role")).toBe("alert");
    expect(error.classList.contains("notice-error")).toBe(true);
    expect(error.textContent).toBe(`The SMPP server is not listening${problem}`);
    expect(error.querySelector('[lang="en"]')?.textContent).toBe(problem);
    expect(queryTestId(root, "smpp-server-listening")).toBeNull();
    expect(byTestId(root, "smpp-server-waiting").textContent).toBe("1 receipt waiting for its client");
  });

  it("says when no client is bound and nothing waits, and when it listens without TLS", async () => {
    const { root } = await panel(() => Promise.resolve(server({ listening: "127.0.0.1:2775", tls: false, sessions: [], waiting: 0 })));
    expect(byTestId(root, "smpp-server-listening").textContent).toBe("Listening on 127.0.0.1:2775 Without TLS");
    expect(byTestId(root, "smpp-server-none").textContent).toBe("No client bound.");
    expect(queryTestId(root, "smpp-server-sessions")).toBeNull();
    expect(byTestId(root, "smpp-server-waiting").textContent).toBe("No receipt waiting for its client.");
  });

  it("shows nothing while the server is not enabled, nor when its state cannot be read", async () => {
    const off = await panel(() => Promise.resolve(server({ enabled: false, listening: null })));
    expect(off.root.textContent).toBe("");
    await view?.unmount();
    const failing = await panel(() => Promise.reject(new BackendError("forbidden", "no")));
    expect(failing.root.textContent).toBe("");
  });

  it("speaks French and Russian, in each language's plural", async () => {
    const fr = await panel(() => Promise.resolve(server({ waiting: 2 })), ["fr-FR"]);
    expect(byTestId(fr.root, "smpp-server-waiting").textContent).toBe("2 accusés de réception attendent leur client");
    expect(byTestId(fr.root, "smpp-server-listening").textContent).toContain("À l’écoute sur 0.0.0.0:2775");
    await view?.unmount();
    const ru = await panel(() => Promise.resolve(server({ waiting: 5, sessions: [] })), ["ru-RU"]);
    expect(byTestId(ru.root, "smpp-server-waiting").textContent).toBe("5 отчётов ждут своего клиента");
    expect(byTestId(ru.root, "smpp-server-none").textContent).toBe("Нет подключённых клиентов.");
  });
});

describe("the SMPP server in the dashboard section", () => {
  async function advance(ms: number): Promise<void> {
    await act(async () => {
      await vi.advanceTimersByTimeAsync(ms);
    });
  }

  function backendWith(answer: () => SmppServerStatus): { backend: FakeBackend; asked: () => number } {
    const backend = new FakeBackend();
    let asked = 0;
    backend.smppServer = () => {
      asked += 1;
      return Promise.resolve(answer());
    };
    backend.connection = () => Promise.resolve({ connection: "smpp", sandbox: false, link: { state: "stopped" }, binds: [], ...IDLE_CONNECTION });
    backend.dashboard = () => new Promise(() => {});
    return { backend, asked: () => asked };
  }

  it("is kept current as the rest of the dashboard: every 5 s, and after changes", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(NOW);
    window.location.hash = "#/dashboard";
    let waiting = 3;
    const { backend, asked } = backendWith(() => server({ waiting }));
    view = await render(<Sections backend={backend} />, ["en-US"], person("viewer"));
    await advance(0);
    expect(byTestId(view.container, "smpp-server-waiting").dataset["count"]).toBe("3");
    expect(asked()).toBe(1);

    waiting = 0;
    await advance(SMPP_SERVER_POLL_MS);
    expect(asked()).toBe(2);
    expect(byTestId(view.container, "smpp-server-waiting").dataset["count"]).toBe("0");

    waiting = 4;
    await act(async () => backend.emit({ entity: "receipt", id: 9 }));
    await advance(1_000);
    expect(asked()).toBe(3);
    expect(byTestId(view.container, "smpp-server-waiting").dataset["count"]).toBe("4");
  });

  it("is not asked for by a caller who may not read everything", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(NOW);
    window.location.hash = "#/dashboard";
    const ownOnly: Me = { actor: "website", kind: "key", role: null, scopes: ["send", "read:own"], admin: false, only_own: true, csrf_token: null };
    const { backend, asked } = backendWith(() => server());
    view = await render(<Sections backend={backend} />, ["en-US"], ownOnly);
    await advance(SMPP_SERVER_POLL_MS);
    expect(asked()).toBe(0);
    expect(queryTestId(view.container, "dashboard-smpp-server")).toBeNull();
  });
});
