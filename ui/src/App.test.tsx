// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { Sections } from "./App";
import type { Dashboard } from "./bindings/Dashboard";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "./test/dom";
import { FakeBackend } from "./test/fakeBackend";
import { alert, alertsOverview } from "./test/fakeAlerts";
import { overview } from "./test/fakePrivacy";
import { LOCAL_ADMIN } from "./access/access";
import {
  deliveredDetail,
  exceptionDetail,
  exceptionSummary,
  optOutEntry,
  person,
  summary,
  threadSummary,
  threadView,
} from "./test/fixtures";

function dashboard(open: number): Dashboard {
  return {
    at_ms: 0,
    today_start_ms: 0,
    utc_offset_minutes: 0,
    messages_total: 0,
    created_today: 0,
    created_last_24h: 0,
    queue: [],
    states: [],
    open_exceptions: [],
    open_exceptions_total: open,
    backups: { last_backup_ms: null, automatic: true, keep_days: 14 },
    spend: null,
  };
}

function app() {
  const backend = new FakeBackend();
  let open = 2;
  backend.dashboard = () => Promise.resolve(dashboard(open));
  backend.listMessages = () => Promise.resolve({ items: [deliveredDetail().summary, summary(6)], next_cursor: null, scan_limited: false });
  backend.message = () => Promise.resolve(deliveredDetail());
  backend.listExceptions = () => Promise.resolve({ items: [exceptionSummary(5)], next_cursor: null });
  backend.exception = () => Promise.resolve(exceptionDetail());
  return { backend, setOpen: (n: number) => (open = n) };
}

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
  window.location.hash = "";
});

async function go(hash: string): Promise<void> {
  await settle(() => {
    window.location.hash = hash;
    window.dispatchEvent(new HashChangeEvent("hashchange"));
  });
  await settle();
}

