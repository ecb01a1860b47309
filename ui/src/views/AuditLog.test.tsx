// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import type { AuditEntry } from "../bindings/AuditEntry";
import type { AuditPage } from "../bindings/AuditPage";
import { AUDIT_ACTIONS } from "../bindings/codes";
import type { PageRequest } from "../bindings/PageRequest";
import { createI18n } from "../i18n/i18n";
import { byTestId, click, queryTestId, render, settle, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { AuditLog, PAGE_SIZE } from "./AuditLog";

const AT = Date.UTC(2026, 10, 29, 14, 5, 9);

function entry(id: number, patch: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id,
    at_ms: AT,
    actor: "operator",
    action: "message.cancel",
    subject_type: "message",
    subject_id: 40 + id,
    note: `note ${id}`,
    details: null,
    ...patch,
  };
}

/** A backend answering the audit log from `pages` by cursor ("" for the first), recording each request. */
function paging(pages: Record<string, AuditPage>) {
  const backend = new FakeBackend();
  const asked: PageRequest[] = [];
  backend.auditLog = (page) => {
    asked.push(page);
    return Promise.resolve(pages[page.cursor ?? ""] ?? { items: [], next_cursor: null });
  };
  return { backend, asked };
}

const rows = (root: HTMLElement): HTMLElement[] => [...root.querySelectorAll<HTMLElement>('[data-testid="audit-row"]')];

const cell = (row: HTMLElement | undefined, id: string): string => byTestId(row!, id).textContent ?? "";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

