// @vitest-environment happy-dom
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import type { MessageFilter } from "../bindings/MessageFilter";
import type { MessagePage } from "../bindings/MessagePage";
import type { MessageTotal } from "../bindings/MessageTotal";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import type { MessageDetail } from "../bindings/MessageDetail";
import { createI18n } from "../i18n/i18n";
import { queueReasonWords } from "../i18n/reasons/words";
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
      connection: null,
      route: null,
      country: null,
      sender: null,
      outcome: null,
      command_status: null,
      error_code: null,
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

describe("message list: the total", () => {
  /** A backend whose first page says `total` for any filter but `failed` (which has 3); later pages say none. */
  function counted(total: MessageTotal) {
    const backend = new FakeBackend();
    const filters: MessageFilter[] = [];
    backend.listMessages = (filter) => {
      filters.push(filter);
      if (filter.cursor !== null) return Promise.resolve({ items: [summary(1)], next_cursor: null, scan_limited: false, total: null });
      const mine = filter.status === "failed" ? { count: 3, bound: "exact" as const } : total;
      return Promise.resolve({ items: [summary(3), summary(2)], next_cursor: "c1", scan_limited: false, total: mine });
    };
    return { backend, filters };
  }
  const totalOf = (root: HTMLElement): string | null => byTestId(root, "messages-total").textContent;

  it("says how many messages the filters select, and follows the filters; a further page keeps it", async () => {
    const { backend } = counted({ count: 1234, bound: "exact" });
    view = await render(<MessageList backend={backend} />);
    await settle();
    const root = view.container;
    expect(totalOf(root)).toBe("1,234 messages");
    expect(byTestId(root, "messages-total").dataset["count"]).toBe("1234");
    expect(byTestId(root, "messages-count").textContent, "the footer still says how many are shown").toBe("Showing 2.");
    await click(byTestId(root, "messages-more"));
    await settle();
    expect(totalOf(root), "a page further on does not lose the total").toBe("1,234 messages");

    await choose(byTestId<HTMLSelectElement>(root, "filter-status"), "failed");
    await settle();
    expect(totalOf(root)).toBe("3 messages");
  });

  it("writes the count in the language's digits and plural form", async () => {
    const cases: [string[], number, string][] = [
      [["en-US"], 1, "1 message"],
      [["fr-FR"], 1234, "1\u202f234 messages"],
      [["fr-FR"], 1_000_000, "1\u202f000\u202f000 de messages"],
      [["ru-RU"], 1, "1 сообщение"],
      [["ru-RU"], 1234, "1\u00a0234 сообщения"],
      [["ru-RU"], 1235, "1\u00a0235 сообщений"],
    ];
    for (const [languages, count, said] of cases) {
      const { backend } = counted({ count, bound: "exact" });
      view = await render(<MessageList backend={backend} />, languages);
      await settle();
      expect(totalOf(view.container), `${languages[0]} ${count}`).toBe(said);
      await view.unmount();
      view = undefined;
    }
  });

  it("says so when the engine counted only so far: more than its cap, or at least what it found before it stopped", async () => {
    const more = counted({ count: 10_000, bound: "more_than" });
    view = await render(<MessageList backend={more.backend} />);
    await settle();
    expect(totalOf(view.container)).toBe("More than 10,000 messages");
    await view.unmount();

    const partial = counted({ count: 12, bound: "at_least" });
    view = await render(<MessageList backend={partial.backend} />, ["ru-RU"]);
    await settle();
    expect(totalOf(view.container)).toBe("Не менее 12 сообщений (подсчёт остановлен досрочно: уточните фильтры, чтобы получить точное число)");
    expect(byTestId(view.container, "messages-total").dataset["bound"]).toBe("at_least");
  });

  it("says nothing of a total the engine did not give", async () => {
    const { backend } = paging({ "": { items: [summary(1)], next_cursor: null, scan_limited: false } });
    view = await render(<MessageList backend={backend} />);
    await settle();
    expect(queryTestId(view.container, "messages-total")).toBeNull();
  });
});

describe("message list: fits its panel", () => {
  it("has five columns; the statuses and the creation time may wrap, the rest of a message is in its detail", async () => {
    const { backend } = paging({
      "": { items: [summary(1, { status: "accepted", state: "partially_delivered", flags: ["conflict", "no_receipt"] })], next_cursor: null, scan_limited: false },
    });
    view = await render(<MessageList backend={backend} />);
    await settle();
    const table = byTestId(view.container, "messages-table");
    const heads = [...table.querySelectorAll("th")].map((th) => th.textContent);
    expect(heads).toEqual(["No.", "Destination", "Text", "Queue and reported state", "Created"]);
    const row = byTestId(table, "message-row");
    expect(row.querySelectorAll("td")).toHaveLength(5);
    const statuses = row.querySelectorAll("td")[3]!;
    expect(statuses.className).toBe("statuses");
    expect(byTestId(statuses, "message-status").textContent).toBe("Accepted by the provider");
    expect(byTestId(statuses, "message-state").textContent).toBe("Partly delivered");
    expect([...byTestId(statuses, "message-flags").querySelectorAll(".badge")].map((b) => b.textContent)).toEqual([
      "Conflict",
      "No receipt by deadline",
    ]);
    // The day and the time are two unbreakable pieces with a space between: the cell wraps there, nowhere else.
    const created = row.querySelector("td.created time")!;
    const at = summary(1).created_at_ms;
    const { formatDateShort, formatAxisTime, formatDateTime } = createI18n(["en-US"]);
    expect([...created.querySelectorAll(".nowrap")].map((p) => p.textContent)).toEqual([formatDateShort(at), formatAxisTime(at)]);
    expect(created.getAttribute("title"), "the whole moment, with its zone, is in the tooltip").toBe(formatDateTime(at));
    expect(row.querySelector("td.nowrap"), "no cell is kept on one line whole").toBeNull();
  });
});

describe("message list: why a message failed or is held", () => {
  it("shows the reason under the state of a failed or held row, and none on the others", async () => {
    const reason = { code: "refused_permanent" as const, params: { status: "ESME_RINVDSTADR" } };
    // A row carrying the queue's reason (MessageSummary.reason, which the engine is to add).
    const failed = { ...summary(1, { status: "failed" }), reason };
    const { backend } = paging({
      "": { items: [failed, summary(2, { status: "held" }), summary(3, { status: "accepted", state: "delivered" })], next_cursor: null, scan_limited: false },
    });
    view = await render(<MessageList backend={backend} />);
    await settle();
    const rows = [...view.container.querySelectorAll<HTMLElement>('[data-testid="message-row"]')];
    const reasons = rows.map((r) => queryTestId(r, "message-reason")?.textContent ?? null);
    const { t } = createI18n(["en-US"]);
    const words = queueReasonWords({ ...deliveredDetail().queue, status: "failed", reason }, t);
    expect(reasons).toEqual([words === null ? null : `Why: ${words}`, "Why: its number is on the opt-out list", null]);
    const held = rows[1]!;
    expect(
      byTestId(held, "message-state").compareDocumentPosition(byTestId(held, "message-reason")) & Node.DOCUMENT_POSITION_FOLLOWING,
      "the reason comes after the state",
    ).toBeTruthy();
  });

  it("says it in French", async () => {
    const { backend } = paging({ "": { items: [summary(2, { status: "held" })], next_cursor: null, scan_limited: false } });
    view = await render(<MessageList backend={backend} />, ["fr-FR"]);
    await settle();
    expect(byTestId(view.container, "message-reason").textContent).toBe("Motif : son numéro est sur la liste d’opposition");
  });
});