describe("navigation", () => {
  it("offers an admin Dashboard, Messages, Exceptions with its open count, Alerts, Audit log, Settings, API keys, Accounts, Personal data and About, and lands on Messages", async () => {
    const { backend, setOpen } = app();
    view = await render(<Sections backend={backend} />);
    await settle();
    const root = view.container;
    const tabs = [...root.querySelectorAll<HTMLElement>(".nav-item")];
    expect(tabs.map((t) => t.dataset["testid"])).toEqual([
      "nav-dashboard",
      "nav-reports",
      "nav-messages",
      "nav-inbox",
      "nav-exceptions",
      "nav-alerts",
      "nav-guardrails",
      "nav-optouts",
      "nav-audit",
      "nav-settings",
      "nav-keys",
      "nav-accounts",
      "nav-privacy",
      "nav-about",
    ]);
    expect(byTestId(root, "nav-messages").getAttribute("aria-current")).toBe("page");
    expect(byTestId(root, "nav-messages").textContent).toBe("Messages");
    expect(byTestId(root, "nav-exceptions-count").dataset["count"]).toBe("2");
    expect(byTestId(root, "nav-exceptions-count").textContent).toContain("2 open");

    setOpen(0);
    await settle(() => backend.emit({ entity: "exception", id: 5 }), 700);
    expect(queryTestId(root, "nav-exceptions-count"), "no count when nothing is open").toBeNull();
    expect(backend.subscribers, "every view listens through one subscription").toBe(1);
  });

  it("follows the address: a message or an exception opens from its link, and the section link returns to its list", async () => {
    const { backend } = app();
    view = await render(<Sections backend={backend} />);
    await settle();
    const root = view.container;
    await click(root.querySelector<HTMLElement>('[data-testid="message-row"][data-id="7"]')!);
    await settle();
    expect(window.location.hash).toBe("#/messages/7");
    expect(byTestId(root, "message-detail").dataset["id"]).toBe("7");

    await go("#/exceptions/5");
    expect(byTestId(root, "nav-exceptions").getAttribute("aria-current")).toBe("page");
    expect(byTestId(root, "exception-detail").dataset["id"]).toBe("5");
    await click(byTestId(root, "exception-open-message"));
    await settle();
    expect(window.location.hash, "the exception links to its message").toBe("#/messages/7");

    await go("#/exceptions");
    expect(queryTestId(root, "exception-detail")).toBeNull();
    expect(root.querySelectorAll('[data-testid="exception-row"]')).toHaveLength(1);
  });

  it("shows Personal data to an admin at #/privacy", async () => {
    const { backend } = app();
    backend.privacyOverview = () => Promise.resolve(overview());
    view = await render(<Sections backend={backend} />);
    await settle();
    const root = view.container;
    await go("#/privacy");
    expect(window.location.hash).toBe("#/privacy");
    expect(byTestId(root, "nav-privacy").getAttribute("aria-current")).toBe("page");
    expect(byTestId(root, "nav-privacy").textContent).toBe("Personal data");
    expect(queryTestId(root, "privacy-retention")).not.toBeNull();
    expect(queryTestId(root, "not-for-you")).toBeNull();
  });

  it("shows Alerts to every role at #/alerts, and the alerts firing at the top of the dashboard", async () => {
    for (const role of ["admin", "operator", "viewer"] as const) {
      const { backend } = app();
      backend.alerts = () => Promise.resolve(alertsOverview([alert(2)]));
      view = await render(<Sections backend={backend} />, ["en-US"], person(role));
      await settle();
      const root = view.container;
      await go("#/alerts");
      expect(byTestId(root, "nav-alerts").getAttribute("aria-current"), role).toBe("page");
      expect(byTestId(root, "nav-alerts").textContent).toBe("Alerts");
      expect(root.querySelector('[data-testid="alert-firing"][data-id="2"]'), role).not.toBeNull();
      expect(queryTestId(root, "alert-ack-open") !== null, `${role} acknowledges`).toBe(role !== "viewer");
      await go("#/dashboard");
      expect(byTestId(root, "dashboard-alert").textContent).toBe("Exceptions are piling up");
      await view.unmount();
      view = undefined;
      window.location.hash = "";
    }
  });

  it("shows the audit log in its own section, whose entries open the exception they name", async () => {
    const { backend } = app();
    backend.auditLog = () =>
      Promise.resolve({
        items: [
          {
            id: 3,
            at_ms: 1_796_000_000_000,
            actor: "operator",
            action: "exception.resolve",
            subject_type: "exception",
            subject_id: 5,
            note: "checked with the provider",
            details: null,
          },
        ],
        next_cursor: null,
      });
    view = await render(<Sections backend={backend} />);
    await settle();
    const root = view.container;
    await go("#/audit");
    expect(byTestId(root, "nav-audit").getAttribute("aria-current")).toBe("page");
    expect(byTestId(root, "nav-audit").textContent).toBe("Audit log");
    expect(byTestId(root, "audit-note").textContent).toBe("checked with the provider");
    await click(byTestId(root, "audit-open-exception"));
    await settle();
    expect(window.location.hash).toBe("#/exceptions/5");
    expect(byTestId(root, "exception-detail").dataset["id"]).toBe("5");
  });
});