describe("audit log", () => {
  it("says who did what, when in the user's locale, on which message or exception, with the note", async () => {
    const { backend } = paging({
      "": {
        items: [
          entry(4, { actor: "system", action: "exception.closed", subject_type: "exception", subject_id: 9, note: null }),
          entry(3, { action: "message.retry_confirmed", note: "customer called\nsend again" }),
          entry(2, { actor: "api key crm", action: "api_key.revoke", subject_type: "api_key", subject_id: 2 }),
          entry(1, { action: "something.new", subject_type: null, subject_id: null }),
        ],
        next_cursor: null,
      },
    });
    view = await render(<AuditLog backend={backend} />, ["fr-FR"]);
    await settle();
    const root = view.container;
    const [closed, retried, revoked, unknown] = rows(root);

    const when = byTestId<HTMLTimeElement>(closed!, "audit-when");
    expect(when.textContent, "a local date-time in the user's language").toBe(createI18n(["fr-FR"]).formatDateTime(AT));
    expect(when.dateTime).toBe(new Date(AT).toISOString());
    expect(cell(closed, "audit-who")).toBe("smsdesk (automatique)");
    expect(cell(closed, "audit-what")).toBe("A clos une exception sur une nouvelle preuve");
    expect(byTestId<HTMLAnchorElement>(closed!, "audit-open-exception").getAttribute("href")).toBe("#/exceptions/9");
    expect(cell(closed, "audit-note")).toBe("Sans note");

    expect(cell(retried, "audit-who")).toBe("Opérateur");
    expect(byTestId<HTMLAnchorElement>(retried!, "audit-open-message").getAttribute("href")).toBe("#/messages/43");
    expect(cell(retried, "audit-note"), "the note as written, line breaks kept").toBe("customer called\nsend again");

    expect(cell(revoked, "audit-who"), "an API key by its name, in the reader's words").toBe("Clé d’API crm");
    expect(cell(revoked, "audit-subject")).toBe("Clé d’API 2");
    expect(cell(unknown, "audit-what"), "an action this UI does not know shows its code").toBe("something.new");
  });

  it("names the people's actions: accounts made and changed, sessions ended, limits overridden, each by the person who did it", async () => {
    const { backend } = paging({
      "": {
        items: [
          entry(4, { actor: "Alice", action: "account.create", subject_type: "account", subject_id: 2, note: "Olga (operator)" }),
          entry(3, { actor: "Alice", action: "account.update", subject_type: "account", subject_id: 2, note: "Olga: disabled" }),
          entry(2, { actor: "Alice", action: "session.revoke", subject_type: "session", subject_id: 9, note: null }),
          entry(1, { actor: "Alice", action: "message.retry_override", subject_id: 12, note: "the customer is waiting" }),
        ],
        next_cursor: null,
      },
    });
    view = await render(<AuditLog backend={backend} />);
    await settle();
    const [created, changed, ended, overridden] = rows(view.container);
    expect(cell(created!, "audit-who")).toBe("Alice");
    expect(cell(created!, "audit-what")).toBe("Created an account");
    expect(cell(created!, "audit-subject")).toBe("Account 2");
    expect(cell(changed!, "audit-what")).toBe("Changed an account");
    expect(cell(ended!, "audit-what")).toBe("Ended a browser’s session");
    expect(cell(ended!, "audit-subject")).toBe("Session 9");
    expect(cell(overridden!, "audit-what")).toBe("Sent a message past its kind’s limits (admin override)");
  });

  it("words every action the engine records, and shows one it does not know as its code", async () => {
    const known = AUDIT_ACTIONS.map((action, i) => entry(i + 2, { action }));
    const { backend } = paging({
      "": { items: [entry(1, { action: "message.teleport" }), ...known], next_cursor: null },
    });
    view = await render(<AuditLog backend={backend} />);
    await settle();
    const [unknown, ...worded] = rows(view.container);
    expect(worded.map((r) => r.dataset["action"])).toEqual([...AUDIT_ACTIONS]);
    for (const row of worded) {
      const what = byTestId(row, "audit-what");
      expect(what.querySelector("code"), `${row.dataset["action"]} has words`).toBeNull();
      expect(what.textContent, `${row.dataset["action"]} has words`).not.toBe(row.dataset["action"]);
    }
    expect(cell(worded[AUDIT_ACTIONS.indexOf("settings.reload")], "audit-what")).toBe("Re-read the configuration file");
    expect(byTestId(unknown!, "audit-what").querySelector("code")?.textContent).toBe("message.teleport");
  });

  it("words an erasure and a retention run: the removal it made, what it removed, and smsdesk's daily run", async () => {
    const redacted = { texts: 2, numbers: 2, receipts: 0, replies: 0, opt_outs: 1, audit: 0, cancelled: 0 };
    const { backend } = paging({
      "": {
        items: [
          entry(2, { actor: "retention", action: "retention.run", subject_type: null, subject_id: null, note: null, details: { redacted } }),
          entry(1, { actor: "Alice", action: "privacy.erase", subject_type: "redaction", subject_id: 31, note: "asked by email", details: { redacted, still_sending: 0 } }),
        ],
        next_cursor: null,
      },
    });
    view = await render(<AuditLog backend={backend} />);
    await settle();
    const [run, erase] = rows(view.container);
    expect(cell(run, "audit-who")).toBe("smsdesk (daily retention)");
    expect(cell(run, "audit-what")).toBe("Removed personal content past its retention period");
    expect(cell(run, "audit-facts")).toBe("Removed: Texts: 2, Numbers: 2, Opt-out entries: 1");
    expect(cell(erase, "audit-subject")).toBe("Removal 31");
    expect(cell(erase, "audit-note-text")).toBe("asked by email");
  });

  it("words an alert fired, acknowledged and resolved: the rule in plain words with what it was about, linked to the Alerts screen", async () => {
    const link = { rule: "link_down", subject: "primary" };
    const { backend } = paging({
      "": {
        items: [
          entry(3, { actor: "system", action: "alert.resolved", subject_type: "alert", subject_id: 4, note: null, details: link }),
          entry(2, { actor: "Olga", action: "alert.acknowledge", subject_type: "alert", subject_id: 4, note: "provider called", details: link }),
          entry(1, { actor: "system", action: "alert.fired", subject_type: "alert", subject_id: 9, note: null, details: { rule: "open_exceptions", subject: "" } }),
        ],
        next_cursor: null,
      },
    });
    view = await render(<AuditLog backend={backend} />, ["fr-FR"]);
    await settle();
    const [resolved, acknowledged, fired] = rows(view.container);
    expect(cell(resolved, "audit-who")).toBe("smsdesk (automatique)");
    expect(cell(resolved, "audit-what")).toBe("Une alerte a été résolue");
    expect(cell(resolved, "audit-facts")).toBe("La connexion primary est coupée");
    expect(byTestId<HTMLAnchorElement>(resolved!, "audit-open-alert").getAttribute("href")).toBe("#/alerts");
    expect(cell(resolved, "audit-subject")).toBe("Alerte 4");
    expect(cell(acknowledged, "audit-what")).toBe("A pris en compte une alerte");
    expect(cell(acknowledged, "audit-note-text")).toBe("provider called");
    expect(cell(fired, "audit-what")).toBe("Une alerte s’est déclenchée");
    expect(cell(fired, "audit-facts")).toBe("Les exceptions s’accumulent");
  });

  it("opens the message or exception an entry names", async () => {
    const { backend } = paging({
      "": {
        items: [entry(2, { subject_type: "exception", subject_id: 7 }), entry(1, { subject_id: 12 })],
        next_cursor: null,
      },
    });
    const opened: string[] = [];
    view = await render(
      <AuditLog
        backend={backend}
        onOpenMessage={(id) => opened.push(`message ${id}`)}
        onOpenException={(id) => opened.push(`exception ${id}`)}
      />,
    );
    await settle();
    await click(byTestId(view.container, "audit-open-exception"));
    await click(byTestId(view.container, "audit-open-message"));
    expect(opened).toEqual(["exception 7", "message 12"]);
  });

  it("loads older entries with More, and refreshes on audit changes only, keeping what is shown", async () => {
    const pages: Record<string, AuditPage> = {
      "": { items: [entry(3), entry(2)], next_cursor: "c1" },
      c1: { items: [entry(1)], next_cursor: null },
    };
    const { backend, asked } = paging(pages);
    view = await render(<AuditLog backend={backend} />);
    await settle();
    const root = view.container;
    expect(asked).toEqual([{ cursor: null, limit: PAGE_SIZE }]);
    expect(rows(root).map((r) => r.dataset["id"])).toEqual(["3", "2"]);

    await click(byTestId(root, "audit-more"));
    await settle();
    expect(asked.at(-1)).toEqual({ cursor: "c1", limit: PAGE_SIZE });
    expect(rows(root).map((r) => r.dataset["id"])).toEqual(["3", "2", "1"]);
    expect(queryTestId(root, "audit-more"), "nothing older, no button").toBeNull();
    expect(byTestId(root, "audit-count").textContent).toBe("Showing 3.");

    const before = asked.length;
    await settle(() => backend.emit({ entity: "message", id: 41 }), 300);
    expect(asked.length, "a message change does not touch the audit log").toBe(before);

    pages[""] = { items: [entry(4, { action: "message.retry" }), entry(3), entry(2), entry(1)], next_cursor: null };
    await settle(() => backend.emit({ entity: "audit", id: 4 }), 300);
    expect(asked.at(-1), "one request for as many rows as are shown").toEqual({ cursor: null, limit: PAGE_SIZE });
    expect(rows(root).map((r) => r.dataset["id"])).toEqual(["4", "3", "2", "1"]);
    expect(byTestId(rows(root)[0]!, "audit-what").textContent).toBe("Put a message back in the queue");
  });

  it("says when there is nothing yet, and offers to retry after a failure", async () => {
    const backend = new FakeBackend();
    view = await render(<AuditLog backend={backend} />);
    await settle();
    const root = view.container;
    expect(byTestId(root, "audit-error").textContent).toContain("Could not load the audit log");
    backend.auditLog = () => Promise.resolve({ items: [], next_cursor: null });
    await click(byTestId(root, "audit-error").querySelector("button")!);
    await settle();
    expect(byTestId(root, "audit-empty").textContent).toBe("Nothing has been recorded yet.");
  });
});

describe("how many rows show, in the form the count needs", () => {
  it("says “1 affiché” and “2 affichés” in French", async () => {
    const { backend } = paging({ "": { items: [entry(1)], next_cursor: null } });
    view = await render(<AuditLog backend={backend} />, ["fr-FR"]);
    await settle();
    expect(byTestId(view.container, "audit-count").textContent).toBe("1 affiché.");
    await view.unmount();
    const two = paging({ "": { items: [entry(1), entry(2)], next_cursor: null } });
    view = await render(<AuditLog backend={two.backend} />, ["fr-FR"]);
    await settle();
    expect(byTestId(view.container, "audit-count").textContent).toBe("2 affichés.");
  });
});
