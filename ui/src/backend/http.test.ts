import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AppInfo } from "../bindings/AppInfo";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { ConnectionTest } from "../bindings/ConnectionTest";
import type { MessageFilter } from "../bindings/MessageFilter";
import type { SubmittedMessage } from "../bindings/SubmittedMessage";
import { BackendError, type Backend } from "./backend";
import { HttpBackend } from "./http";
import { ApiKeySession, memoryKeyStore } from "./session";

const KEY = "sdk_test_key";
const NO_TEST: ConnectionTest = {
  sandbox: null,
  host: null,
  port: null,
  system_id: null,
  password: null,
  system_type: null,
  interface_version: null,
  address_range: null,
};

const info: AppInfo = {
  product: "smsdesk",
  version: "1.2.3",
  mode: "serve",
  dataDir: "/srv/smsdesk",
  databasePath: "/srv/smsdesk/smsdesk.db",
  configPath: "/srv/smsdesk/config.toml",
  schemaVersion: 4,
  httpUrl: "http://127.0.0.1:8080",
  startedAtMs: 1_700_000_000_000,
};

const submitted: SubmittedMessage = {
  id: 41,
  status: "queued",
  destination: "+33612345600",
  destination_raw: "+33 6 12 34 56 00",
  encoding: "gsm7",
  segments: 1,
  kind: "transactional",
  priority: 5,
  valid_until_ms: null,
  scheduled_at_ms: null,
  ordering_key: null,
  client_ref: null,
  created_at_ms: 1_700_000_000_000,
};

const noFilter: MessageFilter = {
  status: null,
  state: null,
  kind: null,
  channel: null,
  destination: null,
  q: null,
  from_ms: null,
  to_ms: null,
  cursor: null,
  limit: null,
};

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Seen {
  method: string | undefined;
  url: string | undefined;
  authorization: string | undefined;
  accept: string | undefined;
  contentType: string | undefined;
  idempotencyKey: string | undefined;
  body: string;
}

/** A real HTTP server on an ephemeral loopback port; each test picks how it answers. */
async function listen(handler: Handler): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => handler(req, res, body));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return { server, origin: `http://127.0.0.1:${port}` };
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function signedIn(key: string | null = KEY): ApiKeySession {
  return new ApiKeySession(memoryKeyStore(key));
}

