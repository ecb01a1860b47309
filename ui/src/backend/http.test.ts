import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AppInfo } from "../bindings/AppInfo";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { ConnectionTest } from "../bindings/ConnectionTest";
import type { Me } from "../bindings/Me";
import type { MessageFilter } from "../bindings/MessageFilter";
import type { SubmittedMessage } from "../bindings/SubmittedMessage";
import { BackendError, type Backend } from "./backend";
import { HttpBackend, type HttpBackendOptions } from "./http";

const CSRF = "csrf-of-this-session";
const MARIE: Me = {
  actor: "Marie",
  kind: "person",
  role: "operator",
  scopes: ["send", "read:all", "act", "export"],
  admin: false,
  only_own: false,
  csrf_token: CSRF,
};
const NO_TEST: ConnectionTest = {
  connection: null,
  sandbox: null,
  host: null,
  port: null,
  system_id: null,
  password: null,
  system_type: null,
  interface_version: null,
  address_range: null,
  tls: null,
  tls_server_name: null,
  tls_ca_file: null,
  tls_pin_sha256: null,
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
  connection: null,
  route: null,
  country: null,
  sender: null,
  outcome: null,
  command_status: null,
  error_code: null,
  cursor: null,
  limit: null,
};

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Seen {
  method: string | undefined;
  url: string | undefined;
  authorization: string | undefined;
  csrf: string | undefined;
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

/** A backend whose browser signed in as `me` (its cookie is the browser's business; the page keeps who and the CSRF token). */
function signedIn(origin: string, options: HttpBackendOptions = {}, me: Me = MARIE): HttpBackend {
  const backend = new HttpBackend(origin, options);
  backend.session.signedIn(me);
  return backend;
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
        csrf: req.headers["x-csrf-token"] as string | undefined,
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

  it("GETs /api/v1/info and returns the AppInfo JSON, sending no credential of its own (the browser's cookie is the session)", async () => {
    respond = (req, res) =>
      req.url === "/api/v1/info" ? json(res, 200, info) : json(res, 404, { code: "not_found", message: req.url });

    await expect(signedIn(origin).info()).resolves.toEqual(info);
    expect(requests).toMatchObject([{ method: "GET", url: "/api/v1/info", accept: "application/json" }]);
    expect(requests[0]?.authorization, "no API key: people sign in with a session cookie").toBeUndefined();
    expect(requests[0]?.csrf, "a GET changes nothing: no CSRF token").toBeUndefined();
  });

  it("ignores a trailing slash on the base", async () => {
    respond = (req, res) => (req.url === "/api/v1/info" ? json(res, 200, info) : json(res, 404, {}));
    await expect(signedIn(`${origin}/`).info()).resolves.toEqual(info);
  });

  it("sends the session's CSRF token with every request that changes something, and only those", async () => {
    respond = (req, res) => {
      if (req.method === "GET") json(res, 200, []);
      else if (req.method === "POST" && req.url === "/api/v1/accounts") json(res, 201, {});
      else if (req.method === "PATCH") json(res, 200, {});
      else {
        res.writeHead(204);
        res.end();
      }
    };
    const backend = signedIn(origin);
    await backend.listAccounts();
    await backend.createAccount({ name: "Paul", role: "viewer", password: "a long password" });
    await backend.updateAccount(2, { role: "operator", disabled: null, password: null });
    await backend.revokeSession(5);
    await backend.signOut();
    expect(requests.map((r) => [`${r.method} ${r.url}`, r.csrf])).toEqual([
      ["GET /api/v1/accounts", undefined],
      ["POST /api/v1/accounts", CSRF],
      ["PATCH /api/v1/accounts/2", CSRF],
      ["POST /api/v1/sessions/5/revoke", CSRF],
      ["DELETE /api/v1/session", CSRF],
    ]);
  });

  describe("signing in and out", () => {
    it("asks who is signed in with GET /me: signed in with that person's CSRF token, or signed out on 401", async () => {
      respond = (_req, res) => json(res, 200, MARIE);
      const backend = new HttpBackend(origin);
      await backend.session.check();
      expect(backend.session.getState()).toMatchObject({ phase: "signed_in", me: { actor: "Marie" } });
      expect(backend.session.csrfToken).toBe(CSRF);

      respond = (_req, res) => json(res, 401, { code: "unauthorized", message: "sign in" });
      const nobody = new HttpBackend(origin);
      await nobody.session.check();
      expect(nobody.session.getState()).toEqual({ phase: "signed_out", why: null });
      expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /api/v1/me", "GET /api/v1/me"]);
    });

    it("signs in with POST /session {name, password}, and is then that person", async () => {
      respond = (_req, res) => json(res, 200, MARIE);
      const backend = new HttpBackend(origin);
      await expect(backend.signIn({ name: "Marie", password: "correct horse" })).resolves.toEqual(MARIE);
      expect(requests).toMatchObject([{ method: "POST", url: "/api/v1/session", contentType: "application/json" }]);
      expect(JSON.parse(requests[0]?.body ?? "")).toEqual({ name: "Marie", password: "correct horse" });
      expect(backend.session.getState()).toMatchObject({ phase: "signed_in", me: MARIE });
    });

    it("a wrong password rejects with the engine's words and stays signed out, not 'ended'", async () => {
      respond = (_req, res) => json(res, 401, { code: "unauthorized", message: "wrong name or password" });
      const backend = new HttpBackend(origin);
      backend.session.signedOut();
      const error = await backend.signIn({ name: "Marie", password: "nope" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BackendError);
      expect(error).toMatchObject({ code: "unauthorized", message: "wrong name or password" });
      expect(backend.session.getState()).toEqual({ phase: "signed_out", why: null });
    });

    it("too many failed sign-ins reject with how long to wait, from Retry-After", async () => {
      respond = (_req, res) => {
        res.writeHead(429, { "content-type": "application/json", "retry-after": "30" });
        res.end(JSON.stringify({ code: "too_many_attempts", message: "try again in 30 s" }));
      };
      const error = await new HttpBackend(origin).signIn({ name: "Marie", password: "x" }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "too_many_attempts", retryAfterSeconds: 30 });
    });

    it("signs out with DELETE /session; a session the engine had already ended counts as signed out too", async () => {
      respond = (_req, res) => {
        res.writeHead(204);
        res.end();
      };
      const backend = signedIn(origin);
      await backend.signOut();
      expect(backend.session.getState()).toEqual({ phase: "signed_out", why: null });

      respond = (_req, res) => json(res, 401, { code: "unauthorized", message: "the session ended" });
      const ended = signedIn(origin);
      await expect(ended.signOut()).resolves.toBeUndefined();
      expect(ended.session.getState()).toEqual({ phase: "signed_out", why: null });
    });

    it("a sign-out that does not reach the engine says so and stays signed in (the cookie still works)", async () => {
      respond = (_req, res) => json(res, 503, { code: "stopping", message: "the server is stopping" });
      const backend = signedIn(origin);
      await expect(backend.signOut()).rejects.toMatchObject({ code: "stopping" });
      expect(backend.session.getState().phase).toBe("signed_in");
    });
  });

  describe("the first admin", () => {
    it("asks GET /setup whether it is open, and creates the admin with POST /setup {token, name, password}, signed in", async () => {
      const admin: Me = { ...MARIE, role: "admin", admin: true };
      respond = (req, res) => (req.method === "GET" ? json(res, 200, { open: true }) : json(res, 201, admin));
      const backend = new HttpBackend(origin);
      await expect(backend.setupState()).resolves.toEqual({ open: true });
      await expect(backend.createFirstAdmin({ token: "setup_abc", name: "Marie", password: "correct horse", country: null })).resolves.toEqual(admin);
      expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /api/v1/setup", "POST /api/v1/setup"]);
      expect(JSON.parse(requests[1]?.body ?? "")).toEqual({ token: "setup_abc", name: "Marie", password: "correct horse", country: null });
      expect(requests.every((r) => !r.url?.includes("setup_abc")), "the token never travels in a URL").toBe(true);
      expect(backend.session.getState()).toMatchObject({ phase: "signed_in", me: { admin: true } });
    });

    it("a refused link rejects with setup_token_invalid and signs nobody in", async () => {
      respond = (_req, res) => json(res, 403, { code: "setup_token_invalid", message: "unknown, used or expired link" });
      const backend = new HttpBackend(origin);
      await expect(backend.createFirstAdmin({ token: "old", name: "Marie", password: "correct horse", country: null })).rejects.toMatchObject({
        code: "setup_token_invalid",
      });
      expect(backend.session.getState().phase).toBe("checking");
    });
  });

  describe("changing one's own password", () => {
    it("POSTs {current, new} to /me/password; when the engine ends this session with it, the session says the password changed", async () => {
      respond = (req, res) => {
        if (req.url === "/api/v1/me/password") {
          res.writeHead(204);
          res.end();
        } else json(res, 401, { code: "unauthorized", message: "the session ended: sign in again" });
      };
      const backend = signedIn(origin);
      await backend.changePassword({ current: "old password", new: "a new password" });
      expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(["POST /api/v1/me/password", "GET /api/v1/me"]);
      expect(requests[0]?.csrf).toBe(CSRF);
      expect(JSON.parse(requests[0]?.body ?? "")).toEqual({ current: "old password", new: "a new password" });
      expect(backend.session.getState()).toEqual({ phase: "signed_out", why: { kind: "password_changed" } });
    });

    it("a wrong current password (an invalid `current` field) rejects, and the session goes on", async () => {
      respond = (_req, res) =>
        json(res, 422, {
          code: "invalid",
          message: "current: the current password is not right",
          errors: [{ field: "current", code: "wrong_password", params: {}, message: "the current password is not right" }],
        });
      const backend = signedIn(origin);
      await expect(backend.changePassword({ current: "wrong", new: "a new password" })).rejects.toMatchObject({
        code: "invalid",
      });
      expect(backend.session.getState().phase, "a wrong password is not an ended session").toBe("signed_in");
    });
  });

  it("signs out when the engine refuses the session (401) during use, keeping the refusal to show", async () => {
    respond = (_req, res) => json(res, 401, { code: "unauthorized", message: "the session ended: sign in again" });
    const backend = signedIn(origin);
    await expect(backend.dashboard()).rejects.toMatchObject({ code: "unauthorized" });
    expect(backend.session.getState()).toMatchObject({
      phase: "signed_out",
      why: { kind: "ended", error: { message: "the session ended: sign in again" } },
    });
  });

  it("reports an operation the role does not allow (403) as forbidden, and stays signed in", async () => {
    respond = (_req, res) => json(res, 403, { code: "forbidden", message: "`list_keys` needs the admin role" });
    const backend = signedIn(origin);
    await expect(backend.listKeys()).rejects.toMatchObject({ code: "forbidden", message: "`list_keys` needs the admin role" });
    expect(backend.session.getState().phase, "403 is about the operation, not the session").toBe("signed_in");
  });

  it("on csrf_token_missing asks again who is signed in (the browser's cookie may be another sign-in's), and follows", async () => {
    const paul: Me = { ...MARIE, actor: "Paul", csrf_token: "csrf-of-paul" };
    respond = (req, res) =>
      req.url === "/api/v1/me" ? json(res, 200, paul) : json(res, 403, { code: "csrf_token_missing", message: "lacks X-CSRF-Token" });
    const backend = signedIn(origin);
    await expect(backend.retry(7, { note: "x", confirm_duplicate: false, override_limits: false })).rejects.toMatchObject({
      code: "csrf_token_missing",
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(["POST /api/v1/messages/7/retry", "GET /api/v1/me"]);
    expect(backend.session.getState()).toMatchObject({ phase: "signed_in", me: { actor: "Paul" } });
  });

  it("submits a message as JSON with its idempotency key", async () => {
    respond = (_req, res) => json(res, 201, submitted);
    const backend = signedIn(origin);
    await expect(
      backend.submitMessage({ destination: "+33 6 12 34 56 00", text: "Hello" }, "order-1042"),
    ).resolves.toEqual(submitted);
    expect(requests).toMatchObject([
      {
        method: "POST",
        url: "/api/v1/messages",
        contentType: "application/json",
        idempotencyKey: "order-1042",
        csrf: CSRF,
      },
    ]);
    expect(JSON.parse(requests[0]?.body ?? "")).toEqual({ destination: "+33 6 12 34 56 00", text: "Hello" });
  });

  it("sends no Idempotency-Key header when none is given", async () => {
    respond = (_req, res) => json(res, 201, submitted);
    await signedIn(origin).submitMessage({ destination: "+1", text: "x" });
    expect(requests[0]?.idempotencyKey).toBeUndefined();
  });

  it("submits a batch to /messages/batch with its idempotency key", async () => {
    respond = (_req, res) => json(res, 201, { messages: [submitted] });
    const batch = { messages: [{ destination: "+33 6 12 34 56 00", text: "Hello" }] };
    await expect(
      signedIn(origin).submitBatch(batch, "csv-abc-0"),
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
    await expect(signedIn(origin).previewMessages(batch)).resolves.toEqual(preview);
    expect(requests).toMatchObject([{ method: "POST", url: "/api/v1/messages/preview", idempotencyKey: undefined }]);
    expect(JSON.parse(requests[0]?.body ?? "")).toEqual(batch);
  });

  it("carries every invalid field of a 422 answer", async () => {
    const errors = [
      { field: "destination", code: "invalid_number", params: {}, message: "not a phone number" },
      { field: "text", code: "required", params: {}, message: "a message needs a text" },
    ];
    respond = (_req, res) => json(res, 422, { code: "invalid", message: "2 fields are invalid", errors });
    const error = await signedIn(origin)
      .submitMessage({ destination: "x", text: "" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ code: "invalid", errors });
  });

  it("puts filters in the query string, leaving absent fields out", async () => {
    respond = (_req, res) => json(res, 200, { items: [], next_cursor: null, scan_limited: false });
    const backend = signedIn(origin);
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
      if (
        req.method === "POST" &&
        req.url !== "/api/v1/keys" &&
        req.url !== "/api/v1/accounts" &&
        req.url !== "/api/v1/settings/test-connection" &&
        req.url !== "/api/v1/alerts/test"
      ) {
        res.writeHead(204);
        res.end();
      } else {
        json(res, 200, { route: req.url });
      }
    };
    const backend = signedIn(origin);
    const calls: [string, (b: Backend) => Promise<unknown>, unknown][] = [
      ["GET /api/v1/messages/7", (b) => b.message(7), { route: "/api/v1/messages/7" }],
      [
        "POST /api/v1/messages/7/retry",
        (b) => b.retry(7, { note: "again", confirm_duplicate: true, override_limits: false }),
        undefined,
      ],
      [
        "POST /api/v1/messages/7/cancel",
        (b) => b.cancel(7, { note: "wrong", confirm_duplicate: false, override_limits: false }),
        undefined,
      ],
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
      ["GET /api/v1/dashboard/pace", (b) => b.pace(), { route: "/api/v1/dashboard/pace" }],
      ["GET /api/v1/connection", (b) => b.connection(), { route: "/api/v1/connection" }],
      ["GET /api/v1/keys", (b) => b.listKeys(), { route: "/api/v1/keys" }],
      [
        "POST /api/v1/keys",
        (b) =>
          b.createKey({
            name: "crm",
            webhook_url: null,
            scopes: ["send", "read:own"],
            limits: { per_minute: null, per_day: null, destination_prefixes: [], countries: [], otp_countries: [] },
          }),
        { route: "/api/v1/keys" },
      ],
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
      ["GET /api/v1/me", (b) => b.me(), { route: "/api/v1/me" }],
      ["GET /api/v1/accounts", (b) => b.listAccounts(), { route: "/api/v1/accounts" }],
      [
        "POST /api/v1/accounts",
        (b) => b.createAccount({ name: "Paul", role: "viewer", password: "a long password" }),
        { route: "/api/v1/accounts" },
      ],
      [
        "PATCH /api/v1/accounts/4",
        (b) => b.updateAccount(4, { role: null, disabled: true, password: null }),
        { route: "/api/v1/accounts/4" },
      ],
      ["GET /api/v1/sessions", (b) => b.listSessions(), { route: "/api/v1/sessions" }],
      ["POST /api/v1/sessions/9/revoke", (b) => b.revokeSession(9), undefined],
      ["GET /api/v1/alerts", (b) => b.alerts(), { route: "/api/v1/alerts" }],
      ["POST /api/v1/alerts/5/acknowledge", (b) => b.acknowledgeAlert(5, { note: "provider called" }), undefined],
      ["POST /api/v1/alerts/test", (b) => b.testAlert({ channel: "email" }), { route: "/api/v1/alerts/test" }],
    ];
    for (const [route, call, expected] of calls) {
      requests.length = 0;
      await expect(call(backend), route).resolves.toEqual(expected);
      expect(`${requests[0]?.method} ${requests[0]?.url}`).toBe(route);
      expect(requests[0]?.csrf, route).toBe(requests[0]?.method === "GET" ? undefined : CSRF);
    }
  });

  it("sends each action's body as JSON", async () => {
    respond = (_req, res) => {
      res.writeHead(204);
      res.end();
    };
    const backend = signedIn(origin);
    await backend.retry(7, { note: "again", confirm_duplicate: true, override_limits: true });
    await backend.resolve(3, { action: "attach", message_id: 9, mismatches_seen: true, note: "same order" });
    await backend.revokeKey(2);
    await backend.acknowledgeAlert(5, { note: "provider called" });
    await backend.testAlert({ channel: "webhook" });
    expect(requests.map((r) => r.body)).toEqual([
      JSON.stringify({ note: "again", confirm_duplicate: true, override_limits: true }),
      JSON.stringify({ action: "attach", message_id: 9, mismatches_seen: true, note: "same order" }),
      "",
      JSON.stringify({ note: "provider called" }),
      JSON.stringify({ channel: "webhook" }),
    ]);
  });

  it("turns a 5xx ApiError body into a BackendError with that code", async () => {
    respond = (_req, res) => json(res, 503, { code: "stopping", message: "the server is stopping" });
    await expect(signedIn(origin).info()).rejects.toMatchObject({ code: "stopping" });
  });

  it("reports an error answer without an ApiError body as bad_response", async () => {
    respond = (_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<h1>Bad gateway</h1>");
    };
    await expect(signedIn(origin).info()).rejects.toMatchObject({
      code: "bad_response",
    });
  });

  it("reports a 200 answer that is not JSON as bad_response", async () => {
    respond = (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html>");
    };
    await expect(signedIn(origin).info()).rejects.toMatchObject({
      code: "bad_response",
    });
  });

  it("reports a server that does not answer in time as unreachable", async () => {
    respond = () => {
      /* never answers */
    };
    await expect(signedIn(origin, { timeoutMs: 200 }).info()).rejects.toMatchObject({
      code: "unreachable",
    });
  });
});

describe("HttpBackend without a server", () => {
  it("reports a closed port as unreachable", async () => {
    // Take a free port, then close it so nothing listens there.
    const { server, origin } = await listen((_req, res) => res.end());
    await close(server);

    const error = await signedIn(origin).info().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ code: "unreachable" });
  });
});

