import type { ChangeEvent } from "../bindings/ChangeEvent";
import { BackendError, ERROR_CODES, isApiError, isChangeEvent } from "./backend";
import { SseParser, type SseEvent } from "./sse";

export interface EventStreamOptions<C> {
  /** The full URL of `GET /api/v1/events`. */
  readonly url: string;
  /**
   * Who the next connection is made as (the browser sends its session cookie itself; this names
   * the sign-in it belongs to); null ends the stream (signed out).
   */
  readonly credential: () => C | null;
  readonly onChange: (event: ChangeEvent) => void;
  /** The stream (re)connected or fell behind: changes may have been missed. */
  readonly onResync: () => void;
  /** The engine refused the connection made as `credential` (401): the stream ends. */
  readonly onUnauthorized: (credential: C, error: BackendError) => void;
  readonly fetch?: typeof fetch;
  /** The first wait after a failure; it doubles with each failure in a row, up to maxDelayMs. */
  readonly initialDelayMs?: number;
  readonly maxDelayMs?: number;
  /**
   * The server sends a comment every 15 s; nothing at all for this long means the connection is
   * dead without having been closed (a sleeping laptop, a dropped network), so reconnect.
   */
  readonly idleTimeoutMs?: number;
  readonly random?: () => number;
  /** Where an error thrown by onChange or onResync goes; by default it is rethrown on its own turn (uncaught, so it is seen). */
  readonly onListenerError?: (error: unknown) => void;
}

const DEFAULTS = { initialDelayMs: 1_000, maxDelayMs: 30_000, idleTimeoutMs: 45_000 };

/**
 * Follows the engine's server-sent events over fetch (EventSource cannot tell a refused session
 * from a dropped connection, nor notice a connection gone silent), reconnecting with exponential
 * backoff and jitter whenever the connection drops or fails. The session cookie goes with each
 * connection (same origin). Returns the function that ends it.
 */
export function openEventStream<C>(options: EventStreamOptions<C>): () => void {
  const stop = new AbortController();
  void follow(options, stop.signal);
  return () => stop.abort();
}

/**
 * How a connection ended: `final` when reconnecting would be refused or would only end another
 * stream (401 or 403, or the engine said a newer stream of this caller took this one's place).
 */
type Outcome = "ended" | "failed" | "unauthorized" | "final";

async function follow<C>(o: EventStreamOptions<C>, stopped: AbortSignal): Promise<void> {
  const initial = o.initialDelayMs ?? DEFAULTS.initialDelayMs;
  const max = o.maxDelayMs ?? DEFAULTS.maxDelayMs;
  const random = o.random ?? Math.random;
  let failures = 0;
  while (!stopped.aborted) {
    const credential = o.credential();
    if (credential === null) return;
    const outcome = await connect(o, credential, stopped, () => {
      failures = 0;
      safely(o.onResync, o);
    });
    if (stopped.aborted || outcome === "unauthorized" || outcome === "final") return;
    failures += 1;
    // Half fixed, half random: clients that lost the server together do not return together.
    const ceiling = Math.min(max, initial * 2 ** (failures - 1));
    await sleep(ceiling / 2 + (random() * ceiling) / 2, stopped);
  }
}

async function connect<C>(o: EventStreamOptions<C>, credential: C, stopped: AbortSignal, opened: () => void): Promise<Outcome> {
  const fetchFn = o.fetch ?? fetch;
  const idleMs = o.idleTimeoutMs ?? DEFAULTS.idleTimeoutMs;
  const attempt = new AbortController();
  const abort = (): void => attempt.abort();
  stopped.addEventListener("abort", abort);
  let idle: ReturnType<typeof setTimeout> | undefined;
  const alive = (): void => {
    clearTimeout(idle);
    idle = setTimeout(abort, idleMs);
  };
  try {
    alive();
    const response = await fetchFn(o.url, {
      method: "GET",
      headers: { Accept: "text/event-stream" },
      credentials: "same-origin",
      cache: "no-store",
      signal: attempt.signal,
    });
    if (response.status === 401) {
      const body: unknown = await response.json().catch(() => undefined);
      const refusal = isApiError(body)
        ? BackendError.from(body)
        : new BackendError(ERROR_CODES.unauthorized, "the session was refused");
      o.onUnauthorized(credential, refusal);
      return "unauthorized";
    }
    if (response.status === 403) {
      // A caller that may not read messages may not follow their changes: asking again will not help.
      await response.body?.cancel().catch(() => undefined);
      return "final";
    }
    const type = response.headers.get("content-type") ?? "";
    if (!response.ok || response.body === null || !type.startsWith("text/event-stream")) {
      await response.body?.cancel().catch(() => undefined);
      return "failed";
    }
    opened();
    let replaced = false;
    const parser = new SseParser((event) => {
      // The engine keeps a few streams per caller and ends the oldest: this tab's newer ones
      // go on, and reconnecting here would only end one of them.
      if (event.type === "replaced") replaced = true;
      else deliver(event, o);
    });
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      alive();
      parser.pushBytes(value);
    }
    parser.end();
    return replaced ? "final" : "ended";
  } catch {
    return "failed";
  } finally {
    clearTimeout(idle);
    stopped.removeEventListener("abort", abort);
  }
}

function deliver<C>(event: SseEvent, o: EventStreamOptions<C>): void {
  if (event.type === "resync") {
    safely(o.onResync, o);
    return;
  }
  if (event.type !== "change") return;
  const payload = parseJson(event.data);
  // Anything else is not ours to understand; a later resync covers it.
  if (isChangeEvent(payload)) safely(() => o.onChange(payload), o);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A failing listener is reported, but does not cost everyone the connection. */
function safely<C>(listener: () => void, o: EventStreamOptions<C>): void {
  try {
    listener();
  } catch (error) {
    const report =
      o.onListenerError ??
      ((e: unknown) =>
        setTimeout(() => {
          throw e;
        }));
    report(error);
  }
}

function sleep(ms: number, stopped: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      stopped.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stopped.addEventListener("abort", done);
  });
}
