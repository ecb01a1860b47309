// @vitest-environment happy-dom
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import type { MessageFilter } from "../bindings/MessageFilter";
import type { MessagePage } from "../bindings/MessagePage";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import type { MessageDetail } from "../bindings/MessageDetail";
import { createI18n } from "../i18n/i18n";
import { deliveredDetail, summary } from "../test/fixtures";
import { MessageDetail as Detail } from "./MessageDetail";
import { FIRST_PAGE, MessageList } from "./MessageList";

async function choose(select: HTMLSelectElement, value: string): Promise<void> {
  await act(async () => {
    select.value = value;
    select.dispatchEvent(new Event("change", { bubbles: true }));
  });
}

/** A backend answering each page from `pages` by cursor ("" for the first), recording every filter asked. */
function paging(pages: Record<string, MessagePage>) {
  const backend = new FakeBackend();
  const filters: MessageFilter[] = [];
  const gates = new Map<string, () => void>();
  const held = new Set<string>();
  backend.listMessages = (filter) => {
    filters.push(filter);
    const key = filter.cursor ?? "";
    const page = pages[key] ?? { items: [], next_cursor: null, scan_limited: false };
    if (!held.has(key)) return Promise.resolve(page);
    return new Promise((resolve) => gates.set(key, () => resolve(page)));
  };
  return {
    backend,
    filters,
    /** Answers for this cursor wait until released. */
    hold: (cursor: string) => held.add(cursor),
    release: async (cursor: string) => {
      held.delete(cursor);
      await settle(() => gates.get(cursor)?.());
    },
  };
}

const ids = (root: HTMLElement): string[] =>
  [...root.querySelectorAll<HTMLElement>('[data-testid="message-row"]')].map((r) => r.dataset["id"] ?? "");

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

describe("message list filters", () => {
  it("build the engine's filter from what is chosen and typed, and clear back to the first page", async () => {
    const { backend, filters } = paging({});
    view = await render(<MessageList backend={backend} />);
    await settle();
    const root = view.container;
    expect(filters.at(-1)).toEqual(FIRST_PAGE);

    await choose(byTestId<HTMLSelectElement>(root, "filter-status"), "failed");
    await settle();
    expect(filters.at(-1), "a choice applies at once").toEqual({ ...FIRST_PAGE, status: "failed" });

    await choose(byTestId<HTMLSelectElement>(root, "filter-state"), "delivered");
    await choose(byTestId<HTMLSelectElement>(root, "filter-kind"), "otp");
    await settle();
    const asked = filters.length;
    await type(byTestId<HTMLInputElement>(root, "filter-q"), "  ord 42 ");
    await type(byTestId<HTMLInputElement>(root, "filter-destination"), " +3361* ");
    await settle();
    expect(filters.length, "typing alone does not search").toBe(asked);
    await submit(byTestId<HTMLFormElement>(root, "message-filters"));
    await settle();
    expect(filters.at(-1)).toEqual({
      status: "failed",
      state: "delivered",
      kind: "otp",
      channel: null,
      destination: "+3361*",
      q: "ord 42",
      from_ms: null,
      to_ms: null,
      cursor: null,
      limit: 50,
    });
    expect(byTestId(root, "messages-empty").textContent).toBe("No message matches these filters.");

    await click(byTestId(root, "filter-clear"));
    await settle();
    expect(filters.at(-1)).toEqual(FIRST_PAGE);
    expect(byTestId<HTMLInputElement>(root, "filter-q").value).toBe("");
    expect(byTestId(root, "messages-empty").textContent).toBe("No messages yet.");
  });

  it("label the reported state as reported", async () => {
    const { backend } = paging({});
    view = await render(<MessageList backend={backend} />);
    await settle();
    const options = [...byTestId<HTMLSelectElement>(view.container, "filter-state").options].map((o) => o.textContent);
    expect(options).toContain("Reported delivered");
    expect(options.filter((o) => /delivered/i.test(o ?? "") && !/reported/i.test(o ?? ""))).toEqual([]);
  });
});