describe("the inbox in the navigation", () => {
  it("counts unread replies beside Inbox, and follows replies as they come and are read", async () => {
    const { backend } = app();
    let unread = 3;
    backend.inboxCounts = () => Promise.resolve({ unread, threads_unread: 2 });
    view = await render(<Sections backend={backend} />);
    await settle();
    const root = view.container;
    expect(byTestId(root, "nav-inbox").textContent).toContain("Inbox");
    expect(byTestId(root, "nav-inbox-count").dataset["count"]).toBe("3");
    expect(byTestId(root, "nav-inbox-count").textContent).toContain("3 unread");

    unread = 4;
    await settle(() => backend.emit({ entity: "inbox_message", id: 9 }), 400);
    expect(byTestId(root, "nav-inbox-count").dataset["count"], "a new reply").toBe("4");
    unread = 0;
    await settle(() => backend.emit({ entity: "inbox_message", id: 9 }), 400);
    expect(queryTestId(root, "nav-inbox-count"), "everything read: no count").toBeNull();
  });

  it("opens a conversation from its address, and the opt-out list from its own", async () => {
    const { backend } = app();
    backend.inboxCounts = () => Promise.resolve({ unread: 0, threads_unread: 0 });
    backend.listThreads = () => Promise.resolve({ items: [threadSummary("+33612345626")], next_cursor: null });
    backend.thread = () => Promise.resolve(threadView());
    backend.markRead = () => Promise.resolve({ unread: 0, threads_unread: 0 });
    backend.listOptOuts = () => Promise.resolve({ items: [optOutEntry(1)], next_cursor: null, current: 1 });
    view = await render(<Sections backend={backend} />);
    await settle();
    const root = view.container;
    await go("#/inbox/%2B33612345626");
    expect(byTestId(root, "nav-inbox").getAttribute("aria-current")).toBe("page");
    expect(byTestId(root, "conversation").dataset["thread"]).toBe("+33612345626");
    await go("#/opt-outs");
    expect(byTestId(root, "nav-optouts").getAttribute("aria-current")).toBe("page");
    expect(byTestId(root, "optout-phone").textContent).toBe("+33612345628");
    await click(byTestId(root, "optout-open-thread"));
    await settle();
    expect(window.location.hash, "the evidence opens its conversation").toBe("#/inbox/%2B33612345628");
  });

  it("on the sandbox, offers to simulate a reply, which the sandbox plays", async () => {
    const { backend } = app();
    backend.connection = () => Promise.resolve({ connection: "sandbox", sandbox: true, link: { state: "connecting" } } as never);
    backend.inboxCounts = () => Promise.resolve({ unread: 0, threads_unread: 0 });
    backend.listThreads = () => Promise.resolve({ items: [], next_cursor: null });
    const replies: unknown[] = [];
    backend.sandboxReply = (reply) => {
      replies.push(reply);
      return Promise.resolve();
    };
    view = await render(<Sections backend={backend} />);
    await settle();
    const root = view.container;
    await go("#/inbox");
    expect(byTestId(root, "threads-empty").textContent).toContain("No replies yet");
    await type(byTestId<HTMLInputElement>(root, "simulate-from"), "+33 6 12 34 56 26");
    await type(byTestId<HTMLInputElement>(root, "simulate-text"), "STOP");
    await submit(byTestId<HTMLFormElement>(root, "simulate-form"));
    await settle();
    expect(replies).toEqual([{ from: "+33 6 12 34 56 26", text: "STOP" }]);
  });

  it("a key that reads only its own messages has no inbox or opt-out list, and is not asked for counts", async () => {
    const { backend } = app();
    const key = { ...person("operator"), kind: "key" as const, role: null, scopes: ["send" as const, "read:own" as const], only_own: true };
    view = await render(<Sections backend={backend} />, ["en-US"], key);
    await settle();
    const root = view.container;
    expect(queryTestId(root, "nav-inbox")).toBeNull();
    expect(queryTestId(root, "nav-optouts")).toBeNull();
    expect(queryTestId(root, "nav-reports"), "reports count every message").toBeNull();
    expect(backend.calls).not.toContain("inboxCounts");
    await go("#/opt-outs");
    expect(byTestId(root, "not-for-you").dataset["section"]).toBe("optouts");
    expect(backend.calls).not.toContain("listOptOuts");
    await go("#/reports?period=7d&by=connection");
    expect(byTestId(root, "not-for-you").dataset["section"]).toBe("reports");
    expect(byTestId(root, "not-for-you").textContent).toContain("Reports count every message");
    expect(backend.calls).not.toContain("deliveryReport");
    expect(queryTestId(root, "nav-alerts"), "alerts are read with read:all").toBeNull();
    await go("#/dashboard");
    await go("#/alerts");
    expect(byTestId(root, "not-for-you").dataset["section"]).toBe("alerts");
    expect(backend.calls, "neither the Alerts screen nor the dashboard asks for alerts").not.toContain("alerts");
  });
});

