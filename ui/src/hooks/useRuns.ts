import { useEffect, useMemo, useRef } from "react";

/**
 * Runs that supersede each other (a file chosen, then checked, then imported): an answer that
 * comes back once a later run began, or once the screen is gone, is dropped. Each call returns
 * `live`, true while its run is still the latest.
 */
export interface Runs {
  /** Begins a new run: every earlier one is over. */
  start(): () => boolean;
  /** Goes on with the latest run (a step after the one that began it). */
  current(): () => boolean;
  /** Ends the latest run without beginning one. */
  cancel(): void;
}

export function useRuns(): Runs {
  const run = useRef(0);
  useEffect(
    () => () => {
      run.current += 1;
    },
    [],
  );
  return useMemo(() => {
    const liveFrom = (id: number) => (): boolean => run.current === id;
    return {
      start: () => liveFrom(++run.current),
      current: () => liveFrom(run.current),
      cancel: () => {
        run.current += 1;
      },
    };
  }, []);
}
