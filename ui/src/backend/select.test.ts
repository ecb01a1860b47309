import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { HttpBackend } from "./http";
import { isTauri, selectBackend } from "./select";
import { KEY_STORAGE_NAME } from "./session";
import { TauriBackend } from "./tauri";

function storageWith(entries: Record<string, string>): Storage {
  const items = new Map(Object.entries(entries));
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (k) => items.get(k) ?? null,
    key: (i) => [...items.keys()][i] ?? null,
    removeItem: (k) => void items.delete(k),
    setItem: (k, v) => void items.set(k, v),
  };
}

describe("selectBackend", () => {
  it("uses Tauri IPC when the page runs in the Tauri window, which needs no sign-in", () => {
    const host = { __TAURI_INTERNALS__: {}, location: { origin: "tauri://localhost" } };
    expect(isTauri(host)).toBe(true);
    const connection = selectBackend(host);
    expect(connection.backend).toBeInstanceOf(TauriBackend);
    expect(connection.signIn).toBeNull();
  });

  it("looks for the Tauri marker even when its value is falsy", () => {
    expect(isTauri({ __TAURI_INTERNALS__: undefined, location: { origin: "x" } })).toBe(true);
  });

  it("uses HTTP against the page's own origin in a browser, with the key this tab signed in with", async () => {
    const seen: { url: string | undefined; authorization: string | undefined }[] = [];
    const server = createServer((req, res) => {
      seen.push({ url: req.url, authorization: req.headers.authorization });
      res.writeHead(418, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: "from_this_origin", message: "answered by the page's origin" }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const host = {
        location: { origin: `http://127.0.0.1:${port}` },
        sessionStorage: storageWith({ [KEY_STORAGE_NAME]: "sdk_from_this_tab" }),
      };

      expect(isTauri(host)).toBe(false);
      const { backend, signIn } = selectBackend(host);
      expect(backend).toBeInstanceOf(HttpBackend);
      expect(signIn).toBe(backend);
      expect(signIn?.session.key).toBe("sdk_from_this_tab");
      await expect(backend.info()).rejects.toMatchObject({ code: "from_this_origin" });
      expect(seen).toEqual([{ url: "/api/v1/info", authorization: "Bearer sdk_from_this_tab" }]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("starts signed out in a browser tab that holds no key", () => {
    const { signIn } = selectBackend({ location: { origin: "http://127.0.0.1:1" }, sessionStorage: storageWith({}) });
    expect(signIn?.session.key).toBeNull();
  });
});