describe("what each role sees", () => {
  it("an operator has no Settings, API keys, Accounts or Personal data; their address says so instead of failing", async () => {
    const { backend } = app();
    view = await render(<Sections backend={backend} />, ["en-US"], person("operator"));
    await settle();
    const root = view.container;
    const tabs = [...root.querySelectorAll<HTMLElement>(".nav-item")].map((t) => t.dataset["testid"]);
    expect(tabs).toEqual(["nav-dashboard", "nav-reports", "nav-messages", "nav-inbox", "nav-exceptions", "nav-alerts", "nav-guardrails", "nav-optouts", "nav-audit", "nav-about"]);
    const asks: Record<string, string> = { settings: "settings", keys: "listKeys", accounts: "listAccounts", privacy: "privacyOverview" };
    for (const [section, ask] of Object.entries(asks)) {
      backend.calls.length = 0;
      await go(`#/${section}`);
      expect(byTestId(root, "not-for-you").dataset["section"]).toBe(section);
      expect(byTestId(root, "not-for-you").textContent).toContain("your role is Operator");
      expect(backend.calls, `${section}: nothing is asked that would be refused`).not.toContain(ask);
    }
    await go("#/messages");
    expect(queryTestId(root, "export-start"), "an operator exports").not.toBeNull();
    expect(queryTestId(root, "send-form"), "the list is a place of its own").toBeNull();
    await go("#/messages/new");
    expect(queryTestId(root, "send-form"), "an operator sends").not.toBeNull();
    expect(byTestId(root, "nav-messages").getAttribute("aria-current"), "writing a message is in Messages").toBe("page");
    await go("#/messages/import");
    expect(queryTestId(root, "import-file"), "an operator imports").not.toBeNull();
  });

  it("a viewer reads messages and exceptions, and sees no way to send, import, export, retry, cancel or resolve", async () => {
    const { backend } = app();
    view = await render(<Sections backend={backend} />, ["en-US"], person("viewer"));
    await settle();
    const root = view.container;
    expect(root.querySelectorAll('[data-testid="message-row"]'), "a viewer reads every message").toHaveLength(2);
    for (const control of ["send-form", "send-submit", "import-file", "export-start", "messages-tab-new", "messages-tab-import"]) {
      expect(queryTestId(root, control), control).toBeNull();
    }
    for (const place of ["#/messages/new", "#/messages/import"]) {
      await go(place);
      expect(byTestId(root, "not-for-you").textContent, `${place} says why instead of a form`).toContain("not send them");
      expect(queryTestId(root, "send-form")).toBeNull();
      expect(queryTestId(root, "import-file")).toBeNull();
    }
    await go("#/messages/7");
    expect(byTestId(root, "message-detail").dataset["id"]).toBe("7");
    expect(queryTestId(root, "message-actions"), "no retry or cancel").toBeNull();
    await go("#/exceptions/5");
    expect(byTestId(root, "exception-detail").dataset["id"]).toBe("5");
    expect(queryTestId(root, "resolve-form"), "no resolve form").toBeNull();
    expect(byTestId(root, "resolve-not-yours").textContent).toBe("Your role reads exceptions; an operator or an admin decides them.");
    const tabs = [...root.querySelectorAll<HTMLElement>(".nav-item")].map((t) => t.dataset["testid"]);
    expect(tabs).not.toContain("nav-settings");
  });

  it("the window, its computer's admin, sees everything an admin does", async () => {
    const { backend } = app();
    view = await render(<Sections backend={backend} />, ["en-US"], LOCAL_ADMIN);
    await settle();
    const root = view.container;
    expect(queryTestId(root, "nav-accounts")).not.toBeNull();
    expect(queryTestId(root, "export-start")).not.toBeNull();
    expect(queryTestId(root, "messages-tab-new")).not.toBeNull();
    await go("#/messages/new");
    expect(queryTestId(root, "send-form")).not.toBeNull();
    await go("#/password");
    expect(byTestId(root, "not-for-you").textContent, "the window has no password to change").toContain("the desktop window needs none");
  });
});
