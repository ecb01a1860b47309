import { useEffect, useLayoutEffect, useRef, useSyncExternalStore } from "react";
import type { Backend } from "../backend";
import { browserStorage } from "../display/display";
import { formatRoute } from "../hooks/useHashRoute";
import { useI18n } from "../i18n/context";
import { notifierFor, watchAlerts, type NotePermission, type Notifier } from "./alertNotes";

/** Where this browser keeps whether its person wants alerts as notes ("on"; absent: not asked). */
export const NOTES_KEY = "smsdesk.alerts.notify";

/** What the toggle shows: the person's wish, and what the browser allows. */
export interface NotesState {
  readonly wanted: boolean;
  readonly permission: NotePermission;
}

/**
 * Whether this computer shows a note when an alert fires: the person's wish, kept in this
 * browser, and the permission the browser gives, asked for only when the person ticks the box.
 * The Alerts screen's toggle and the app's watcher share one, and follow each other.
 */
export class NotesChoice {
  readonly #notifier: Notifier;
  readonly #storage: Storage | null;
  readonly #listeners = new Set<() => void>();
  #state: NotesState;

  constructor(notifier: Notifier, storage: Storage | null) {
    this.#notifier = notifier;
    this.#storage = storage;
    this.#state = { wanted: this.#kept(), permission: notifier.permission() };
  }

  get notifier(): Notifier {
    return this.#notifier;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  readonly state = (): NotesState => this.#state;

  /** The person's choice; turning it on asks the browser first when it has not been asked. */
  async choose(wanted: boolean): Promise<void> {
    let permission = this.#notifier.permission();
    if (wanted && permission === "default") permission = await this.#notifier.request().catch(() => permission);
    this.#keep(wanted && permission === "granted");
    this.#state = { wanted: wanted && permission === "granted", permission };
    for (const listener of [...this.#listeners]) listener();
  }

  #kept(): boolean {
    try {
      return this.#storage?.getItem(NOTES_KEY) === "on";
    } catch {
      return false;
    }
  }

  #keep(wanted: boolean): void {
    try {
      if (wanted) this.#storage?.setItem(NOTES_KEY, "on");
      else this.#storage?.removeItem(NOTES_KEY);
    } catch {
      // Not kept: the choice holds until the page is left.
    }
  }
}

/** This page's choice; null where nothing can show a note (no Notification API). */
export function notesChoiceFor(host: Window): NotesChoice | null {
  const notifier = notifierFor(host);
  return notifier === null ? null : new NotesChoice(notifier, browserStorage(host));
}

/** The choice as it stands, re-read whenever it changes. */
export function useNotesState(choice: NotesChoice): NotesState {
  return useSyncExternalStore(choice.subscribe, choice.state, choice.state);
}

/** While notes are on, a note for each alert that fires, in the language in force; clicking one opens the Alerts screen. */
export function useAlertNotes(backend: Backend, choice: NotesChoice | null): void {
  const i18n = useI18n();
  const words = useRef(i18n);
  useLayoutEffect(() => {
    words.current = i18n;
  }, [i18n]);
  const state = useSyncExternalStore(choice?.subscribe ?? noSubscription, choice?.state ?? nothing, choice?.state ?? nothing);
  const on = choice !== null && state !== null && state.wanted && state.permission === "granted";
  useEffect(() => {
    if (!on || choice === null) return;
    const open = (): void => {
      window.focus();
      window.location.hash = formatRoute({ section: "alerts" });
    };
    return watchAlerts(backend, (note) => choice.notifier.show(note, open), () => words.current);
  }, [backend, choice, on]);
}

const noSubscription = (): (() => void) => () => {};
const nothing = (): null => null;
