import { useCallback, useSyncExternalStore } from "react";
import type { ExceptionKind } from "../bindings/ExceptionKind";
import { EXCEPTION_KINDS } from "../views/labels";

/**
 * Where the operator is, kept in the URL's fragment (`#/messages/12`) so that a message or an
 * exception can be linked to, reloaded, and left with the Back button, in the window and in a
 * browser alike (the fragment never reaches a server).
 */
export type Route =
  | { readonly section: "dashboard" }
  /**
   * The list, or a message open over it; `query` (after `?`) narrows the list as a report's figure
   * did (`#/messages?connection=primary&outcome=failed,expired`), kept while a message is open.
   */
  | { readonly section: "messages"; readonly id: number | null; readonly query?: string }
  /** Delivery reports; `query` (after `?`) holds the period and breakdown (`#/reports?period=7d&by=connection`). */
  | { readonly section: "reports"; readonly query?: string }
  /** Writing one message (`#/messages/new`): a place of the Messages section, not in the navigation. */
  | { readonly section: "compose" }
  /** Importing messages from a CSV file (`#/messages/import`): likewise. */
  | { readonly section: "import" }
  /** The exception queue, or one exception; `kind` (`#/exceptions?kind=unusual_volume`) narrows the queue to one kind. */
  | { readonly section: "exceptions"; readonly id: number | null; readonly kind?: ExceptionKind }
  /** What fires now, what fired before, the rules and the channels (`#/alerts`). */
  | { readonly section: "alerts" }
  /** What the guardrails against SMS pumping refused and held, the spend and its report (`#/guardrails`). */
  | { readonly section: "guardrails" }
  /** The inbox, with one conversation open: its thread (a number in E.164, or a sender's address). */
  | { readonly section: "inbox"; readonly thread: string | null }
  | { readonly section: "optouts" }
  | { readonly section: "audit" }
  | { readonly section: "keys" }
  /** Settings; `connect` opens the step-by-step guide to connecting a provider (`#/settings/connect`). */
  | { readonly section: "settings"; readonly connect?: true }
  | { readonly section: "accounts" }
  /** Personal data: retention, the latest removals, access to and erasure of a number (`#/privacy`). */
  | { readonly section: "privacy" }
  | { readonly section: "about" }
  /** The signed-in person's own password (from the user menu; not in the navigation). */
  | { readonly section: "password" };

export type Section = Route["section"];

/** A section the navigation lists. */
export type NavSection = Exclude<Section, "password" | "compose" | "import">;

/** The places of the Messages section: the list, writing one message, importing a file. */
export type MessagesPlace = "list" | "compose" | "import";

/** The Messages section's place a route is, or null for a route elsewhere. */
export function messagesPlaceOf(route: Route): MessagesPlace | null {
  switch (route.section) {
    case "messages":
      return "list";
    case "compose":
    case "import":
      return route.section;
    default:
      return null;
  }
}

/** Where one of the Messages section's places is (the list with nothing open). */
export function messagesPlaceRoute(place: MessagesPlace): Route {
  return place === "list" ? { section: "messages", id: null } : { section: place };
}

/** The navigation's entry a section belongs to: compose and import are Messages; null when none. */
export function navSectionOf(section: Section): NavSection | null {
  switch (section) {
    case "compose":
    case "import":
      return "messages";
    case "password":
      return null;
    default:
      return section;
  }
}

/** The navigation's sections, in its order. */
export const SECTIONS: readonly NavSection[] = [
  "dashboard",
  "reports",
  "messages",
  "inbox",
  "exceptions",
  "alerts",
  "guardrails",
  "optouts",
  "audit",
  "settings",
  "keys",
  "accounts",
  "privacy",
  "about",
];

/** Sections only an admin has. */
export const ADMIN_SECTIONS: ReadonlySet<Section> = new Set<Section>(["settings", "keys", "accounts", "privacy"]);

/** Sections for those who may read everything (not a key that reads only its own messages). */
export const READ_ALL_SECTIONS: ReadonlySet<Section> = new Set<Section>(["reports", "inbox", "optouts", "alerts", "guardrails"]);

