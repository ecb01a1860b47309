import { useCallback, useEffect, useState } from "react";
import { asBackendError, type Backend, type BackendError } from "../backend";
import type { ChangeEvent } from "../bindings/ChangeEvent";

export type DataState<T> =
  | { readonly status: "loading" }
  | { readonly status: "ready"; readonly data: T }
  | { readonly status: "error"; readonly error: BackendError };

export interface DataOptions {
  /**
   * Reload when a change this view shows is committed (and after every resync). Keep the same
   * function between renders (declare it at module level), or the view resubscribes each time.
   */
  readonly live?: (event: ChangeEvent) => boolean;
  /** Changes arriving within this window cause one reload, not one each. */
  readonly coalesceMs?: number;
  /** Also reload this long after each load ends, for what changes without a store change (the SMPP link). */
  readonly pollMs?: number;
}

/**
 * Loads what a view shows and, when `live` is given, keeps it current. The previous data stays
 * on screen while a reload runs; reloads never overlap, and one asked for while another is
 * running follows it. Give `load` the same identity between renders (module level or useCallback).
 */
export function useBackendData<T>(
  backend: Backend,
  load: (backend: Backend) => Promise<T>,
  options: DataOptions = {},
): { state: DataState<T>; reload: () => void } {
  const { live, coalesceMs = 150, pollMs } = options;
  const [state, setState] = useState<DataState<T>>({ status: "loading" });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let active = true;
    let running = false;
    let again = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let poll: ReturnType<typeof setTimeout> | undefined;

    const run = (): void => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      clearTimeout(poll);
      poll = undefined;
      load(backend)
        .then(
          (data) => {
            if (active) setState({ status: "ready", data });
          },
          (error: unknown) => {
            if (active) setState({ status: "error", error: asBackendError(error) });
          },
        )
        .finally(() => {
          running = false;
          if (active && again) {
            again = false;
            run();
          } else if (active && pollMs !== undefined) {
            poll = setTimeout(run, pollMs);
          }
        });
    };
    const soon = (): void => {
      if (timer !== undefined) return;
      timer = setTimeout(() => {
        timer = undefined;
        run();
      }, coalesceMs);
    };

    // A reload keeps what is shown until the new data arrives; only a first load or a retry after an error shows "loading".
    setState((current) => (current.status === "ready" ? current : { status: "loading" }));
    run();
    const onChange = (event: ChangeEvent): void => {
      if (live?.(event) === true) soon();
    };
    const unsubscribe = live ? backend.subscribe(onChange, soon) : undefined;
    return () => {
      active = false;
      clearTimeout(timer);
      clearTimeout(poll);
      unsubscribe?.();
    };
  }, [backend, load, live, coalesceMs, pollMs, attempt]);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return { state, reload };
}
