import { describe, expect, it } from "vitest";
import { fetchUntilRows, type Page } from "./usePagedList";

function pages(map: Record<string, Page<number>>) {
  const asked: (string | null)[] = [];
  const fetch = (cursor: string | null, limit: number): Promise<Page<number>> => {
    asked.push(cursor);
    expect(limit).toBe(50);
    return Promise.resolve(map[cursor ?? ""] ?? { items: [], next_cursor: null });
  };
  return { asked, fetch };
}

describe("fetchUntilRows", () => {
  it("keeps following the cursor while pages cut short by the scan budget come back empty", async () => {
    const p = pages({
      "": { items: [], next_cursor: "a", scan_limited: true },
      a: { items: [], next_cursor: "b", scan_limited: true },
      b: { items: [3], next_cursor: "c", scan_limited: true },
    });
    let searching = 0;
    const r = await fetchUntilRows(p.fetch, null, 50, 1, { onSearching: () => searching++ });
    expect(r).toEqual({ items: [3], next_cursor: "c", total: null });
    expect(p.asked).toEqual([null, "a", "b"]);
    expect(searching, "each page fetched only because the previous gave nothing is announced").toBe(2);
  });

  it("stops at the end, even with no rows", async () => {
    const p = pages({ "": { items: [], next_cursor: null, scan_limited: true } });
    expect(await fetchUntilRows(p.fetch, null, 50, 1)).toEqual({ items: [], next_cursor: null, total: null });
    expect(p.asked).toEqual([null]);
  });

  it("gathers at least `want` rows when asked for more than a page", async () => {
    const p = pages({
      "": { items: [9, 8], next_cursor: "a", scan_limited: true },
      a: { items: [7, 6], next_cursor: "b" },
      b: { items: [5], next_cursor: null },
    });
    expect(await fetchUntilRows(p.fetch, null, 50, 3)).toEqual({ items: [9, 8, 7, 6], next_cursor: "b", total: null });
  });

  it("stops when cancelled, returning the cursor that continues the search", async () => {
    const p = pages({
      "": { items: [], next_cursor: "a", scan_limited: true },
      a: { items: [], next_cursor: "b", scan_limited: true },
    });
    let calls = 0;
    const r = await fetchUntilRows(p.fetch, null, 50, 1, { cancelled: () => ++calls > 1 });
    expect(r).toEqual({ items: [], next_cursor: "b", total: null });
    expect(p.asked).toEqual([null, "a"]);
  });

  it("keeps the total of the first page, which only a search from the start is given", async () => {
    const total = { count: 1234, bound: "exact" as const };
    const p = pages({
      "": { items: [], next_cursor: "a", scan_limited: true, total },
      a: { items: [5], next_cursor: null, total: null },
    });
    expect(await fetchUntilRows(p.fetch, null, 50, 1)).toEqual({ items: [5], next_cursor: null, total });
    expect((await fetchUntilRows(p.fetch, "a", 50, 1)).total, "a page further on says nothing of the total").toBeNull();
  });
});