describe("HttpBackend against a real HTTP server", () => {
  const requests: Seen[] = [];
  let respond: Handler = (_req, res) => json(res, 500, { code: "unset", message: "no handler" });
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    ({ server, origin } = await listen((req, res, body) => {
      requests.push({
        method: req.method,
        url: req.url,
        authorization: req.headers.authorization,
        accept: req.headers.accept,
        contentType: req.headers["content-type"],
        idempotencyKey: req.headers["idempotency-key"] as string | undefined,
        body,
      });
      respond(req, res, body);
    }));
  });

  beforeEach(() => {
    requests.length = 0;
  });

  afterAll(async () => {
    await close(server);
  });

  it("GETs /api/v1/info with the session's key and returns the AppInfo JSON", async () => {
    respond = (req, res) =>
      req.url === "/api/v1/info" ? json(res, 200, info) : json(res, 404, { code: "not_found", message: req.url });

    await expect(new HttpBackend(origin, { session: signedIn() }).info()).resolves.toEqual(info);
    expect(requests).toMatchObject([
      { method: "GET", url: "/api/v1/info", accept: "application/json", authorization: `Bearer ${KEY}` },
    ]);
  });

  it("ignores a trailing slash on the base", async () => {
    respond = (req, res) => (req.url === "/api/v1/info" ? json(res, 200, info) : json(res, 404, {}));
    await expect(new HttpBackend(`${origin}/`, { session: signedIn() }).info()).resolves.toEqual(info);
  });

  it("sends nothing without a key, and rejects as unauthorized", async () => {
    const error = await new HttpBackend(origin, { session: signedIn(null) }).info().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ code: "unauthorized" });
    expect(requests, "a request without a key can only be refused").toEqual([]);
  });

  describe("signing in", () => {
    it("checks the key with the engine, then keeps it in the session", async () => {
      respond = (req, res) =>
        req.headers.authorization === "Bearer sdk_right" ? json(res, 200, info) : json(res, 401, {});
      const session = signedIn(null);
      await expect(new HttpBackend(origin, { session }).signIn("  sdk_right \n")).resolves.toEqual(info);
      expect(requests).toMatchObject([{ url: "/api/v1/info", authorization: "Bearer sdk_right" }]);
      expect(session.key, "the key is kept trimmed, as it was accepted").toBe("sdk_right");
    });

    it("rejects a wrong key with the server's own words and stays signed out", async () => {
      respond = (_req, res) => json(res, 401, { code: "unauthorized", message: "unknown or revoked API key" });
      const session = signedIn(null);
      const error = await new HttpBackend(origin, { session }).signIn("sdk_wrong").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BackendError);
      expect(error).toMatchObject({ code: "unauthorized", message: "unknown or revoked API key" });
      expect(session.getState()).toEqual({ key: null, refused: null });
    });

    it("a failed check leaves a current sign-in alone", async () => {
      respond = (_req, res) => json(res, 401, { code: "unauthorized", message: "unknown or revoked API key" });
      const session = signedIn("sdk_current");
      await new HttpBackend(origin, { session }).signIn("sdk_other").catch(() => undefined);
      expect(session.key).toBe("sdk_current");
    });

    it("refuses an empty key without asking the engine", async () => {
      await expect(new HttpBackend(origin, { session: signedIn(null) }).signIn("   ")).rejects.toMatchObject({
        code: "unauthorized",
      });
      expect(requests).toEqual([]);
    });
  });

  it("signs out when the engine refuses the key (401), keeping the refusal to show", async () => {
    respond = (_req, res) => json(res, 401, { code: "unauthorized", message: "unknown or revoked API key" });
    const session = signedIn();
    await expect(new HttpBackend(origin, { session }).dashboard()).rejects.toMatchObject({ code: "unauthorized" });
    expect(session.key).toBeNull();
    expect(session.getState().refused).toMatchObject({ message: "unknown or revoked API key" });
  });

  it("reports key management refused to an API key (403) as forbidden, and stays signed in", async () => {
    respond = (_req, res) =>
      json(res, 403, { code: "forbidden", message: "API keys are managed by the operator" });
    const session = signedIn();
    await expect(new HttpBackend(origin, { session }).listKeys()).rejects.toMatchObject({
      code: "forbidden",
      message: "API keys are managed by the operator",
    });
    expect(session.key, "403 is about the operation, not the key").toBe(KEY);
  });

  it("submits a message as JSON with its idempotency key", async () => {
    respond = (_req, res) => json(res, 201, submitted);
    const backend = new HttpBackend(origin, { session: signedIn() });
    await expect(
      backend.submitMessage({ destination: "+33 6 12 34 56 00", text: "Hello" }, "order-1042"),
    ).resolves.toEqual(submitted);
    expect(requests).toMatchObject([
      {
        method: "POST",
        url: "/api/v1/messages",
        contentType: "application/json",
        idempotencyKey: "order-1042",
        authorization: `Bearer ${KEY}`,
      },
    ]);
    expect(JSON.parse(requests[0]?.body ?? "")).toEqual({ destination: "+33 6 12 34 56 00", text: "Hello" });
  });

  it("sends no Idempotency-Key header when none is given", async () => {
    respond = (_req, res) => json(res, 201, submitted);
    await new HttpBackend(origin, { session: signedIn() }).submitMessage({ destination: "+1", text: "x" });
    expect(requests[0]?.idempotencyKey).toBeUndefined();
  });

  it("submits a batch to /messages/batch with its idempotency key", async () => {
    respond = (_req, res) => json(res, 201, { messages: [submitted] });
    const batch = { messages: [{ destination: "+33 6 12 34 56 00", text: "Hello" }] };
    await expect(
      new HttpBackend(origin, { session: signedIn() }).submitBatch(batch, "csv-abc-0"),
    ).resolves.toEqual({ messages: [submitted] });
    expect(requests).toMatchObject([
      { method: "POST", url: "/api/v1/messages/batch", contentType: "application/json", idempotencyKey: "csv-abc-0" },
    ]);
    expect(JSON.parse(requests[0]?.body ?? "")).toEqual(batch);
  });

  it("previews messages with POST /messages/preview, without an idempotency key", async () => {
    const preview = {
      rows: [
        {
          index: 0,
          destination: "+33612345600",
          plan: { encoding: "gsm7", units: 5, segments: 1, remaining_in_segment: 155 },
          errors: [],
        },
      ],
    };
    respond = (_req, res) => json(res, 200, preview);
    const batch = { messages: [{ destination: "06 12 34 56 00", text: "Hello" }] };
    await expect(new HttpBackend(origin, { session: signedIn() }).previewMessages(batch)).resolves.toEqual(preview);
    expect(requests).toMatchObject([{ method: "POST", url: "/api/v1/messages/preview", idempotencyKey: undefined }]);
    expect(JSON.parse(requests[0]?.body ?? "")).toEqual(batch);
  });

  it("carries every invalid field of a 422 answer", async () => {
    const errors = [
      { field: "destination", code: "invalid_number", message: "not a phone number" },
      { field: "text", code: "required", message: "a message needs a text" },
    ];
    respond = (_req, res) => json(res, 422, { code: "invalid", message: "2 fields are invalid", errors });
    const error = await new HttpBackend(origin, { session: signedIn() })
      .submitMessage({ destination: "x", text: "" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ code: "invalid", errors });
  });

  it("puts filters in the query string, leaving absent fields out", async () => {
    respond = (_req, res) => json(res, 200, { items: [], next_cursor: null, scan_limited: false });
    const backend = new HttpBackend(origin, { session: signedIn() });
    await backend.listMessages({ ...noFilter, state: "delivered", q: "order 42", limit: 20 });
    await backend.listMessages(noFilter);
    await backend.listExceptions({ status: "open", kind: null, cursor: "c1", limit: null });
    await backend.auditLog({ cursor: null, limit: 100 });
    expect(requests.map((r) => r.url)).toEqual([
      "/api/v1/messages?state=delivered&q=order+42&limit=20",
      "/api/v1/messages",
      "/api/v1/exceptions?status=open&cursor=c1",
      "/api/v1/audit?limit=100",
    ]);
  });

  it("maps every operation to its route, and answers void for 204", async () => {
    respond = (req, res) => {
      if (req.method === "POST" && req.url !== "/api/v1/keys" && req.url !== "/api/v1/settings/test-connection") {
        res.writeHead(204);
        res.end();
      } else {
        json(res, 200, { route: req.url });
      }
    };
    const backend = new HttpBackend(origin, { session: signedIn() });
    const calls: [string, (b: Backend) => Promise<unknown>, unknown][] = [
      ["GET /api/v1/messages/7", (b) => b.message(7), { route: "/api/v1/messages/7" }],
      ["POST /api/v1/messages/7/retry", (b) => b.retry(7, { note: "again", confirm_duplicate: true }), undefined],
      ["POST /api/v1/messages/7/cancel", (b) => b.cancel(7, { note: "wrong", confirm_duplicate: false }), undefined],
      ["GET /api/v1/exceptions/3", (b) => b.exception(3), { route: "/api/v1/exceptions/3" }],
      [
        "POST /api/v1/exceptions/3/resolve",
        (b) => b.resolve(3, { action: "choose_state", state: "delivered", note: "phoned" }),
        undefined,
      ],
      ["GET /api/v1/dashboard", (b) => b.dashboard(), { route: "/api/v1/dashboard" }],
      [
        "GET /api/v1/dashboard/activity?window=month",
        (b) => b.activity("month"),
        { route: "/api/v1/dashboard/activity?window=month" },
      ],
      ["GET /api/v1/connection", (b) => b.connection(), { route: "/api/v1/connection" }],
      ["GET /api/v1/keys", (b) => b.listKeys(), { route: "/api/v1/keys" }],
      ["POST /api/v1/keys", (b) => b.createKey({ name: "crm", webhook_url: null }), { route: "/api/v1/keys" }],
      ["POST /api/v1/keys/2/revoke", (b) => b.revokeKey(2), undefined],
      ["GET /api/v1/settings", (b) => b.settings(), { route: "/api/v1/settings" }],
      [
        "PATCH /api/v1/settings",
        (b) => b.updateSettings({ values: { "smpp.tps": "25" }, password: null, callback_providers: null }),
        { route: "/api/v1/settings" },
      ],
      [
        "POST /api/v1/settings/test-connection",
        (b) => b.testConnection({ ...NO_TEST, sandbox: true }),
        { route: "/api/v1/settings/test-connection" },
      ],
    ];
    for (const [route, call, expected] of calls) {
      requests.length = 0;
      await expect(call(backend), route).resolves.toEqual(expected);
      expect(`${requests[0]?.method} ${requests[0]?.url}`).toBe(route);
      expect(requests[0]?.authorization).toBe(`Bearer ${KEY}`);
    }
  });

  it("sends each action's body as JSON", async () => {
    respond = (_req, res) => {
      res.writeHead(204);
      res.end();
    };
    const backend = new HttpBackend(origin, { session: signedIn() });
    await backend.retry(7, { note: "again", confirm_duplicate: true });
    await backend.resolve(3, { action: "attach", message_id: 9, mismatches_seen: true, note: "same order" });
    await backend.revokeKey(2);
    expect(requests.map((r) => r.body)).toEqual([
      JSON.stringify({ note: "again", confirm_duplicate: true }),
      JSON.stringify({ action: "attach", message_id: 9, mismatches_seen: true, note: "same order" }),
      "",
    ]);
  });

  it("turns a 5xx ApiError body into a BackendError with that code", async () => {
    respond = (_req, res) => json(res, 503, { code: "stopping", message: "the server is stopping" });
    await expect(new HttpBackend(origin, { session: signedIn() }).info()).rejects.toMatchObject({ code: "stopping" });
  });

  it("reports an error answer without an ApiError body as bad_response", async () => {
    respond = (_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<h1>Bad gateway</h1>");
    };
    await expect(new HttpBackend(origin, { session: signedIn() }).info()).rejects.toMatchObject({
      code: "bad_response",
    });
  });

  it("reports a 200 answer that is not JSON as bad_response", async () => {
    respond = (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html>");
    };
    await expect(new HttpBackend(origin, { session: signedIn() }).info()).rejects.toMatchObject({
      code: "bad_response",
    });
  });

  it("reports a server that does not answer in time as unreachable", async () => {
    respond = () => {
      /* never answers */
    };
    await expect(new HttpBackend(origin, { timeoutMs: 200, session: signedIn() }).info()).rejects.toMatchObject({
      code: "unreachable",
    });
  });
});

