// @vitest-environment happy-dom
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { LOCAL_ADMIN } from "../access/access";
import type { Me } from "../bindings/Me";
import type { MessageFilter } from "../bindings/MessageFilter";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { summary } from "../test/fixtures";
import { ANY_MESSAGE } from "./MessageFilters";
import { FIRST_PAGE, MessageList } from "./MessageList";
import { SavedFilters } from "./SavedFilters";
import { readSaved, savedFiltersKey, withoutSaved, withSaved, writeSaved } from "./savedFilters";

/** A Storage kept in a Map, as the browser's would be; `refuse` makes every write fail (a full or blocked storage). */
class MemoryStorage implements Storage {
  readonly items = new Map<string, string>();
  refuse = false;
  get length(): number {
    return this.items.size;
  }
  clear(): void {
    this.items.clear();
  }
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  key(index: number): string | null {
    return [...this.items.keys()][index] ?? null;
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
  setItem(key: string, value: string): void {
    if (this.refuse) throw new DOMException("full", "QuotaExceededError");
    this.items.set(key, value);
  }
}

const person = (actor: string): Me => ({ ...LOCAL_ADMIN, actor, kind: "person", role: "operator", admin: false });

async function choose(select: HTMLSelectElement, value: string): Promise<void> {
  await act(async () => {
    select.value = value;
    select.dispatchEvent(new Event("change", { bubbles: true }));
  });
}

function listing() {
  const backend = new FakeBackend();
  const filters: MessageFilter[] = [];
  backend.listMessages = (filter) => {
    filters.push(filter);
    return Promise.resolve({ items: [summary(1)], next_cursor: null, scan_limited: false });
  };
  return { backend, filters };
}

const saved = (root: HTMLElement): string[] =>
  [...root.querySelectorAll<HTMLElement>('[data-testid="saved-filter"]')].map((f) => f.dataset["name"] ?? "");

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
  window.localStorage.clear();
});