describe("HttpBackend.subscribe", () => {
  it("follows /api/v1/events on the session cookie (no Authorization header), and a 401 there signs out", async () => {
    let authorization: string | undefined = "not asked";
    let refuse = false;
    const { server, origin } = await listen((req, res) => {
      authorization = req.headers.authorization;
      if (refuse) {
        json(res, 401, { code: "unauthorized", message: "the session ended: sign in again" });
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('event: change\ndata: {"entity":"message","id":5}\n\n');
      refuse = true;
      res.end();
    });
    try {
      const backend = signedIn(origin, { events: { initialDelayMs: 5, maxDelayMs: 5 } });
      const session = backend.session;
      const changes: ChangeEvent[] = [];
      let resyncs = 0;
      const signedOut = new Promise<void>((resolve) => session.subscribe(resolve));
      const stop = backend.subscribe(
        (e) => changes.push(e),
        () => resyncs++,
      );
      await signedOut;
      stop();
      expect(authorization).toBeUndefined();
      expect(changes).toEqual([{ entity: "message", id: 5 }]);
      expect(resyncs, "the connection becoming live is a resync").toBe(1);
      expect(session.getState()).toMatchObject({ phase: "signed_out", why: { kind: "ended", error: { code: "unauthorized" } } });
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

  it("hands a CSV text the UI made to the browser as a download", async () => {
    const saved: { type: string; name: string; text: string }[] = [];
    const backend = signedIn(origin, {
      download: (blob, name) => {
        void blob.text().then((text) => saved.push({ type: blob.type, name, text }));
      },
    });
    await expect(backend.saveCsv("line,reason\r\n", "contacts-rejected.csv")).resolves.toBe(true);
    await new Promise((r) => setTimeout(r, 10));
    expect(saved).toEqual([{ type: "text/csv;charset=utf-8", name: "contacts-rejected.csv", text: "line,reason\r\n" }]);
  });

  it("hands a JSON text the UI made to the browser as a download", async () => {
    const saved: { type: string; name: string; text: string }[] = [];
    const backend = signedIn(origin, {
      download: (blob, name) => {
        void blob.text().then((text) => saved.push({ type: blob.type, name, text }));
      },
    });
    await expect(backend.saveJson('{"number":"+33612345600"}', "record.json")).resolves.toBe(true);
    await new Promise((r) => setTimeout(r, 10));
    expect(saved).toEqual([{ type: "application/json;charset=utf-8", name: "record.json", text: '{"number":"+33612345600"}' }]);
  });

  it("streams the filtered file on the session cookie, counting records for the progress, then saves it", async () => {
    respond = streaming;
    const saved: { type: string; name: string }[] = [];
    let file: Blob | undefined;
    const backend = signedIn(origin, {
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
        authorization: undefined,
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
    const backend = signedIn(origin, { download: () => (saves += 1) });
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
    const backend = signedIn(origin, { download: () => {} });
    await expect(backend.exportMessages(noFilter)).rejects.toMatchObject({ code: "invalid" });

    respond = (res) => json(res, 401, { code: "unauthorized", message: "revoked" });
    const ended = signedIn(origin, { download: () => {} });
    await expect(ended.exportMessages(noFilter)).rejects.toMatchObject({
      code: "unauthorized",
    });
    expect(ended.session.getState()).toMatchObject({ phase: "signed_out", why: { kind: "ended" } });
  });
});
