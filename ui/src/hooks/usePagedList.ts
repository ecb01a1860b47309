import { useCallback, useEffect, useRef, useState } from "react";
import { asBackendError, type Backend, type BackendError } from "../backend";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { MessageTotal } from "../bindings/MessageTotal";

/** A page as the engine's lists answer (MessagePage, ExceptionPage). */
export interface Page<T> {
  readonly items: T[];
  readonly next_cursor: string | null;
  /** The engine stopped at its scan budget: more may match past `next_cursor` even if this page is short or empty. */
  readonly scan_limited?: boolean;
  /** On a first page (no cursor), how many rows the filter selects in all, where the list counts them. */
  readonly total?: MessageTotal | null;
}

export type FetchPage<T> = (cursor: string | null, limit: number) => Promise<Page<T>>;

/** The engine's largest page. */
export const MAX_LIMIT = 500;

/**
 * Follows `next_cursor` from `start` until at least `want` rows came back or there is nothing
 * more: a page cut short by the engine's scan budget may hold few rows or none, and still not be
 * the end. `onSearching` is called before each page fetched only because the previous ones did not
 * give enough; `cancelled` is asked before each such page, and stops the search where it is (the
 * cursor returned continues it).
 */
export async function fetchUntilRows<T>(
  fetchPage: FetchPage<T>,
  start: string | null,
  limit: number,
  want: number,
  hooks: { onSearching?: () => void; cancelled?: () => boolean } = {},
): Promise<{ items: T[]; next_cursor: string | null; total: MessageTotal | null }> {
  const items: T[] = [];
  let cursor = start;
  let total: MessageTotal | null = null;
  for (let first = true; ; first = false) {
    if (!first) {
      if (hooks.cancelled?.() === true) break;
      hooks.onSearching?.();
    }
    const page = await fetchPage(cursor, limit);
    if (first && start === null) total = page.total ?? null;
    items.push(...page.items);
    cursor = page.next_cursor;
    if (cursor === null || items.length >= want) break;
  }
  return { items, next_cursor: cursor, total };
}

export interface PagedState<T> {
  /** "loading" until the first rows (or the end) came, "error" when that failed. */
  readonly status: "loading" | "ready" | "error";
  readonly items: readonly T[];
  readonly nextCursor: string | null;
  /** Following pages the engine cut short, none of which had rows yet: older messages are being searched. */
  readonly searching: boolean;
  readonly loadingMore: boolean;
  /** Why the last fetch failed (the first load, a "load more" or a refresh); rows already shown stay. */
  readonly error: BackendError | null;
  /** How many rows the filter selects, as the first page said (null when the list gives none). */
  readonly total: MessageTotal | null;
}

export interface PagedOptions {
  /** Changes when what is listed changes (the filter): the list starts again from the first page. */
  readonly key: string;
  /** Refresh the rows shown when such a change is committed (and after every resync). */
  readonly live?: (event: ChangeEvent) => boolean;
  readonly pageSize?: number;
  readonly coalesceMs?: number;
}

const EMPTY = { items: [], nextCursor: null, searching: false, loadingMore: false, error: null, total: null } as const;

/**
 * A list read page by page, newest first, with "load more", kept current: a committed change
 * re-reads as many rows as are shown (one request up to 500 rows), so rows loaded with "load
 * more" do not vanish. Fetches never overlap; they run one after another.
 */
export function usePagedList<T>(
  backend: Backend,
  fetchPage: FetchPage<T>,
  options: PagedOptions,
): { state: PagedState<T>; loadMore: () => void; stopSearching: () => void; retry: () => void } {
  const { key, live, pageSize = 50, coalesceMs = 150 } = options;
  const [state, setState] = useState<PagedState<T>>({ status: "loading", ...EMPTY });
  const [attempt, setAttempt] = useState(0);
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;
  const actions = useRef({ more: () => {}, stop: () => {} });

  useEffect(() => {
    let active = true;
    let chain: Promise<void> = Promise.resolve();
    let items: T[] = [];
    let cursor: string | null = null;
    let loaded = false;
    let stopRequested = false;
    let refreshQueued = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const fetch: FetchPage<T> = (c, l) => fetchRef.current(c, l);

    const run = (task: () => Promise<void>): void => {
      chain = chain.then(() => (active ? task() : undefined)).catch(() => {});
    };
    const show = (patch: Partial<PagedState<T>>): void => {
      if (active) setState((s) => ({ ...s, ...patch }));
    };
    const searching = {
      onSearching: () => show({ searching: true }),
      cancelled: () => stopRequested,
    };

    const first = async (): Promise<void> => {
      stopRequested = false;
      try {
        const r = await fetchUntilRows(fetch, null, pageSize, 1, searching);
        items = r.items;
        cursor = r.next_cursor;
        loaded = true;
        show({ status: "ready", items, nextCursor: cursor, searching: false, error: null, total: r.total });
      } catch (e) {
        show({ status: "error", searching: false, error: asBackendError(e) });
      }
    };
    const more = async (): Promise<void> => {
      if (cursor === null) return;
      stopRequested = false;
      show({ loadingMore: true, error: null });
      try {
        const r = await fetchUntilRows(fetch, cursor, pageSize, 1, searching);
        items = [...items, ...r.items];
        cursor = r.next_cursor;
        show({ items, nextCursor: cursor, loadingMore: false, searching: false });
      } catch (e) {
        show({ loadingMore: false, searching: false, error: asBackendError(e) });
      }
    };
    const refresh = async (): Promise<void> => {
      refreshQueued = false;
      if (!loaded) return first();
      const want = Math.max(items.length, 1);
      try {
        const r = await fetchUntilRows(fetch, null, Math.min(MAX_LIMIT, Math.max(pageSize, want)), want);
        items = r.items;
        cursor = r.next_cursor;
        show({ items, nextCursor: cursor, error: null, total: r.total });
      } catch (e) {
        show({ error: asBackendError(e) });
      }
    };
    const soon = (): void => {
      if (timer !== undefined || refreshQueued) return;
      timer = setTimeout(() => {
        timer = undefined;
        refreshQueued = true;
        run(refresh);
      }, coalesceMs);
    };

    setState({ status: "loading", ...EMPTY });
    run(first);
    actions.current = {
      more: () => run(more),
      stop: () => {
        stopRequested = true;
      },
    };
    const unsubscribe = live
      ? backend.subscribe((event) => {
          if (live(event)) soon();
        }, soon)
      : undefined;
    return () => {
      active = false;
      clearTimeout(timer);
      unsubscribe?.();
    };
  }, [backend, key, live, pageSize, coalesceMs, attempt]);

  const loadMore = useCallback(() => actions.current.more(), []);
  const stopSearching = useCallback(() => actions.current.stop(), []);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { state, loadMore, stopSearching, retry };
}
