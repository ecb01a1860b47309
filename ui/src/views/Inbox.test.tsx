// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../backend";
import type { InboxFilter } from "../bindings/InboxFilter";
import type { MarkRead } from "../bindings/MarkRead";
import type { Me } from "../bindings/Me";
import type { RemoveOptOut } from "../bindings/RemoveOptOut";
import type { SubmitMessage } from "../bindings/SubmitMessage";
import type { ThreadRequest } from "../bindings/ThreadRequest";
import type { ThreadView } from "../bindings/ThreadView";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { optOutEntry, person, received, sent, T0, threadSummary, threadView } from "../test/fixtures";
import { Inbox } from "./Inbox";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

const all = (root: ParentNode, id: string): HTMLElement[] => [...root.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`)];

/** An engine holding two conversations, whose first is `conversation`; it records what it is asked. */
function engine(conversation: ThreadView = threadView()) {
  const backend = new FakeBackend();
  const filters: InboxFilter[] = [];
  const requests: ThreadRequest[] = [];
  const marks: MarkRead[] = [];
  const submits: SubmitMessage[] = [];
  const removals: RemoveOptOut[] = [];
  let current = conversation;
  backend.listThreads = (filter) => {
    filters.push(filter);
    // The next page holds the conversations after the first page's, as the engine's cursor gives them.
    if (filter.cursor === "more") {
      return Promise.resolve({ items: [threadSummary("+33612345630", { unread: 0, replies: 1 })], next_cursor: null });
    }
    return Promise.resolve({
      items: [
        threadSummary("+33612345626", { unread: 2, replies: 3 }),
        threadSummary("+33612345628", {
          unread: 0,
          opted_out: true,
          last: { ...received(4, { thread: "+33612345628", phone: "+33612345628", text: "Arrêt" }), intent: "opt_out", keyword: "ARRET" } as never,
        }),
      ],
      next_cursor: filter.cursor === null ? "more" : null,
    });
  };
  backend.thread = (request) => {
    requests.push(request);
    return Promise.resolve(current);
  };
  backend.markRead = (read) => {
    marks.push(read);
    return Promise.resolve({ unread: 0, threads_unread: 0 });
  };
  backend.submitMessage = (message) => {
    submits.push(message);
    return Promise.resolve({ id: 42 } as never);
  };
  backend.removeOptOut = (removal) => {
    removals.push(removal);
    return Promise.resolve();
  };
  return { backend, filters, requests, marks, submits, removals, set: (v: ThreadView) => (current = v) };
}

async function show(e: ReturnType<typeof engine>, thread: string | null, me?: Me, extra: Partial<Parameters<typeof Inbox>[0]> = {}) {
  view = await render(<Inbox backend={e.backend} openThread={thread} onOpenThread={() => {}} {...extra} />, ["en-US"], me);
  await settle();
  return view.container;
}

describe("the conversations", () => {
  it("lists each with its number, latest reply, time, unread count and whether it opted out", async () => {
    const e = engine();
    const root = await show(e, null);
    const rows = all(root, "thread-row");
    expect(rows.map((r) => r.dataset["thread"])).toEqual(["+33612345626", "+33612345628"]);
    expect(byTestId(rows[0]!, "thread-number").textContent).toBe("+33612345626");
    expect(byTestId(rows[0]!, "thread-last").textContent).toBe("Je ne pourrai pas venir demain, merci de rappeler.");
    expect(byTestId(rows[0]!, "thread-unread").textContent).toBe("Unread: 2");
    expect(rows[0]!.querySelector("time")?.getAttribute("datetime")).toBe(new Date(T0 + 60_000).toISOString());
    expect(queryTestId(rows[0]!, "thread-opted-out")).toBeNull();
    expect(queryTestId(rows[1]!, "thread-unread"), "nothing unread: no count").toBeNull();
    expect(byTestId(rows[1]!, "thread-opted-out").textContent).toBe("Opted out");
    expect(byTestId(rows[1]!, "reply-intent").textContent).toBe("Opt-out: ARRET");
    expect(rows[0]!.getAttribute("href")).toBe("#/inbox/%2B33612345626");
    expect(byTestId(root, "conversation-none").textContent).toContain("Choose a conversation");
  });

  it("searches by digits or words, narrows to unread ones, and pages with the cursor", async () => {
    const e = engine();
    const root = await show(e, null);
    expect(e.filters[0]).toEqual({ q: null, unread: null, cursor: null, limit: 50 });
    await type(byTestId<HTMLInputElement>(root, "inbox-search-q"), " 06 12 34 ");
    await submit(byTestId<HTMLFormElement>(root, "inbox-search"));
    await settle();
    expect(e.filters.at(-1)).toEqual({ q: "06 12 34", unread: null, cursor: null, limit: 50 });
    await click(byTestId(root, "inbox-unread-only"));
    await settle();
    expect(e.filters.at(-1)).toEqual({ q: "06 12 34", unread: true, cursor: null, limit: 50 });
    await click(byTestId(root, "threads-more"));
    await settle();
    expect(e.filters.at(-1)?.cursor).toBe("more");
    expect(all(root, "thread-row")).toHaveLength(3);
  });

  it("opens a conversation where the person clicks", async () => {
    const e = engine();
    const opened: string[] = [];
    view = await render(<Inbox backend={e.backend} openThread={null} onOpenThread={(t) => opened.push(t)} />);
    await settle();
    await click(all(view.container, "thread-row")[1]!);
    expect(opened).toEqual(["+33612345628"]);
  });
});

describe("a conversation", () => {
  it("shows sent messages and replies in time order, as a chat: where each sent one stands, and what each reply asked", async () => {
    const e = engine(
      threadView({
        items: [
          sent(7, { created_at_ms: T0, status: "accepted", state: "delivered" }),
          received(3, { received_at_ms: T0 + 60_000 }),
          sent(9, { created_at_ms: T0 + 120_000, status: "queued", state: "pending", text: "We will call you back." }),
          received(5, { received_at_ms: T0 + 180_000, text: "STOP", intent: "opt_out", keyword: "STOP" }),
          received(6, { received_at_ms: T0 + 240_000, text: "Part one of three, part two", parts: 3, parts_received: 2 }),
        ],
      }),
    );
    const root = await show(e, "+33612345626");
    expect(e.requests[0]).toEqual({ thread: "+33612345626", cursor: null, limit: 50 });
    expect(root.querySelector("h2#" + CSS.escape(byTestId(root, "conversation").getAttribute("aria-labelledby") ?? ""))?.textContent).toBe(
      "Conversation with +33612345626",
    );
    const lines = all(root, "thread-item");
    expect(lines.map((l) => `${l.dataset["direction"]}:${l.dataset["id"]}`)).toEqual([
      "sent:7",
      "received:3",
      "sent:9",
      "received:5",
      "received:6",
    ]);
    expect(lines.map((l) => l.className.includes("bubble-sent"))).toEqual([true, false, true, false, false]);
    expect(byTestId(lines[0]!, "sent-status").textContent).toBe("Accepted by the provider");
    expect(byTestId(lines[0]!, "sent-state").textContent).toBe("Reported delivered");
    expect(byTestId(lines[0]!, "thread-open-message").getAttribute("href")).toBe("#/messages/7");
    expect(queryTestId(lines[2]!, "sent-state"), "no report yet: no state badge").toBeNull();
    expect(byTestId(lines[1]!, "bubble-text").textContent).toBe("Je ne pourrai pas venir demain, merci de rappeler.");
    expect(queryTestId(lines[1]!, "reply-intent")).toBeNull();
    expect(byTestId(lines[3]!, "reply-intent").textContent).toBe("Opt-out: STOP");
    expect(byTestId(lines[4]!, "reply-parts").textContent).toBe("2 of 3 parts");
    expect(lines[4]!.textContent).toContain("never came");
  });

  it("says Opt-in for a start word", async () => {
    const e = engine(threadView({ items: [received(8, { text: "START", intent: "opt_in", keyword: "START" })] }));
    const root = await show(e, "+33612345626");
    expect(byTestId(byTestId(root, "conversation"), "reply-intent").textContent).toBe("Opt-in: START");
  });

  it("loads older lines with the cursor and puts them first", async () => {
    const e = engine(threadView({ items: [received(3)], next_cursor: "older" }));
    const root = await show(e, "+33612345626");
    e.set(threadView({ items: [sent(1, { created_at_ms: T0 - 86_400_000 })], next_cursor: null }));
    await click(byTestId(root, "conversation-older"));
    await settle();
    expect(e.requests.at(-1)).toEqual({ thread: "+33612345626", cursor: "older", limit: 50 });
    expect(all(root, "thread-item").map((l) => `${l.dataset["direction"]}:${l.dataset["id"]}`)).toEqual(["sent:1", "received:3"]);
    expect(queryTestId(root, "conversation-older"), "nothing older").toBeNull();
  });

  it("marks its replies read up to the newest one shown, once, for a person who may act", async () => {
    const e = engine(threadView({ items: [received(3), sent(7, { created_at_ms: T0 + 70_000 }), received(5, { received_at_ms: T0 + 80_000 })] }));
    const root = await show(e, "+33612345626", person("operator"));
    expect(e.marks).toEqual([{ thread: "+33612345626", up_to: 5 }]);
    expect(all(root, "reply-unread")).toHaveLength(2);
    // Read now: a refresh shows them read and asks nothing more.
    e.set(threadView({ items: [received(3, { read_at_ms: T0 }), received(5, { received_at_ms: T0 + 80_000, read_at_ms: T0 })] }));
    await settle(() => e.backend.emit({ entity: "inbox_message", id: 5 }), 400);
    expect(all(root, "reply-unread")).toHaveLength(0);
    expect(e.marks).toHaveLength(1);
    // A new reply arrives while it is open: it is read too.
    e.set(threadView({ items: [received(3, { read_at_ms: T0 }), received(11, { received_at_ms: T0 + 90_000 })] }));
    await settle(() => e.backend.emit({ entity: "inbox_message", id: 11 }), 400);
    expect(e.marks.at(-1)).toEqual({ thread: "+33612345626", up_to: 11 });
  });

  it("marks nothing read when every reply is read already", async () => {
    const e = engine(threadView({ items: [received(3, { read_at_ms: T0, read_by: "Olga" })] }));
    await show(e, "+33612345626");
    expect(e.marks).toEqual([]);
  });

  it("answers the number with a transactional message", async () => {
    const e = engine();
    const root = await show(e, "+33612345626");
    const button = byTestId<HTMLButtonElement>(root, "composer-submit");
    expect(button.disabled, "nothing typed yet").toBe(true);
    await type(byTestId<HTMLTextAreaElement>(root, "composer-text"), "We will call you this afternoon.");
    await submit(byTestId<HTMLFormElement>(root, "composer-form"));
    await settle();
    expect(e.submits).toEqual([{ destination: "+33612345626", text: "We will call you this afternoon.", kind: "transactional" }]);
    expect(byTestId(root, "composer-done").dataset["id"]).toBe("42");
    expect(byTestId<HTMLTextAreaElement>(root, "composer-text").value).toBe("");
  });

  it("shows a refusal for an opted-out number in plain words", async () => {
    const e = engine();
    e.backend.submitMessage = () =>
      Promise.reject(
        new BackendError("destination_opted_out", "+33612345626 opted out of transactional messages", {
          errors: [{ field: "destination", code: "destination_opted_out", params: {}, message: "on the opt-out list" }],
        }),
      );
    const root = await show(e, "+33612345626");
    await type(byTestId<HTMLTextAreaElement>(root, "composer-text"), "Hello");
    await submit(byTestId<HTMLFormElement>(root, "composer-form"));
    await settle();
    const error = byTestId(root, "composer-error");
    expect(error.dataset["code"]).toBe("destination_opted_out");
    expect(error.textContent).toContain("This number is on the opt-out list");
  });

  it("closes the answer while the number is opted out, saying why", async () => {
    const e = engine(threadView({ thread: "+33612345628", phone: "+33612345628", opt_out: optOutEntry(1), items: [received(4, { text: "Arrêt" })] }));
    const root = await show(e, "+33612345628");
    expect(byTestId(root, "reply-composer").dataset["blocked"]).toBe("true");
    expect(byTestId<HTMLTextAreaElement>(root, "composer-text").disabled).toBe(true);
    const button = byTestId<HTMLButtonElement>(root, "composer-submit");
    expect(button.disabled).toBe(true);
    expect(button.getAttribute("aria-describedby")).toBe(byTestId(root, "composer-blocked").id);
    expect(byTestId(root, "composer-blocked").textContent).toContain("asked not to receive messages");
  });

  it("lets one answer a number opted out of bulk messages only", async () => {
    const e = engine(threadView({ opt_out: optOutEntry(1, { phone: "+33612345626", kinds: ["bulk"] }) }));
    const root = await show(e, "+33612345626");
    expect(queryTestId(root, "composer-blocked")).toBeNull();
    expect(byTestId<HTMLTextAreaElement>(root, "composer-text").disabled).toBe(false);
  });

  it("shows the number's opt-out entry with its evidence, and takes it off the list only with a note", async () => {
    const e = engine(threadView({ thread: "+33612345628", phone: "+33612345628", opt_out: optOutEntry(1), items: [received(4, { text: "Arrêt" })] }));
    const root = await show(e, "+33612345628", person("operator"));
    const entry = byTestId(root, "thread-opt-out");
    expect(entry.textContent).toContain("On the opt-out list");
    expect(byTestId(entry, "thread-opt-out-since").textContent).toContain("A stop word in their reply");
    expect(byTestId(entry, "thread-opt-out-evidence").querySelector("q")?.textContent).toBe("Arrêt");
    expect(entry.textContent).toContain("Transactional, Bulk");
    await click(byTestId(root, "thread-remove-open"));
    const remove = byTestId<HTMLButtonElement>(root, "thread-remove-submit");
    expect(remove.disabled, "a note is required").toBe(true);
    expect(byTestId(root, "thread-remove-blocked").textContent).toBe("Write a note to say why.");
    await type(byTestId<HTMLTextAreaElement>(root, "thread-remove-note"), "Asked by phone to get reminders again");
    expect(remove.disabled).toBe(false);
    await submit(byTestId<HTMLFormElement>(root, "thread-remove"));
    await settle();
    expect(e.removals).toEqual([{ phone: "+33612345628", note: "Asked by phone to get reminders again" }]);
    expect(queryTestId(root, "thread-remove"), "the form closes").toBeNull();
  });

  it("puts a number on the list from its conversation", async () => {
    const e = engine();
    const adds: unknown[] = [];
    e.backend.addOptOut = (optOut) => {
      adds.push(optOut);
      return Promise.resolve({ entry: optOutEntry(2, { phone: "+33612345626" }), added: true, held_messages: [] });
    };
    const root = await show(e, "+33612345626", person("operator"));
    expect(byTestId(root, "thread-not-opted-out").textContent).toContain("not on the opt-out list");
    await click(byTestId(root, "thread-add-open"));
    await type(byTestId<HTMLTextAreaElement>(root, "thread-add-note"), "Asked by mail");
    await submit(byTestId<HTMLFormElement>(root, "thread-add"));
    await settle();
    expect(adds).toEqual([{ phone: "+33612345626", note: "Asked by mail", kinds: ["transactional", "bulk"] }]);
  });

  it("offers a viewer nothing to change: no answer, no list change, and reading marks nothing", async () => {
    const e = engine(threadView({ opt_out: optOutEntry(1, { phone: "+33612345626" }) }));
    const root = await show(e, "+33612345626", person("viewer"));
    expect(all(root, "thread-item")).toHaveLength(2);
    for (const control of ["reply-composer", "thread-remove-open", "thread-add-open", "simulate-reply"]) {
      expect(queryTestId(root, control), control).toBeNull();
    }
    expect(e.marks, "a viewer's reading leaves the replies unread for those who act").toEqual([]);
  });

  it("says so when a sender is not a phone number", async () => {
    const e = engine(threadView({ thread: "INFO", phone: null, items: [received(3, { thread: "INFO", phone: null })] }));
    const root = await show(e, "INFO");
    expect(queryTestId(root, "reply-composer")).toBeNull();
    expect(byTestId(root, "conversation-no-number").textContent).toContain("not a phone number");
  });
});

describe("simulating a reply", () => {
  const sandbox = { status: "ready", data: { connection: "sandbox", sandbox: true, link: { state: "stopped" } } } as const;

  it("is offered only while the sandbox is the connection, and sends what is typed", async () => {
    const e = engine();
    const asked: [string, string][] = [];
    const simulateReply = (from: string, text: string): Promise<void> => {
      asked.push([from, text]);
      return Promise.resolve();
    };
    const root = await show(e, "+33612345626", undefined, { connection: sandbox as never, simulateReply });
    expect(byTestId<HTMLInputElement>(root, "simulate-from").value, "the open conversation's number").toBe("+33612345626");
    await type(byTestId<HTMLInputElement>(root, "simulate-text"), "STOP");
    await submit(byTestId<HTMLFormElement>(root, "simulate-form"));
    await settle();
    expect(asked).toEqual([["+33612345626", "STOP"]]);
    expect(byTestId(root, "simulate-done").textContent).toContain("sandbox sent the reply");
    await view!.unmount();

    const real = { status: "ready", data: { connection: "smpp", sandbox: false, link: { state: "stopped" } } } as const;
    const other = await show(engine(), null, undefined, { connection: real as never, simulateReply });
    expect(queryTestId(other, "simulate-reply")).toBeNull();
  });
});
