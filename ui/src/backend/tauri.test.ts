import { describe, expect, it } from "vitest";
import type { AppInfo } from "../bindings/AppInfo";
import { BackendError } from "./backend";
import { TauriBackend, type InvokeFn } from "./tauri";

const info: AppInfo = {
  product: "smsdesk",
  version: "0.1.0",
  mode: "window",
  dataDir: "/data",
  databasePath: "/data/smsdesk.db",
  configPath: "/data/config.toml",
  schemaVersion: 1,
  httpUrl: null,
  startedAtMs: 1_700_000_000_000,
};

function invoking(handler: (command: string) => unknown): InvokeFn {
  return async <T>(command: string) => (await handler(command)) as T;
}

describe("TauriBackend", () => {
  it("calls the app_info command", async () => {
    const calls: string[] = [];
    const backend = new TauriBackend(
      invoking((command) => {
        calls.push(command);
        return info;
      }),
    );
    await expect(backend.appInfo()).resolves.toEqual(info);
    expect(calls).toEqual(["app_info"]);
  });

  it("surfaces a command's ApiError as a BackendError with the same code", async () => {
    const backend = new TauriBackend(
      invoking(() => Promise.reject({ code: "store_unavailable", message: "database is locked" })),
    );
    const error = await backend.appInfo().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ code: "store_unavailable", message: "database is locked" });
  });

  it("reports a bare string rejection from Tauri itself as bad_response", async () => {
    const backend = new TauriBackend(invoking(() => Promise.reject("command app_info not found")));
    await expect(backend.appInfo()).rejects.toMatchObject({
      code: "bad_response",
      message: "command app_info not found",
    });
  });
});
