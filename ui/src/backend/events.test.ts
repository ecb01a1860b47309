import { afterEach, describe, expect, it, vi } from "vitest";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { BackendError } from "./backend";
import { openEventStream, type EventStreamOptions } from "./events";

type Responder = (init: RequestInit) => Response | Promise<Response>;

/** A fetch answering from a script, one responder per connection (the last one repeats). */
function scriptedFetch(responders: Responder[]) {
  const calls: { url: string; headers: Record<string, string>; credentials: RequestCredentials | undefined }[] = [];
  const fn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    calls.push({ url: String(input), headers: { ...(init?.headers as Record<string, string>) }, credentials: init?.credentials });
    const responder = responders[Math.min(calls.length - 1, responders.length - 1)];
    if (!responder) throw new Error("no responder");
    return responder(init ?? {});
  }) as typeof fetch;
  return { fetch: fn, calls };
}

/** An event stream that sends `chunks`, then ends; or, with `open`, stays open until aborted. */
function stream(chunks: string[], { open = false } = {}): Responder {
  return (init) => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        if (!open) controller.close();
        init.signal?.addEventListener("abort", () => controller.error(new DOMException("aborted", "AbortError")));
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
}

const refused: Responder = () =>
  new Response(JSON.stringify({ code: "unauthorized", message: "the session ended: sign in again" }), {
    status: 401,
    headers: { "content-type": "application/json" },
  });

const networkDown: Responder = () => Promise.reject(new TypeError("fetch failed"));

function recorder() {
  const seen: (ChangeEvent | "resync")[] = [];
  const refusals: [number, BackendError][] = [];
  const options = {
    url: "http://engine/api/v1/events",
    // The sign-in the stream is opened under (a session's ticket).
    credential: (): number | null => 7,
    onChange: (e: ChangeEvent) => seen.push(e),
    onResync: () => seen.push("resync"),
    onUnauthorized: (ticket: number, error: BackendError) => refusals.push([ticket, error]),
    random: () => 1,
  } satisfies Partial<EventStreamOptions<number>>;
  return { seen, refusals, options };
}

