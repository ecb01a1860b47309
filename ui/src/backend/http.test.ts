import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppInfo } from "../bindings/AppInfo";
import { BackendError } from "./backend";
import { HttpBackend } from "./http";

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

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A real HTTP server on an ephemeral loopback port; each test picks how it answers. */
async function listen(handler: Handler): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return { server, origin: `http://127.0.0.1:${port}` };
}

function close(server: Server): Promise<void> {
  return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

describe("HttpBackend against a real HTTP server", () => {
  const requests: { method: string | undefined; url: string | undefined; accept: string | undefined }[] = [];
  let respond: Handler = (_req, res) => json(res, 500, { code: "unset", message: "no handler" });
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    ({ server, origin } = await listen((req, res) => {
      requests.push({ method: req.method, url: req.url, accept: req.headers.accept });
      respond(req, res);
    }));
  });

  afterAll(async () => {
    await close(server);
  });

  it("GETs /api/v1/info and returns the AppInfo JSON", async () => {
    requests.length = 0;
    respond = (req, res) =>
      req.url === "/api/v1/info" ? json(res, 200, info) : json(res, 404, { code: "not_found", message: req.url });

    await expect(new HttpBackend(origin).appInfo()).resolves.toEqual(info);
    expect(requests).toEqual([{ method: "GET", url: "/api/v1/info", accept: "application/json" }]);
  });

  it("ignores a trailing slash on the base", async () => {
    respond = (req, res) => (req.url === "/api/v1/info" ? json(res, 200, info) : json(res, 404, {}));
    await expect(new HttpBackend(`${origin}/`).appInfo()).resolves.toEqual(info);
  });

  it("turns a 4xx ApiError body into a BackendError with that code", async () => {
    respond = (_req, res) => json(res, 403, { code: "forbidden", message: "token required" });

    const error = await new HttpBackend(origin).appInfo().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ code: "forbidden", message: "token required" });
  });

  it("turns a 5xx ApiError body into a BackendError with that code", async () => {
    respond = (_req, res) => json(res, 503, { code: "store_unavailable", message: "database is locked" });
    await expect(new HttpBackend(origin).appInfo()).rejects.toMatchObject({ code: "store_unavailable" });
  });

  it("reports an error answer without an ApiError body as bad_response", async () => {
    respond = (_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<h1>Bad gateway</h1>");
    };
    await expect(new HttpBackend(origin).appInfo()).rejects.toMatchObject({ code: "bad_response" });
  });

  it("reports a 200 answer that is not JSON as bad_response", async () => {
    respond = (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html>");
    };
    await expect(new HttpBackend(origin).appInfo()).rejects.toMatchObject({ code: "bad_response" });
  });

  it("reports a server that does not answer in time as unreachable", async () => {
    respond = () => {
      /* never answers */
    };
    await expect(new HttpBackend(origin, { timeoutMs: 200 }).appInfo()).rejects.toMatchObject({
      code: "unreachable",
    });
  });
});

describe("HttpBackend without a server", () => {
  it("reports a closed port as unreachable", async () => {
    // Take a free port, then close it so nothing listens there.
    const { server, origin } = await listen((_req, res) => res.end());
    await close(server);

    const error = await new HttpBackend(origin).appInfo().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ code: "unreachable" });
  });
});