/** Where a section's entry in the navigation leads: the section itself, nothing open in it. */
export function sectionRoute(section: NavSection): Route {
  switch (section) {
    case "messages":
    case "exceptions":
      return { section, id: null };
    case "inbox":
      return { section, thread: null };
    default:
      return { section };
  }
}

export const HOME: Route = { section: "messages", id: null };

function idOf(part: string | undefined): number | null {
  if (part === undefined || !/^[1-9][0-9]{0,15}$/.test(part)) return null;
  return Number(part);
}

/** What follows `?` in a fragment, kept only when there is something. */
function withQuery<R extends Route>(route: R, query: string): R {
  return query === "" ? route : { ...route, query };
}

/** Reads a fragment; anything unknown is the home screen. */
export function parseRoute(hash: string): Route {
  const whole = hash.replace(/^#\/?/, "");
  const at = whole.indexOf("?");
  // Only the list and reports read what follows `?` (the compose form's copy link reads its own).
  const [path, query] = at < 0 ? [whole, ""] : [whole.slice(0, at), whole.slice(at + 1)];
  const [section, id] = path.split("/");
  switch (section) {
    case "messages":
      if (id === "new") return { section: "compose" };
      if (id === "import") return { section: "import" };
      return withQuery({ section, id: idOf(id) }, query);
    case "reports":
      return withQuery({ section }, query);
    case "exceptions": {
      const kind = new URLSearchParams(query).get("kind") ?? "";
      const known = (EXCEPTION_KINDS as readonly string[]).includes(kind) ? (kind as ExceptionKind) : null;
      return known === null || idOf(id) !== null ? { section, id: idOf(id) } : { section, id: null, kind: known };
    }
    case "inbox":
      return { section, thread: threadOf(path.slice("inbox/".length)) };
    case "opt-outs":
      return { section: "optouts" };
    case "settings":
      return id === "connect" ? { section, connect: true } : { section };
    case "dashboard":
    case "alerts":
    case "guardrails":
    case "audit":
    case "keys":
    case "accounts":
    case "privacy":
    case "about":
    case "password":
      return { section };
    default:
      return HOME;
  }
}

/** A thread as written in the address (encoded, so that `+` and `/` survive); null when absent or unreadable. */
function threadOf(part: string): string | null {
  if (part === "") return null;
  try {
    const thread = decodeURIComponent(part);
    return thread.trim() === "" ? null : thread;
  } catch {
    return null;
  }
}

export function formatRoute(route: Route): string {
  if (route.section === "messages") {
    const query = route.query === undefined || route.query === "" ? "" : `?${route.query}`;
    return `${route.id === null ? "#/messages" : `#/messages/${route.id}`}${query}`;
  }
  if (route.section === "reports") {
    return route.query === undefined || route.query === "" ? "#/reports" : `#/reports?${route.query}`;
  }
  if (route.section === "exceptions" && route.id !== null) {
    return `#/${route.section}/${route.id}`;
  }
  if (route.section === "exceptions" && route.kind !== undefined) {
    return `#/exceptions?kind=${route.kind}`;
  }
  if (route.section === "inbox") {
    return route.thread === null ? "#/inbox" : `#/inbox/${encodeURIComponent(route.thread)}`;
  }
  if (route.section === "optouts") return "#/opt-outs";
  if (route.section === "settings" && route.connect === true) return "#/settings/connect";
  if (route.section === "compose") return "#/messages/new";
  if (route.section === "import") return "#/messages/import";
  return `#/${route.section}`;
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener("hashchange", onChange);
  return () => window.removeEventListener("hashchange", onChange);
}

const currentHash = (): string => window.location.hash;

/** The current route, and a way to go somewhere (a new history entry, so Back returns). */
export function useHashRoute(): [Route, (route: Route) => void] {
  const hash = useSyncExternalStore(subscribe, currentHash, () => "");
  const navigate = useCallback((route: Route) => {
    const next = formatRoute(route);
    if (window.location.hash !== next) window.location.hash = next;
  }, []);
  return [parseRoute(hash), navigate];
}
