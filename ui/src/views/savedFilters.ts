import type { Me } from "../bindings/Me";
import { ANY_MESSAGE, toMessageFilterKey, type MessageQuery } from "./MessageFilters";

/** A set of message filters kept under a name, re-applied in one click. */
export interface SavedFilter {
  readonly name: string;
  readonly query: MessageQuery;
}

/**
 * Where a person's saved filters are kept: this device's storage (the browser's, or the desktop
 * window's), under their account (a person's name, an API key's, or the desktop's own user), so
 * that two people who sign in on one browser each see their own. Nothing is sent to the engine.
 */
export function savedFiltersKey(me: Pick<Me, "kind" | "actor">): string {
  return `smsdesk.savedFilters.v1:${me.kind}:${me.actor}`;
}

/** The page's storage, or null where the browser refuses it (private modes, blocked cookies). */
export function deviceStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

const FIELDS = Object.keys(ANY_MESSAGE) as (keyof MessageQuery)[];

/** A stored query as a query, every field a string; null when it is not one (edited by hand, older). */
function queryOf(value: unknown): MessageQuery | null {
  if (typeof value !== "object" || value === null) return null;
  const record = value as Record<string, unknown>;
  const query: Record<string, string> = {};
  for (const field of FIELDS) {
    const v = record[field] ?? "";
    if (typeof v !== "string") return null;
    query[field] = v;
  }
  return query as unknown as MessageQuery;
}

/** The saved filters under `key`, in the order they were saved; what cannot be read is skipped. */
export function readSaved(storage: Storage | null, key: string): SavedFilter[] {
  let text: string | null = null;
  try {
    text = storage?.getItem(key) ?? null;
  } catch {
    return [];
  }
  if (text === null) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.flatMap((item: unknown) => {
    if (typeof item !== "object" || item === null) return [];
    const { name, query } = item as { name?: unknown; query?: unknown };
    const read = queryOf(query);
    return typeof name === "string" && name.trim() !== "" && read !== null ? [{ name: name.trim(), query: read }] : [];
  });
}

/** Keeps `list` under `key`; false when the storage refused it (none, full, or blocked). */
export function writeSaved(storage: Storage | null, key: string, list: readonly SavedFilter[]): boolean {
  if (storage === null) return false;
  try {
    storage.setItem(key, JSON.stringify(list));
    return true;
  } catch {
    return false;
  }
}

const sameName = (a: string, b: string): boolean => a.trim().toLocaleLowerCase() === b.trim().toLocaleLowerCase();

/** `list` with `query` saved as `name`: one saved under the same name (whatever its case) is replaced in place. */
export function withSaved(list: readonly SavedFilter[], name: string, query: MessageQuery): SavedFilter[] {
  const saved = { name: name.trim(), query };
  const at = list.findIndex((f) => sameName(f.name, name));
  return at < 0 ? [...list, saved] : list.map((f, i) => (i === at ? saved : f));
}

/** `list` without the filters saved as `name`. */
export function withoutSaved(list: readonly SavedFilter[], name: string): SavedFilter[] {
  return list.filter((f) => !sameName(f.name, name));
}

/** Whether a saved set is what is applied now (the same search, blanks and spaces aside). */
export function isApplied(saved: SavedFilter, current: MessageQuery): boolean {
  return toMessageFilterKey(saved.query) === toMessageFilterKey(current);
}
