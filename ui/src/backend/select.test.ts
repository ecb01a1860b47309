import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { HttpBackend } from "./http";
import { isTauri, selectBackend } from "./select";
import { TauriBackend } from "./tauri";

describe("selectBackend", () => {
  it("uses Tauri IPC when the page runs in the Tauri window", () => {
    const host = { __TAURI_INTERNALS__: {}, location: { origin: "tauri://localhost" } };
    expect(isTauri(host)).toBe(true);
    expect(selectBackend(host)).toBeInstanceOf(TauriBackend);
  });

  it("looks for the Tauri marker even when its value is falsy", () => {
    expect(isTauri({ __TAURI_INTERNALS__: undefined, location: { origin: "x" } })).toBe(true);
  });

  it("uses HTTP against the page's own origin in a browser", async () => {
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url);
      res.writeHead(418, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: "from_this_origin", message: "answered by the page's origin" }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const host = { location: { origin: `http://127.0.0.1:${port}` } };

      expect(isTauri(host)).toBe(false);
      const backend = selectBackend(host);
      expect(backend).toBeInstanceOf(HttpBackend);
      await expect(backend.appInfo()).rejects.toMatchObject({ code: "from_this_origin" });
      expect(seen).toEqual(["/api/v1/info"]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
