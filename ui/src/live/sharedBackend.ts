import type { Backend } from "../backend";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import { OPERATIONS, type Operations } from "../bindings/operations";

interface Listener {
  readonly onChange: (event: ChangeEvent) => void;
  readonly onResync: () => void;
}

/**
 * The same backend, with every `subscribe` served by one underlying subscription. Over HTTP each
 * subscription is an event stream of its own, and a browser keeps only a few connections per
 * server: a screen showing a list, a detail and a count must not spend three of them.
 *
 * The stream closes as soon as its last listener leaves (the app's navigation keeps one while it
 * is shown, so views coming and going do not reconnect it). A listener that joins a stream
 * already live is told to resync once (it may have missed changes committed before it joined),
 * as a fresh subscription would be.
 */
export function shareSubscription(inner: Backend): Backend {
  const listeners = new Set<Listener>();
  let unsubscribe: (() => void) | null = null;
  let live = false;

  const open = (): void => {
    live = false;
    unsubscribe = inner.subscribe(
      (event) => {
        for (const l of [...listeners]) l.onChange(event);
      },
      () => {
        live = true;
        for (const l of [...listeners]) l.onResync();
      },
    );
  };

  return {
    ...forwarded(inner),
    exportMessages: (filter, options) => inner.exportMessages(filter, options),
    saveOptOuts: () => inner.saveOptOuts(),
    saveCsv: (text, name) => inner.saveCsv(text, name),
    // Only where the transport saves JSON (a browser): a screen offers it when it is there.
    ...(inner.saveJson === undefined ? {} : { saveJson: (text: string, name: string) => inner.saveJson!(text, name) }),
    subscribe(onChange, onResync) {
      const listener: Listener = { onChange, onResync };
      listeners.add(listener);
      if (unsubscribe === null) {
        open();
      } else if (live) {
        queueMicrotask(() => {
          if (listeners.has(listener)) listener.onResync();
        });
      }
      return () => {
        if (!listeners.delete(listener)) return;
        if (listeners.size === 0 && unsubscribe !== null) {
          const close = unsubscribe;
          unsubscribe = null;
          live = false;
          close();
        }
      };
    },
  };
}

/**
 * Every operation of the catalogue (`OPERATIONS`, generated), handed to `inner` as called: a new
 * operation is forwarded without a line here. Each is looked up when called, so the operation
 * runs as `inner` has it then.
 */
function forwarded(inner: Backend): Operations {
  const methods = Object.keys(OPERATIONS).map((name) => [
    name,
    (...args: unknown[]): Promise<unknown> =>
      (inner[name as keyof Operations] as (...a: unknown[]) => Promise<unknown>).apply(inner, args),
  ]);
  // Each method takes the arguments its operation does and answers what `inner` answers.
  return Object.fromEntries(methods) as unknown as Operations;
}
