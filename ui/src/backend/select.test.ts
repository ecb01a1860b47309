import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { HttpBackend } from "./http";
import { isTauri, selectBackend } from "./select";
import { TauriBackend } from "./tauri";

describe("selectBackend", () => {
  it("uses Tauri IPC when the page runs in the Tauri window, which never signs in (it is its computer's admin)", () => {
    const host = { __TAURI_INTERNALS__: {}, location: { origin: "tauri://localhost" } };
    expect(isTauri(host)).toBe(true);
    const connection = selectBackend(host);
    expect(connection.backend).toBeInstanceOf(TauriBackend);
    expect(connection.people).toBeNull();
    expect(connection.session.getState()).toEqual({ phase: "checking" });
  });

  it("looks for the Tauri marker even when its value is falsy", () => {
    expect(isTauri({ __TAURI_INTERNALS__: undefined, location: { origin: "x" } })).toBe(true);
  });

  it("uses HTTP against the page's own origin in a browser, keeping no credential of its own", async () => {
    const seen: { url: string | undefined; authorization: string | undefined }[] = [];
    const server = createServer((req, res) => {
      seen.push({ url: req.url, authorization: req.headers.authorization });
      res.writeHead(418, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: "from_this_origin", message: "answered by the page's origin" }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const host = { location: { origin: `http://127.0.0.1:${port}` } };

      expect(isTauri(host)).toBe(false);
      const { backend, session, people } = selectBackend(host);
      expect(backend).toBeInstanceOf(HttpBackend);
      expect(people).toBe(backend);
      expect(session).toBe((backend as HttpBackend).session);
      await expect(backend.info()).rejects.toMatchObject({ code: "from_this_origin" });
      expect(seen).toEqual([{ url: "/api/v1/info", authorization: undefined }]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
