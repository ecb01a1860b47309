import type { Backend } from "../backend";
import { isTauri } from "../backend/select";
import type { AlertView } from "../bindings/AlertView";
import { alertSince, alertTitle } from "../i18n/alerts/words";
import type { I18n } from "../i18n/i18n";
import { tauriShell, type DesktopNote, type DesktopShell } from "./desktop";
import { oneAtATime } from "./oneAtATime";

/** Whether notes may be shown here, as the Web Notification API says it. */
export type NotePermission = "granted" | "denied" | "default";

/** Where a note about an alert is shown: the browser's notifications, or the window's shell. */
export interface Notifier {
  permission(): NotePermission;
  /** Asks to show notes (only ever on a person's gesture); what was answered. */
  request(): Promise<NotePermission>;
  /** Shows `note`; `onOpen` when the person clicks it. */
  show(note: DesktopNote, onOpen: () => void): void;
}

/** The part of `window` the browser's notifications live on. */
export interface NotificationHost {
  readonly Notification?: typeof Notification;
}

/** The browser's notifications; null where the API is missing. */
export function webNotifier(host: NotificationHost): Notifier | null {
  const Api = host.Notification;
  if (Api === undefined) return null;
  return {
    permission: () => Api.permission,
    request: () => Api.requestPermission(),
    show(note, onOpen) {
      try {
        const shown = new Api(note.title, { body: note.body });
        shown.onclick = onOpen;
      } catch {
        // A browser that shows notifications only from a service worker: nothing is shown.
      }
    },
  };
}

/** The window's shell shows notes itself (the desktop's notification service), asking no one. */
export function shellNotifier(shell: DesktopShell): Notifier {
  return {
    permission: () => "granted",
    request: () => Promise.resolve("granted"),
    show: (note) => void shell.notify(note).catch(() => {}),
  };
}

/** The notifier of this page: the shell's in the window, else the browser's (null without one). */
export function notifierFor(host: object & NotificationHost): Notifier | null {
  return isTauri(host) ? shellNotifier(tauriShell()) : webNotifier(host);
}

/**
 * The alerts worth a note: open, acknowledged by nobody, and not among those `seen` before. None
 * on the first look (`seen` null): what fired before the page opened is on the screen, not news.
 */
export function freshAlerts(seen: ReadonlySet<number> | null, alerts: readonly AlertView[]): AlertView[] {
  if (seen === null) return [];
  return alerts.filter((a) => a.resolvedAtMs === null && a.acknowledgedAtMs === null && !seen.has(a.id));
}

/** A note about an alert: its title, since when, and where to acknowledge it. */
export function alertNote(alert: AlertView, i18n: I18n): DesktopNote {
  const { t, formatDateTime } = i18n;
  return {
    title: t("alerts.note.title", { title: alertTitle(alert.rule, alert.subject, t) }),
    body: t("alerts.note.body", { time: formatDateTime(alertSince(alert)) }),
  };
}

/**
 * Shows a note for each alert that fires from now on, until the returned function is called:
 * looks at the alerts on every change to one (and after a resync), in the language `words`
 * gives at that moment. A look that fails is skipped; the next change looks again.
 */
export function watchAlerts(backend: Backend, show: (note: DesktopNote) => void, words: () => I18n): () => void {
  let seen: Set<number> | null = null;
  let stopped = false;

  const look = oneAtATime(
    async () => {
      const { alerts } = await backend.alerts();
      if (stopped) return;
      for (const alert of freshAlerts(seen, alerts)) show(alertNote(alert, words()));
      seen = new Set([...(seen ?? []), ...alerts.map((a) => a.id)]);
    },
    () => stopped,
  );

  void look();
  const unsubscribe = backend.subscribe(
    (event) => {
      if (event.entity === "alert") void look();
    },
    () => void look(),
  );
  return () => {
    stopped = true;
    unsubscribe();
  };
}
