// @vitest-environment happy-dom
import { act, useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../backend";
import type { MessageFilter } from "../bindings/MessageFilter";
import type { MessagePage } from "../bindings/MessagePage";
import type { MessageSummary } from "../bindings/MessageSummary";
import type { SubmitMessage } from "../bindings/SubmitMessage";
import type { SubmittedMessage } from "../bindings/SubmittedMessage";
import type { MessagesPlace } from "../hooks/useHashRoute";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { summary } from "../test/fixtures";
import { FIRST_PAGE } from "./MessageList";
import { Messages } from "./Messages";

function submitted(id: number, destination: string): SubmittedMessage {
  return {
    id,
    status: "queued",
    destination,
    destination_raw: destination,
    encoding: "gsm7",
    segments: 1,
    kind: "transactional",
    priority: 5,
    valid_until_ms: null,
    scheduled_at_ms: null,
    ordering_key: null,
    client_ref: null,
    created_at_ms: Date.now(),
  };
}

/** A backend serving whatever `rows` holds now, counting the list requests. */
function listing(rows: MessageSummary[]) {
  const backend = new FakeBackend();
  const filters: MessageFilter[] = [];
  backend.listMessages = (filter) => {
    filters.push(filter);
    const page: MessagePage = { items: [...rows], next_cursor: null, scan_limited: false };
    return Promise.resolve(page);
  };
  return { backend, filters };
}

function rowsOf(root: HTMLElement) {
  return [...root.querySelectorAll<HTMLElement>('[data-testid="message-row"]')].map((row) => ({
    id: row.dataset["id"],
    destination: byTestId(row, "message-destination").textContent,
    status: row.dataset["status"],
    state: row.dataset["state"],
    stateText: byTestId(row, "message-state").textContent,
  }));
}

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

describe("the message list", () => {
  it("shows the first page: id, destination, queue status, reported state", async () => {
    const { backend, filters } = listing([summary(2, { status: "accepted", state: "delivered" }), summary(1)]);
    view = await render(<Messages backend={backend} />);
    await settle();
    expect(filters[0]).toEqual(FIRST_PAGE);
    expect(rowsOf(view.container)).toEqual([
      { id: "2", destination: "+33612345602", status: "accepted", state: "delivered", stateText: "Delivered" },
      { id: "1", destination: "+33612345601", status: "queued", state: "pending", stateText: "No report yet" },
    ]);
    expect(view.container.querySelector("time")?.getAttribute("datetime")).toBe("2026-11-29T12:00:00.000Z");
  });

  it("follows committed changes: one reload per burst of changes to what it shows", async () => {
    const rows = [summary(1)];
    const { backend, filters } = listing(rows);
    view = await render(<Messages backend={backend} />);
    await settle();
    expect(filters).toHaveLength(1);

    rows.unshift(summary(2));
    rows[1] = summary(1, { status: "accepted", state: "delivered" });
    await settle(() => {
      backend.emit({ entity: "message", id: 2 });
      backend.emit({ entity: "queue", id: 1 });
      backend.emit({ entity: "projection", id: 1 });
    }, 300);
    expect(filters, "a burst of changes must cost one reload").toHaveLength(2);
    expect(rowsOf(view.container).map((r) => [r.id, r.state])).toEqual([
      ["2", "pending"],
      ["1", "delivered"],
    ]);

    await settle(() => backend.emit({ entity: "audit", id: 9 }), 300);
    expect(filters, "a change the list does not show must not reload it").toHaveLength(2);

    await settle(() => backend.resync(), 300);
    expect(filters, "a resync reloads").toHaveLength(3);
  });

  it("stops listening when it goes away", async () => {
    const { backend } = listing([]);
    view = await render(<Messages backend={backend} />);
    await settle();
    expect(backend.subscribers).toBe(1);
    await view.unmount();
    view = undefined;
    expect(backend.subscribers).toBe(0);
  });

  it("shows an error it cannot load, with a retry", async () => {
    const backend = new FakeBackend();
    backend.listMessages = () => Promise.reject(new BackendError("unreachable", "GET /api/v1/messages failed"));
    view = await render(<Messages backend={backend} />);
    await settle();
    expect(byTestId(byTestId(view.container, "messages-error"), "error-code").textContent).toBe("unreachable");
    expect(queryTestId(view.container, "retry")).not.toBeNull();
  });
});

describe("sending a test message", () => {
  async function fill(root: HTMLElement, destination: string, text: string) {
    await type(byTestId<HTMLInputElement>(root, "send-destination"), destination);
    await type(byTestId<HTMLTextAreaElement>(root, "send-text"), text);
  }

  it("hands the message in with an idempotency key and says which message it became", async () => {
    const { backend } = listing([]);
    const sent: [SubmitMessage, string | undefined][] = [];
    backend.submitMessage = (message, key) => {
      sent.push([message, key]);
      return Promise.resolve(submitted(41, message.destination));
    };
    view = await render(<Messages backend={backend} place="compose" />);
    const root = view.container;
    await fill(root, "+33612345600", "Your order has shipped");
    await submit(byTestId<HTMLFormElement>(root, "send-form"));
    await settle();
    expect(sent).toHaveLength(1);
    expect(sent[0]?.[0]).toEqual({ destination: "+33612345600", text: "Your order has shipped", kind: "transactional", smart_encoding: "typography" });
    expect(sent[0]?.[1]).toMatch(/^ui-[0-9a-f]{32}$/);
    expect(byTestId(root, "send-done").textContent).toBe("Queued as message 41.");
    expect(byTestId<HTMLTextAreaElement>(root, "send-text").value, "the text is cleared for the next one").toBe("");
  });

  it("sends a repeat of the same request under the same key, and an edited one under a new key", async () => {
    const { backend } = listing([]);
    const keys: (string | undefined)[] = [];
    backend.submitMessage = (_message, key) => {
      keys.push(key);
      return Promise.reject(new BackendError("unreachable", "no answer"));
    };
    view = await render(<Messages backend={backend} place="compose" />);
    const root = view.container;
    const form = byTestId<HTMLFormElement>(root, "send-form");
    await fill(root, "+33612345600", "hello");
    await submit(form);
    await settle();
    await submit(form);
    await settle();
    await type(byTestId<HTMLTextAreaElement>(root, "send-text"), "hello again");
    await submit(form);
    await settle();
    expect(keys[0], "a retry after a lost answer must not queue it twice").toBe(keys[1]);
    expect(keys[2]).not.toBe(keys[1]);
  });

  it("shows every field the engine refused, and marks the field", async () => {
    const { backend } = listing([]);
    backend.submitMessage = () =>
      Promise.reject(
        new BackendError("invalid", "destination: not a phone number", {
          errors: [{ field: "destination", code: "invalid_number", params: {}, message: "not a phone number" }],
        }),
      );
    view = await render(<Messages backend={backend} place="compose" />);
    const root = view.container;
    await fill(root, "12", "hello");
    await submit(byTestId<HTMLFormElement>(root, "send-form"));
    await settle();
    const error = byTestId(root, "send-error");
    expect(error.dataset["code"]).toBe("invalid");
    expect(byTestId(error, "field-errors").textContent).toBe("Phone number: This is not a phone number a message can be sent to.");
    expect(byTestId(root, "send-destination").getAttribute("aria-invalid")).toBe("true");
    expect(byTestId(root, "send-text").getAttribute("aria-invalid")).toBe("false");
  });
});

describe("the section's places", () => {
  it("the list is the Messages screen, with links to the places to write one message and to import a file", async () => {
    const { backend } = listing([summary(1)]);
    view = await render(<Messages backend={backend} />);
    await settle();
    const root = view.container;
    expect(queryTestId(root, "messages-table")).not.toBeNull();
    expect(queryTestId(root, "send-form"), "writing a message is elsewhere").toBeNull();
    expect(queryTestId(root, "import-file"), "so is importing a file").toBeNull();
    expect(byTestId(root, "messages-tab-list").getAttribute("aria-current")).toBe("page");
    expect(byTestId(root, "messages-tab-new").getAttribute("aria-current")).toBeNull();
    expect(byTestId(root, "messages-tab-new").getAttribute("href")).toBe("#/messages/new");
    expect(byTestId(root, "messages-tab-new").textContent).toBe("New message");
    expect(byTestId(root, "messages-tab-import").getAttribute("href")).toBe("#/messages/import");
  });

  it("writing a message shows the form alone, and the message queued opens from there", async () => {
    const { backend, filters } = listing([]);
    backend.submitMessage = (message) => Promise.resolve(submitted(41, message.destination));
    const opened: number[] = [];
    view = await render(<Messages backend={backend} place="compose" openId={null} onOpen={(id) => opened.push(id)} />);
    await settle();
    const root = view.container;
    expect(filters, "the list is not loaded behind the form").toHaveLength(0);
    expect(byTestId(root, "messages-tab-new").getAttribute("aria-current")).toBe("page");
    await type(byTestId<HTMLInputElement>(root, "send-destination"), "+33612345600");
    await type(byTestId<HTMLTextAreaElement>(root, "send-text"), "hello");
    await submit(byTestId<HTMLFormElement>(root, "send-form"));
    await settle();
    expect(byTestId(root, "send-done").dataset["id"]).toBe("41");
    expect(byTestId(root, "send-open").textContent).toBe("Open message 41");
    await click(byTestId(root, "send-open"));
    expect(opened).toEqual([41]);
  });

  it("the list's filters stay as they were while another place shows", async () => {
    const { backend, filters } = listing([summary(1)]);
    let go: (place: MessagesPlace) => void = () => {};
    function Switching() {
      const [place, setPlace] = useState<MessagesPlace>("list");
      go = setPlace;
      return <Messages backend={backend} place={place} />;
    }
    view = await render(<Switching />);
    await settle();
    const root = view.container;
    const status = byTestId<HTMLSelectElement>(root, "filter-status");
    await act(async () => {
      status.value = "failed";
      status.dispatchEvent(new Event("change", { bubbles: true }));
    });
    await settle();
    await act(async () => go("import"));
    expect(queryTestId(root, "import-file")).not.toBeNull();
    expect(queryTestId(root, "message-filters")).toBeNull();
    await act(async () => go("list"));
    await settle();
    expect(byTestId<HTMLSelectElement>(root, "filter-status").value).toBe("failed");
    expect(filters.at(-1)?.status, "the list comes back filtered as it was").toBe("failed");
  });

  it("a viewer has the list alone, and an address of a place to send from says why there is no form", async () => {
    const { backend } = listing([summary(1)]);
    const viewer = { actor: "Victor", kind: "person" as const, role: "viewer" as const, scopes: ["read:all" as const], admin: false, only_own: false, csrf_token: null };
    view = await render(<Messages backend={backend} place="compose" />, ["en-US"], viewer);
    await settle();
    const root = view.container;
    expect(queryTestId(root, "messages-places"), "no links to places a viewer cannot use").toBeNull();
    expect(queryTestId(root, "send-form")).toBeNull();
    expect(byTestId(root, "not-for-you").textContent).toContain("may read messages but not send them");
  });
});
