import { invoke } from "@tauri-apps/api/core";
import type { Backend } from "../backend";
import type { ConnectionStatus } from "../bindings/ConnectionStatus";
import type { InboxMessage } from "../bindings/InboxMessage";
import type { I18n } from "../i18n/i18n";
import { linkWords } from "../views/Dashboard";
import { oneAtATime } from "./oneAtATime";

/**
 * What the desktop shell shows outside the window: the tray icon's status, and desktop
 * notifications. The words come from the UI's i18n layer; the shell only displays them
 * (src-tauri/src/commands.rs `desktop_status` and `notify`).
 */
export interface DesktopShell {
  setStatus(status: TrayStatus): Promise<void>;
  notify(note: DesktopNote): Promise<void>;
}

export interface TrayStatus {
  /** The tray icon's tooltip, one line. */
  readonly tooltip: string;
  /** The first line of the tray menu: the link, in words. */
  readonly summary: string;
  /** The menu's actions, in the operator's language. */
  readonly open: string;
  readonly quit: string;
}

export interface DesktopNote {
  readonly title: string;
  readonly body: string;
}

/** What the watcher last saw. */
export interface Observation {
  readonly connection: ConnectionStatus;
  /** The open conflict exceptions (two incompatible final receipts), newest first. */
  readonly conflicts: readonly Conflict[];
  readonly openExceptions: number;
}

export interface Conflict {
  readonly exception: number;
  /** The message both receipts were correlated to (a conflict always concerns one). */
  readonly message: number | null;
}

/** The link is polled this often; it is not a store change, so no event announces it. */
export const LINK_POLL_MS = 3_000;

export function tauriShell(invokeFn: typeof invoke = invoke): DesktopShell {
  return {
    setStatus: (status) =>
      invokeFn("desktop_status", { tooltip: status.tooltip, summary: status.summary, open: status.open, quit: status.quit }),
    notify: (note) => invokeFn("notify", { title: note.title, body: note.body }),
  };
}

export function trayStatus(o: Observation, i18n: I18n): TrayStatus {
  const summary = linkWords(o.connection, i18n);
  const exceptions =
    o.openExceptions === 0
      ? i18n.t("desktop.tray.noExceptions")
      : i18n.t("desktop.tray.exceptions", { count: i18n.formatNumber(o.openExceptions) });
  return {
    tooltip: `${i18n.t("app.name")}: ${summary} · ${exceptions}`,
    summary,
    open: i18n.t("desktop.tray.open"),
    quit: i18n.t("desktop.tray.quit"),
  };
}

const isUp = (c: ConnectionStatus): boolean => c.link.state === "bound";
const isLost = (c: ConnectionStatus): boolean => c.link.state === "down" || c.link.state === "bind_refused" || c.link.state === "connecting";

/**
 * The notifications a change from `before` to `now` deserves: the link lost (and back again
 * after a loss), and conflicts that were not open before. Nothing on the first observation:
 * what was already there when the window opened is on the dashboard, not news.
 */
export function notesFor(before: Observation | null, now: Observation, i18n: I18n): DesktopNote[] {
  if (before === null) return [];
  const { t } = i18n;
  const notes: DesktopNote[] = [];
  if (isUp(before.connection) && isLost(now.connection)) {
    notes.push({ title: t("desktop.note.linkLost"), body: linkWords(now.connection, i18n) });
  } else if (isLost(before.connection) && isUp(now.connection)) {
    notes.push({ title: t("desktop.note.linkBack"), body: linkWords(now.connection, i18n) });
  }
  // Exception ids only grow: anything above the newest seen was opened since.
  const newest = Math.max(0, ...before.conflicts.map((c) => c.exception));
  const fresh = now.conflicts.filter((c) => c.exception > newest);
  const only = fresh.length === 1 ? fresh[0] : undefined;
  if (only !== undefined && only.message !== null) {
    notes.push({ title: t("desktop.note.conflict"), body: t("desktop.note.conflict.one", { id: String(only.message) }) });
  } else if (fresh.length > 0) {
    notes.push({ title: t("desktop.note.conflict"), body: t("desktop.note.conflict.many", { count: i18n.formatNumber(fresh.length) }) });
  }
  return notes;
}

/** The newest reply nobody has read yet, or null when there is none. */
async function newestUnreadReply(backend: Backend): Promise<InboxMessage | null> {
  const page = await backend.listThreads({ q: null, unread: true, cursor: null, limit: 1 });
  return page.items[0]?.last ?? null;
}

/** Whether replies are to be announced (`inbox.notify`; announced when it cannot be read). */
async function repliesAnnounced(backend: Backend): Promise<boolean> {
  try {
    const view = await backend.settings();
    return view.fields.find((f) => f.key === "inbox.notify")?.value !== "false";
  } catch {
    return true;
  }
}

/** The notification for a reply: who sent it, and what it says. */
export function replyNote(reply: InboxMessage, i18n: I18n): DesktopNote {
  return { title: i18n.t("desktop.note.reply", { from: reply.phone ?? reply.handset }), body: reply.text };
}

async function observe(backend: Backend): Promise<Observation> {
  const [connection, conflicts, dashboard] = await Promise.all([
    backend.connection(),
    backend.listExceptions({ status: "open", kind: "conflicting_final", cursor: null, limit: 100 }),
    backend.dashboard(),
  ]);
  return {
    connection,
    conflicts: conflicts.items.map((e) => ({ exception: e.id, message: e.message_id })),
    openExceptions: dashboard.open_exceptions_total,
  };
}

/**
 * Keeps the tray's status current and raises notifications, until the returned function is
 * called. Looks again on every exception change, every reply, and every LINK_POLL_MS (a new
 * reply is announced unless `inbox.notify` is off), in the language `words` gives at that moment
 * (the operator may switch it); a failed look is skipped (the next one tells), and the shell being
 * unable to show something never stops it.
 */
export function watchDesktop(backend: Backend, shell: DesktopShell, words: () => I18n, pollMs: number = LINK_POLL_MS): () => void {
  let before: Observation | null = null;
  // The newest reply seen, by id (null before the first look: what was there is not news).
  let lastReply: number | null = null;
  let shownStatus = "";
  let stopped = false;

  const look = oneAtATime(
    async () => {
      const now = await observe(backend);
      if (stopped) return;
      const i18n = words();
      const status = trayStatus(now, i18n);
      if (status.tooltip !== shownStatus) {
        shownStatus = status.tooltip;
        await shell.setStatus(status).catch(() => {});
      }
      for (const note of notesFor(before, now, i18n)) await shell.notify(note).catch(() => {});
      before = now;
      const reply = await newestUnreadReply(backend).catch(() => undefined);
      if (reply !== undefined && !stopped) {
        if (lastReply !== null && reply !== null && reply.id > lastReply && (await repliesAnnounced(backend))) {
          await shell.notify(replyNote(reply, i18n)).catch(() => {});
        }
        lastReply = Math.max(lastReply ?? 0, reply?.id ?? 0);
      }
    },
    () => stopped,
  );

  void look();
  const timer = setInterval(() => void look(), pollMs);
  const unsubscribe = backend.subscribe(
    (event) => {
      if (event.entity === "exception" || event.entity === "inbox_message") void look();
    },
    () => void look(),
  );
  return () => {
    stopped = true;
    clearInterval(timer);
    unsubscribe();
  };
}
