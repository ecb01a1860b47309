import { useCallback, useEffect, useRef, useState } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { ChangeEvent } from "../../bindings/ChangeEvent";
import type { ThreadItem } from "../../bindings/ThreadItem";
import type { ThreadView } from "../../bindings/ThreadView";
import { MAX_LIMIT } from "../../hooks/usePagedList";

/** Lines per page of a conversation. */
export const LINES_PER_PAGE = 50;

export interface ConversationState {
  readonly status: "loading" | "ready" | "error";
  /** Every line loaded so far, oldest first, with the number's opt-out entry as of the last load. */
  readonly view: ThreadView | null;
  readonly loadingOlder: boolean;
  /** Why the last load failed (the first one, older lines, or a refresh); lines shown stay. */
  readonly error: BackendError | null;
}

/** When a line happened: a reply's arrival, a sent message's hand-in. */
export function lineTime(item: ThreadItem): number {
  return item.direction === "received" ? item.received_at_ms : item.created_at_ms;
}

/** A line's identity within a conversation (a reply and a sent message may share a number). */
export function lineKey(item: ThreadItem): string {
  return `${item.direction}:${item.id}`;
}

/** Changes that can alter a conversation: replies, the opt-out list, a new message, or one of the messages shown. */
export function concernsConversation(event: ChangeEvent, shown: ThreadView | null): boolean {
  switch (event.entity) {
    case "inbox_message":
    case "opt_out":
    case "message":
      return true;
    case "queue":
    case "projection":
      return shown === null || shown.items.some((i) => i.direction === "sent" && i.id === event.id);
    default:
      return false;
  }
}

/**
 * One conversation, its newest lines first loaded, older ones on demand, kept current: a change
 * re-reads as many of the newest lines as are shown (up to 500), so older lines loaded stay.
 * Loads never overlap.
 */
export function useConversation(
  backend: Backend,
  thread: string,
): { state: ConversationState; loadOlder: () => void; reload: () => void } {
  const [state, setState] = useState<ConversationState>({ status: "loading", view: null, loadingOlder: false, error: null });
  const [attempt, setAttempt] = useState(0);
  const actions = useRef({ older: () => {}, refresh: () => {} });

  useEffect(() => {
    let active = true;
    let chain: Promise<void> = Promise.resolve();
    let view: ThreadView | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = (task: () => Promise<void>): void => {
      chain = chain.then(() => (active ? task() : undefined)).catch(() => {});
    };
    const show = (next: Partial<ConversationState>): void => {
      if (active) setState((s) => ({ ...s, ...next }));
    };

    const newest = async (): Promise<void> => {
      const limit = Math.min(MAX_LIMIT, Math.max(LINES_PER_PAGE, view?.items.length ?? 0));
      try {
        view = await backend.thread({ thread, cursor: null, limit });
        show({ status: "ready", view, error: null });
      } catch (e) {
        const error = asBackendError(e);
        show(view === null ? { status: "error", error } : { error });
      }
    };
    const older = async (): Promise<void> => {
      const cursor = view?.next_cursor ?? null;
      if (view === null || cursor === null) return;
      show({ loadingOlder: true, error: null });
      try {
        const page = await backend.thread({ thread, cursor, limit: LINES_PER_PAGE });
        const seen = new Set(view.items.map(lineKey));
        view = { ...view, items: [...page.items.filter((i) => !seen.has(lineKey(i))), ...view.items], next_cursor: page.next_cursor };
        show({ view, loadingOlder: false });
      } catch (e) {
        show({ loadingOlder: false, error: asBackendError(e) });
      }
    };
    const soon = (): void => {
      if (timer !== undefined) return;
      timer = setTimeout(() => {
        timer = undefined;
        run(newest);
      }, 200);
    };

    setState({ status: "loading", view: null, loadingOlder: false, error: null });
    run(newest);
    actions.current = { older: () => run(older), refresh: () => run(newest) };
    const unsubscribe = backend.subscribe((event) => {
      if (concernsConversation(event, view)) soon();
    }, soon);
    return () => {
      active = false;
      clearTimeout(timer);
      unsubscribe();
    };
  }, [backend, thread, attempt]);

  const loadOlder = useCallback(() => actions.current.older(), []);
  const reload = useCallback(() => {
    if (state.status === "error") setAttempt((n) => n + 1);
    else actions.current.refresh();
  }, [state.status]);
  return { state, loadOlder, reload };
}