describe("saved filters", () => {
  it("save the filters applied under a name, apply them again in one click, and delete them", async () => {
    const { backend, filters } = listing();
    view = await render(<MessageList backend={backend} />, ["en-US"], person("Olga"));
    await settle();
    const root = view.container;
    expect(byTestId(root, "saved-filters-none")).not.toBeNull();

    await choose(byTestId<HTMLSelectElement>(root, "filter-status"), "failed");
    await choose(byTestId<HTMLSelectElement>(root, "filter-kind"), "otp");
    await click(byTestId(root, "saved-filter-save-open"));
    await type(byTestId<HTMLInputElement>(root, "saved-filter-name"), "  Failed codes ");
    await submit(byTestId<HTMLFormElement>(root, "saved-filter-form"));
    await settle();
    expect(saved(root)).toEqual(["Failed codes"]);
    expect(byTestId(root, "saved-filters-note").textContent).toBe("Saved as “Failed codes”.");
    const apply = byTestId(root, "saved-filter-apply");
    expect(apply.getAttribute("aria-current"), "the set applied now is marked").toBe("true");
    expect(apply.textContent).toBe("✓ Failed codes (applied)");

    await click(byTestId(root, "filter-clear"));
    await settle();
    expect(filters.at(-1)).toEqual(FIRST_PAGE);
    expect(byTestId(root, "saved-filter-apply").getAttribute("aria-current")).toBeNull();

    const asked = filters.length;
    await click(byTestId(root, "saved-filter-apply"));
    await settle();
    expect(filters.length, "one click, one search").toBe(asked + 1);
    expect(filters.at(-1)).toEqual({ ...FIRST_PAGE, status: "failed", kind: "otp" });
    expect(byTestId<HTMLSelectElement>(root, "filter-status").value, "the filters show what was applied").toBe("failed");
    expect(byTestId<HTMLSelectElement>(root, "filter-kind").value).toBe("otp");

    await click(byTestId(root, "saved-filter-delete"));
    await settle();
    expect(saved(root)).toEqual([]);
    expect(byTestId(root, "saved-filters-note").textContent).toBe("“Failed codes” deleted.");
    expect(readSaved(window.localStorage, savedFiltersKey(person("Olga")))).toEqual([]);
    expect(byTestId<HTMLSelectElement>(root, "filter-status").value, "deleting a set leaves the filters applied").toBe("failed");
  });

  it("are kept on this device for each account: the next visit has them, another person does not", async () => {
    const first = listing();
    view = await render(<MessageList backend={first.backend} />, ["en-US"], person("Olga"));
    await settle();
    await type(byTestId<HTMLInputElement>(view.container, "filter-destination"), "06 12 34 56 00");
    await submit(byTestId<HTMLFormElement>(view.container, "message-filters"));
    await settle();
    await click(byTestId(view.container, "saved-filter-save-open"));
    await type(byTestId<HTMLInputElement>(view.container, "saved-filter-name"), "Mme Martin");
    await submit(byTestId<HTMLFormElement>(view.container, "saved-filter-form"));
    await view.unmount();

    view = await render(<MessageList backend={listing().backend} />, ["en-US"], person("Olga"));
    await settle();
    expect(saved(view.container)).toEqual(["Mme Martin"]);
    await view.unmount();

    const other = listing();
    view = await render(<MessageList backend={other.backend} />, ["en-US"], person("Victor"));
    await settle();
    expect(saved(view.container), "another account's sets are not shown").toEqual([]);
  });

  it("have nothing to save before a filter is chosen, and say so when the device will not keep them", async () => {
    const { backend } = listing();
    view = await render(<MessageList backend={backend} />);
    await settle();
    const root = view.container;
    await click(byTestId(root, "saved-filter-save-open"));
    expect(queryTestId(root, "saved-filter-form")).toBeNull();
    expect(byTestId(root, "saved-filters-note").textContent).toBe("Choose filters first: with none chosen there is nothing to save.");
    await view.unmount();

    const refusing = new MemoryStorage();
    refusing.refuse = true;
    view = await render(<SavedFilters current={{ ...ANY_MESSAGE, status: "failed" }} onApply={() => {}} storage={refusing} />);
    await click(byTestId(view.container, "saved-filter-save-open"));
    await type(byTestId<HTMLInputElement>(view.container, "saved-filter-name"), "Failed");
    await submit(byTestId<HTMLFormElement>(view.container, "saved-filter-form"));
    expect(byTestId(view.container, "saved-filters-note").textContent).toBe("This browser does not let smsdesk keep saved filters.");
  });

  it("replace a set saved under the same name, whatever its case", async () => {
    const storage = new MemoryStorage();
    const key = savedFiltersKey(person("Olga"));
    const failed = { ...ANY_MESSAGE, status: "failed" as const };
    const otp = { ...ANY_MESSAGE, kind: "otp" as const };
    let list = withSaved([], "Daily", failed);
    list = withSaved(list, "Codes", otp);
    list = withSaved(list, " daily ", otp);
    expect(list).toEqual([
      { name: "daily", query: otp },
      { name: "Codes", query: otp },
    ]);
    expect(writeSaved(storage, key, list)).toBe(true);
    expect(readSaved(storage, key)).toEqual(list);
    expect(withoutSaved(list, "DAILY").map((f) => f.name)).toEqual(["Codes"]);
    storage.refuse = true;
    expect(writeSaved(storage, key, []), "a full or blocked storage is reported, not thrown").toBe(false);
    expect(writeSaved(null, key, []), "nor is a browser without one").toBe(false);
  });

  it("skip what cannot be read back (a hand-edited or older entry) and keep the rest", async () => {
    const storage = new MemoryStorage();
    const key = savedFiltersKey(person("Olga"));
    storage.setItem(
      key,
      JSON.stringify([{ name: "ok", query: { status: "failed" } }, { name: "", query: {} }, { name: "bad", query: { status: 3 } }, "junk"]),
    );
    expect(readSaved(storage, key)).toEqual([{ name: "ok", query: { ...ANY_MESSAGE, status: "failed" } }]);
    storage.setItem(key, "{not json");
    expect(readSaved(storage, key)).toEqual([]);
  });
});