async function until(condition: () => boolean, ms = 2_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe("openEventStream", () => {
  it("delivers change events, the session cookie going with the request (same origin, no Authorization header), and skips what it cannot read", async () => {
    const { fetch, calls } = scriptedFetch([
      stream(
        [
          ": keep-alive\n\n",
          'event: change\ndata: {"entity":"message","id":1}\n\n',
          "event: change\ndata: not json\n\n",
          'event: change\ndata: {"entity":"message"}\n\n',
          'event: change\ndata: {"entity":"hologram","id":1}\n\n',
          'event: other\ndata: {"entity":"message","id":2}\n\n',
          'data: {"entity":"message","id":3}\n\n',
          'event: change\ndata: {"entity":"projection","id":1}\n\n',
        ],
        { open: true },
      ),
    ]);
    const { seen, options } = recorder();
    const stop = openEventStream({ ...options, fetch });
    await until(() => seen.length === 3);
    stop();
    expect(seen).toEqual(["resync", { entity: "message", id: 1 }, { entity: "projection", id: 1 }]);
    expect(calls).toEqual([
      {
        url: "http://engine/api/v1/events",
        headers: { Accept: "text/event-stream" },
        credentials: "same-origin",
      },
    ]);
  });

  it("passes the engine's resync event on", async () => {
    const { fetch } = scriptedFetch([stream(["event: resync\ndata: 12\n\n"], { open: true })]);
    const { seen, options } = recorder();
    const stop = openEventStream({ ...options, fetch });
    await until(() => seen.length === 2);
    stop();
    expect(seen).toEqual(["resync", "resync"]);
  });

  it("reconnects when the stream ends, and resyncs, since changes may have been missed meanwhile", async () => {
    const { fetch, calls } = scriptedFetch([
      stream(['event: change\ndata: {"entity":"message","id":1}\n\n']),
      stream(['event: change\ndata: {"entity":"message","id":2}\n\n'], { open: true }),
    ]);
    const { seen, options } = recorder();
    const stop = openEventStream({ ...options, fetch, initialDelayMs: 5 });
    await until(() => seen.length === 4);
    stop();
    expect(seen).toEqual(["resync", { entity: "message", id: 1 }, "resync", { entity: "message", id: 2 }]);
    expect(calls).toHaveLength(2);
  });

  it("waits longer after each failure in a row, up to the maximum", async () => {
    vi.useFakeTimers();
    const { fetch, calls } = scriptedFetch([networkDown]);
    const { options } = recorder();
    const stop = openEventStream({ ...options, fetch, initialDelayMs: 100, maxDelayMs: 500 });
    const connectionsAfter = async (ms: number): Promise<number> => {
      await vi.advanceTimersByTimeAsync(ms);
      return calls.length;
    };
    expect(await connectionsAfter(0)).toBe(1);
    expect(await connectionsAfter(99)).toBe(1);
    expect(await connectionsAfter(1)).toBe(2); // waited 100
    expect(await connectionsAfter(199)).toBe(2);
    expect(await connectionsAfter(1)).toBe(3); // waited 200
    expect(await connectionsAfter(400)).toBe(4); // waited 400
    expect(await connectionsAfter(499)).toBe(4);
    expect(await connectionsAfter(1)).toBe(5); // capped at 500
    expect(await connectionsAfter(500)).toBe(6);
    stop();
    expect(await connectionsAfter(10_000), "a stopped stream must not reconnect").toBe(6);
  });

  it("spreads reconnections with jitter: between half the delay and the whole of it", async () => {
    vi.useFakeTimers();
    const { fetch, calls } = scriptedFetch([networkDown]);
    const { options } = recorder();
    const stop = openEventStream({ ...options, fetch, initialDelayMs: 100, random: () => 0 });
    await vi.advanceTimersByTimeAsync(49);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    stop();
  });

  it("starts again from the shortest wait once a connection succeeded", async () => {
    vi.useFakeTimers();
    const { fetch, calls } = scriptedFetch([networkDown, networkDown, networkDown, stream([]), networkDown]);
    const { options } = recorder();
    const stop = openEventStream({ ...options, fetch, initialDelayMs: 100, maxDelayMs: 10_000 });
    await vi.advanceTimersByTimeAsync(100 + 200 + 400);
    expect(calls).toHaveLength(4); // the fourth connected, then ended
    await vi.advanceTimersByTimeAsync(100);
    expect(calls, "after a good connection the wait is the shortest again").toHaveLength(5);
    stop();
  });

  it("retries an answer that is not an event stream", async () => {
    const html: Responder = () => new Response("<!doctype html>", { headers: { "content-type": "text/html" } });
    const { fetch, calls } = scriptedFetch([html, stream([], { open: true })]);
    const { seen, options } = recorder();
    const stop = openEventStream({ ...options, fetch, initialDelayMs: 5 });
    await until(() => seen.length === 1);
    stop();
    expect(calls).toHaveLength(2);
  });

  it("stops for good when the engine refuses the session, and says so with the engine's message and the sign-in it was opened under", async () => {
    const { fetch, calls } = scriptedFetch([refused]);
    const { seen, refusals, options } = recorder();
    openEventStream({ ...options, fetch, initialDelayMs: 1 });
    await until(() => refusals.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(calls, "a refused session must not be tried again").toHaveLength(1);
    expect(seen).toEqual([]);
    expect(refusals[0]?.[0]).toBe(7);
    expect(refusals[0]?.[1]).toMatchObject({ code: "unauthorized", message: "the session ended: sign in again" });
  });

  it("ends for good, without reconnecting, when a newer stream of the same caller took its place", async () => {
    const { fetch, calls } = scriptedFetch([
      stream(['event: change\ndata: {"entity":"message","id":1}\n\n', "event: replaced\ndata: a newer stream took this one's place\n\n"]),
      stream([], { open: true }),
    ]);
    const { seen, options } = recorder();
    openEventStream({ ...options, fetch, initialDelayMs: 1 });
    await until(() => seen.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(calls, "reconnecting would only end another of the caller's streams").toHaveLength(1);
    expect(seen).toEqual(["resync", { entity: "message", id: 1 }]);
  });

  it("ends for good when the caller may not read messages (403)", async () => {
    const forbidden: Responder = () =>
      new Response(JSON.stringify({ code: "forbidden", message: "`events` needs the `read:own` or `read:all` scope" }), {
        status: 403,
        headers: { "content-type": "application/json" },
      });
    const { fetch, calls } = scriptedFetch([forbidden]);
    const { seen, refusals, options } = recorder();
    openEventStream({ ...options, fetch, initialDelayMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(calls, "asking again would be refused again").toHaveLength(1);
    expect(seen).toEqual([]);
    expect(refusals, "the session itself is fine: nobody is signed out").toEqual([]);
  });

  it("does not connect when signed out", async () => {
    const { fetch, calls } = scriptedFetch([stream([])]);
    const { options } = recorder();
    openEventStream({ ...options, fetch, credential: () => null });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toEqual([]);
  });

  it("closes the open connection when stopped", async () => {
    let aborted = false;
    const open: Responder = (init) => {
      init.signal?.addEventListener("abort", () => (aborted = true));
      return stream([], { open: true })(init);
    };
    const { fetch } = scriptedFetch([open]);
    const { seen, options } = recorder();
    const stop = openEventStream({ ...options, fetch });
    await until(() => seen.length === 1);
    stop();
    expect(aborted).toBe(true);
  });

  it("reconnects a connection that went silent (not even the keep-alive comment)", async () => {
    vi.useFakeTimers();
    const { fetch, calls } = scriptedFetch([stream([": hi\n\n"], { open: true })]);
    const { options } = recorder();
    const stop = openEventStream({ ...options, fetch, idleTimeoutMs: 1_000, initialDelayMs: 10 });
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1 + 10);
    expect(calls).toHaveLength(2);
    stop();
  });

  it("keeps the connection when a listener throws, and reports the error", async () => {
    const { fetch, calls } = scriptedFetch([
      stream(
        [
          'event: change\ndata: {"entity":"message","id":1}\n\n',
          'event: change\ndata: {"entity":"message","id":2}\n\n',
        ],
        { open: true },
      ),
    ]);
    const ids: number[] = [];
    const reported: unknown[] = [];
    const stop = openEventStream({
      ...recorder().options,
      fetch,
      onChange: (e) => {
        ids.push(e.id);
        if (e.id === 1) throw new Error("a bug in a view");
      },
      onListenerError: (error) => reported.push(error),
    });
    await until(() => ids.length === 2);
    stop();
    expect(calls).toHaveLength(1);
    expect(reported).toMatchObject([{ message: "a bug in a view" }]);
  });
});