describe("HttpBackend without a server", () => {
  it("reports a closed port as unreachable", async () => {
    // Take a free port, then close it so nothing listens there.
    const { server, origin } = await listen((_req, res) => res.end());
    await close(server);

    const error = await new HttpBackend(origin, { session: signedIn() }).info().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ code: "unreachable" });
  });
});

describe("HttpBackend.subscribe", () => {
  it("follows /api/v1/events with the key, and a 401 there signs out", async () => {
    let authorization: string | undefined;
    let refuse = false;
    const { server, origin } = await listen((req, res) => {
      authorization = req.headers.authorization;
      if (refuse) {
        json(res, 401, { code: "unauthorized", message: "unknown or revoked API key" });
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('event: change\ndata: {"entity":"message","id":5}\n\n');
      refuse = true;
      res.end();
    });
    try {
      const session = signedIn();
      const backend = new HttpBackend(origin, { session, events: { initialDelayMs: 5, maxDelayMs: 5 } });
      const changes: ChangeEvent[] = [];
      let resyncs = 0;
      const signedOut = new Promise<void>((resolve) => session.subscribe(resolve));
      const stop = backend.subscribe(
        (e) => changes.push(e),
        () => resyncs++,
      );
      await signedOut;
      stop();
      expect(authorization).toBe(`Bearer ${KEY}`);
      expect(changes).toEqual([{ entity: "message", id: 5 }]);
      expect(resyncs, "the connection becoming live is a resync").toBe(1);
      expect(session.getState().refused).toMatchObject({ code: "unauthorized" });
    } finally {
      await close(server);
    }
  });
});

describe("HttpBackend.exportMessages against a real HTTP server", () => {
  const HEADER = "id,created_at,body\n";
  // Three records, one of which holds a line break and doubled quotes inside its quoted cell.
  const ROWS = ['3,2026-11-30T10:00:00Z,"Hello, ""world""\nsecond line"\n', "2,2026-11-30T09:00:00Z,=SUM(A1)\n", "1,2026-11-30T08:00:00Z,plain\n"];
  let server: Server;
  let origin: string;
  let seen: { url: string | undefined; authorization: string | undefined; accept: string | undefined }[] = [];
  let respond: (res: ServerResponse) => void = () => {};

  beforeAll(async () => {
    ({ server, origin } = await listen((req, res) => {
      seen.push({ url: req.url, authorization: req.headers.authorization, accept: req.headers.accept });
      respond(res);
    }));
  });
  beforeEach(() => {
    seen = [];
  });
  afterAll(async () => {
    await close(server);
  });

  /** Streams the header and each row as its own chunk, a little apart, as a long export arrives. */
  const streaming = (res: ServerResponse): void => {
    res.writeHead(200, { "content-type": "text/csv; charset=utf-8", "x-total-count": String(ROWS.length) });
    const parts = [HEADER, ...ROWS];
    const next = (): void => {
      const part = parts.shift();
      if (part === undefined) res.end();
      else res.write(part, () => setTimeout(next, 5));
    };
    next();
  };

  it("streams the filtered file with the key, counting records for the progress, then saves it", async () => {
    respond = streaming;
    const saved: { type: string; name: string }[] = [];
    let file: Blob | undefined;
    const backend = new HttpBackend(origin, {
      session: signedIn(),
      download: (blob, name) => {
        file = blob;
        saved.push({ type: blob.type, name });
      },
    });
    const progress: { done: number; total: number }[] = [];
    const exported = await backend.exportMessages(
      { ...noFilter, kind: "otp", from_ms: 1_796_000_000_000, cursor: "c9", limit: 20 },
      { onProgress: (p) => progress.push(p) },
    );
    expect(exported).toBe(3);
    expect(seen).toEqual([
      {
        url: "/api/v1/messages/export?kind=otp&from_ms=1796000000000",
        authorization: `Bearer ${KEY}`,
        accept: "text/csv",
      },
    ]);
    expect(progress[0], "the total is known before any row").toEqual({ done: 0, total: 3 });
    expect(progress.at(-1)).toEqual({ done: 3, total: 3 });
    expect(
      progress.map((p) => p.done).every((d, i, all) => i === 0 || d >= (all[i - 1] ?? 0)),
      "progress only goes forward",
    ).toBe(true);
    expect(saved).toHaveLength(1);
    expect(saved[0]?.name).toMatch(/^messages-\d{8}-\d{4}\.csv$/);
    expect(saved[0]?.type).toBe("text/csv;charset=utf-8");
    expect(await file?.text(), "the file is saved exactly as received").toBe(HEADER + ROWS.join(""));
  });

  it("stops and saves nothing when cancelled mid-stream", async () => {
    respond = (res) => {
      res.writeHead(200, { "content-type": "text/csv; charset=utf-8", "x-total-count": "1000" });
      res.write(HEADER + ROWS.join(""));
      // ...and the rest never comes.
    };
    let saves = 0;
    const backend = new HttpBackend(origin, { session: signedIn(), download: () => (saves += 1) });
    const controller = new AbortController();
    const result = backend.exportMessages(noFilter, {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.done === 3) controller.abort();
      },
    });
    await expect(result).rejects.toMatchObject({ code: "cancelled" });
    expect(saves).toBe(0);
  });

  it("reports the engine's refusal with its code, and a 401 signs out", async () => {
    respond = (res) => json(res, 422, { code: "invalid", message: "status: unknown variant `nope`" });
    const backend = new HttpBackend(origin, { session: signedIn(), download: () => {} });
    await expect(backend.exportMessages(noFilter)).rejects.toMatchObject({ code: "invalid" });

    respond = (res) => json(res, 401, { code: "unauthorized", message: "revoked" });
    const session = signedIn();
    await expect(new HttpBackend(origin, { session, download: () => {} }).exportMessages(noFilter)).rejects.toMatchObject({
      code: "unauthorized",
    });
    expect(session.key).toBeNull();
  });
});