describe("message list paging", () => {
  it("follows the cursor across empty scan-limited pages, saying it is searching older messages", async () => {
    const p = paging({
      "": { items: [], next_cursor: "c1", scan_limited: true },
      c1: { items: [], next_cursor: "c2", scan_limited: true },
      c2: { items: [summary(5)], next_cursor: "c3", scan_limited: true },
      c3: { items: [summary(4), summary(3)], next_cursor: null, scan_limited: false },
    });
    p.hold("c1");
    view = await render(<MessageList backend={p.backend} />);
    await settle();
    const root = view.container;
    expect(byTestId(root, "messages-searching").textContent).toContain("Searching older messages…");
    expect(queryTestId(root, "messages-empty"), "an empty scan-limited page is not the end").toBeNull();
    await p.release("c1");
    await settle();
    expect(p.filters.map((f) => f.cursor)).toEqual([null, "c1", "c2"]);
    expect(ids(root)).toEqual(["5"]);
    expect(queryTestId(root, "messages-searching")).toBeNull();

    await click(byTestId(root, "messages-more"));
    await settle();
    expect(p.filters.at(-1)).toEqual({ ...FIRST_PAGE, cursor: "c3" });
    expect(ids(root)).toEqual(["5", "4", "3"]);
    expect(queryTestId(root, "messages-more"), "no more pages, no button").toBeNull();
    expect(byTestId(root, "messages-count").textContent).toBe("Showing 3.");
  });

  it("can stop a long search and continue it later from where it stopped", async () => {
    const p = paging({
      "": { items: [], next_cursor: "c1", scan_limited: true },
      c1: { items: [], next_cursor: "c2", scan_limited: true },
      c2: { items: [summary(1)], next_cursor: null, scan_limited: false },
    });
    p.hold("c1");
    view = await render(<MessageList backend={p.backend} />);
    await settle();
    const root = view.container;
    await click(byTestId(root, "messages-stop"));
    await p.release("c1");
    await settle();
    expect(p.filters.map((f) => f.cursor), "no page is asked after stopping").toEqual([null, "c1"]);
    expect(byTestId(root, "messages-empty")).not.toBeNull();
    await click(byTestId(root, "messages-more"));
    await settle();
    expect(p.filters.at(-1)?.cursor).toBe("c2");
    expect(ids(root)).toEqual(["1"]);
  });

  it("keeps the rows loaded with Load more when a change reloads the list", async () => {
    const pages: Record<string, MessagePage> = {
      "": { items: [summary(9), summary(8)], next_cursor: "c1", scan_limited: false },
      c1: { items: [summary(7)], next_cursor: null, scan_limited: false },
    };
    const p = paging(pages);
    view = await render(<MessageList backend={p.backend} />);
    await settle();
    await click(byTestId(view.container, "messages-more"));
    await settle();
    expect(ids(view.container)).toEqual(["9", "8", "7"]);

    pages[""] = { items: [summary(10), summary(9), summary(8), summary(7)], next_cursor: null, scan_limited: false };
    await settle(() => p.backend.emit({ entity: "message", id: 10 }), 300);
    expect(p.filters.at(-1), "one request for as many rows as are shown").toEqual({ ...FIRST_PAGE, limit: 50 });
    expect(ids(view.container)).toEqual(["10", "9", "8", "7"]);
  });
});

describe("message list: needs a look", () => {
  it("lists what needs a person, never a late or repeated receipt, which changed nothing", async () => {
    const { backend } = paging({
      "": {
        items: [
          summary(1, { flags: ["late", "repeat"] }),
          summary(2, { flags: ["repeat", "conflict"] }),
          summary(3, { flags: [] }),
        ],
        next_cursor: null,
        scan_limited: false,
      },
    });
    view = await render(<MessageList backend={backend} />);
    await settle();
    const flagsOf = (id: string) =>
      [...view!.container.querySelectorAll<HTMLElement>(`[data-testid="message-row"][data-id="${id}"] [data-testid="message-flags"] .badge`)].map(
        (b) => b.textContent,
      );
    expect(flagsOf("1"), "late and repeated receipts are facts in the evidence").toEqual([]);
    expect(flagsOf("2")).toEqual(["Conflict"]);
    expect(flagsOf("3")).toEqual([]);
  });
});

describe("scheduled messages", () => {
  it("a queued message scheduled ahead says for when, in the list and in its detail", async () => {
    const at = Date.now() + 3 * 86_400_000;
    const { backend } = paging({
      "": {
        items: [
          summary(2, { status: "queued", scheduled_at_ms: at }),
          summary(1, { status: "accepted", scheduled_at_ms: Date.now() - 60_000 }),
        ],
        next_cursor: null,
        scan_limited: false,
      },
    });
    view = await render(<MessageList backend={backend} />);
    await settle();
    const root = view.container;
    const row = (id: string) => root.querySelector<HTMLElement>(`[data-testid="message-row"][data-id="${id}"]`)!;
    const { formatDateTimeShort, formatDateTime } = createI18n(["en-US"]);
    expect(byTestId(row("2"), "message-scheduled").textContent?.trim()).toBe(`scheduled for ${formatDateTimeShort(at)}`);
    expect(queryTestId(row("1"), "message-scheduled"), "sent already: nothing scheduled to say").toBeNull();

    await view.unmount();
    const detail = deliveredDetail();
    const scheduled: MessageDetail = {
      ...detail,
      message: { ...detail.message, scheduled_at_ms: at },
      queue: { ...detail.queue, status: "queued", accepted_at_ms: null },
    };
    backend.message = () => Promise.resolve(scheduled);
    view = await render(<Detail backend={backend} id={7} onClose={() => {}} onOpenException={() => {}} />);
    await settle();
    expect(byTestId(view.container, "statement-queue-says").textContent).toBe(`Queued: scheduled for ${formatDateTime(at)}.`);
  });
});
