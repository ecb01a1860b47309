import { describe, expect, it } from "vitest";
import type { AppInfo } from "../bindings/AppInfo";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { ConnectionTest } from "../bindings/ConnectionTest";
import type { MessageFilter } from "../bindings/MessageFilter";
import type { NewApiKey } from "../bindings/NewApiKey";
import type { SettingsUpdate } from "../bindings/SettingsUpdate";
import { BackendError, type Backend } from "./backend";
import { TauriBackend, type InvokeFn, type ListenFn } from "./tauri";

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

const filter: MessageFilter = {
  status: "failed",
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
  limit: 50,
};

function invoking(handler: (command: string, args?: Record<string, unknown>) => unknown): InvokeFn {
  return async <T>(command: string, args?: Record<string, unknown>) => (await handler(command, args)) as T;
}

const noListen: ListenFn = () => Promise.resolve(() => {});

/** Tauri's event bus as the window sees it: emit delivers to every current listener. */
function fakeEvents() {
  const handlers = new Map<string, Set<(event: { payload: unknown }) => void>>();
  let release: () => void = () => {};
  let held: Promise<void> | null = null;
  const listen = (async <T>(event: string, handler: (event: { payload: T }) => void) => {
    if (held) await held;
    const set = handlers.get(event) ?? new Set();
    handlers.set(event, set);
    const h = handler as (event: { payload: unknown }) => void;
    set.add(h);
    return () => set.delete(h);
  }) as ListenFn;
  return {
    listen,
    emit: (event: string, payload: unknown) => handlers.get(event)?.forEach((h) => h({ payload })),
    count: () => [...handlers.values()].reduce((n, s) => n + s.size, 0),
    /** Makes registrations wait until `release()`, as a slow IPC would. */
    hold: () => {
      held = new Promise((resolve) => (release = resolve));
    },
    release: () => release(),
  };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("TauriBackend", () => {
  it("calls the info command", async () => {
    const calls: string[] = [];
    const backend = new TauriBackend(
      invoking((command) => {
        calls.push(command);
        return info;
      }),
      noListen,
    );
    await expect(backend.info()).resolves.toEqual(info);
    expect(calls).toEqual(["info"]);
  });

  it("calls one command per operation, with the Rust parameters as camelCase arguments", async () => {
    const calls: [string, Record<string, unknown> | undefined][] = [];
    const backend = new TauriBackend(
      invoking((command, args) => {
        calls.push([command, args]);
        return null; // what a command returning () answers
      }),
      noListen,
    );
    const action = { note: "why", confirm_duplicate: false, override_limits: false };
    const newKey: NewApiKey = {
      name: "crm",
      webhook_url: null,
      scopes: ["send", "read:all"],
      limits: { per_minute: 10, per_day: null, destination_prefixes: ["+33"], countries: [], otp_countries: [] },
    };
    const update: SettingsUpdate = { values: { "smpp.tps": "25" }, password: "pw", callback_providers: [] };
    const test: ConnectionTest = {
      connection: null,
      sandbox: false,
      host: "smpp.example",
      port: 2775,
      system_id: "acme",
      password: null,
      system_type: null,
      interface_version: "3.4",
      address_range: null,
      tls: true,
      tls_server_name: null,
      tls_ca_file: null,
      tls_pin_sha256: null,
    };
    const operations: [(b: Backend) => Promise<unknown>, string, Record<string, unknown> | undefined][] = [
      [(b) => b.submitMessage({ destination: "+1", text: "x" }, "k1"), "submit_message", {
        message: { destination: "+1", text: "x" },
        idempotencyKey: "k1",
      }],
      [(b) => b.submitMessage({ destination: "+1", text: "x" }), "submit_message", {
        message: { destination: "+1", text: "x" },
        idempotencyKey: null,
      }],
      [(b) => b.submitBatch({ messages: [{ destination: "+1", text: "x" }] }, "k2"), "submit_batch", {
        batch: { messages: [{ destination: "+1", text: "x" }] },
        idempotencyKey: "k2",
      }],
      [(b) => b.submitBatch({ messages: [] }), "submit_batch", { batch: { messages: [] }, idempotencyKey: null }],
      [(b) => b.previewMessages({ messages: [{ destination: "+1", text: "x" }] }), "preview_messages", {
        batch: { messages: [{ destination: "+1", text: "x" }] },
      }],
      [(b) => b.listMessages(filter), "list_messages", { filter }],
      [(b) => b.message(7), "message", { id: 7 }],
      [(b) => b.retry(7, action), "retry", { id: 7, action }],
      [(b) => b.cancel(7, action), "cancel", { id: 7, action }],
      [(b) => b.listExceptions({ status: null, kind: null, cursor: null, limit: 10 }), "list_exceptions", {
        filter: { status: null, kind: null, cursor: null, limit: 10 },
      }],
      [(b) => b.exception(3), "exception", { id: 3 }],
      [(b) => b.resolve(3, { action: "dismiss", note: "noise" }), "resolve", {
        id: 3,
        request: { action: "dismiss", note: "noise" },
      }],
      [(b) => b.dashboard(), "dashboard", undefined],
      [(b) => b.activity("day"), "activity", { window: "day" }],
      [(b) => b.pace(), "pace", undefined],
      [(b) => b.connection(), "connection", undefined],
      [(b) => b.auditLog({ cursor: "c", limit: null }), "audit_log", { page: { cursor: "c", limit: null } }],
      [(b) => b.listKeys(), "list_keys", undefined],
      [(b) => b.createKey(newKey), "create_key", { key: newKey }],
      [(b) => b.revokeKey(2), "revoke_key", { id: 2 }],
      [(b) => b.settings(), "settings", undefined],
      [(b) => b.updateSettings(update), "update_settings", { update }],
      [(b) => b.testConnection(test), "test_connection", { test }],
      [(b) => b.me(), "me", undefined],
      [(b) => b.listAccounts(), "list_accounts", undefined],
      [(b) => b.createAccount({ name: "Marie", role: "operator", password: "a long password" }), "create_account", {
        account: { name: "Marie", role: "operator", password: "a long password" },
      }],
      [(b) => b.updateAccount(4, { role: "viewer", disabled: null, password: null }), "update_account", {
        id: 4,
        change: { role: "viewer", disabled: null, password: null },
      }],
      [(b) => b.listSessions(), "list_sessions", undefined],
      [(b) => b.revokeSession(9), "revoke_session", { id: 9 }],
      [(b) => b.alerts(), "alerts", undefined],
      [(b) => b.acknowledgeAlert(5, { note: "provider called" }), "acknowledge_alert", { id: 5, request: { note: "provider called" } }],
      [(b) => b.testAlert({ channel: "email" }), "test_alert", { request: { channel: "email" } }],
    ];
    for (const [operation, command, args] of operations) {
      calls.length = 0;
      await operation(backend);
      expect(calls, command).toEqual([[command, args]]);
    }
  });

  it("answers void for commands that return nothing", async () => {
    const backend = new TauriBackend(invoking(() => null), noListen);
    await expect(backend.retry(1, { note: "", confirm_duplicate: false, override_limits: false })).resolves.toBeUndefined();
    await expect(backend.revokeKey(1)).resolves.toBeUndefined();
    await expect(backend.acknowledgeAlert(1, { note: "on it" })).resolves.toBeUndefined();
  });

  it("surfaces a command's ApiError as a BackendError with the same code and fields", async () => {
    const errors = [{ field: "destination", code: "invalid_number", params: {}, message: "not a phone number" }];
    const backend = new TauriBackend(
      invoking(() => Promise.reject({ code: "invalid", message: "destination: not a phone number", errors })),
      noListen,
    );
    const error = await backend.submitMessage({ destination: "x", text: "y" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ code: "invalid", message: "destination: not a phone number", errors });
  });

  it("reports a bare string rejection from Tauri itself as bad_response", async () => {
    const backend = new TauriBackend(invoking(() => Promise.reject("command app_info not found")), noListen);
    await expect(backend.info()).rejects.toMatchObject({
      code: "bad_response",
      message: "command app_info not found",
    });
  });

  describe("subscribe", () => {
    it("passes the shell's change events on, resyncing once the listeners are live", async () => {
      const bus = fakeEvents();
      const seen: (ChangeEvent | "resync")[] = [];
      const stop = new TauriBackend(invoking(() => null), bus.listen).subscribe(
        (e) => seen.push(e),
        () => seen.push("resync"),
      );
      await flush();
      bus.emit("change", { entity: "message", id: 4 });
      bus.emit("change", { entity: "message" }); // not a ChangeEvent: ignored
      bus.emit("change", { entity: "hologram", id: 4 }); // no kind of row this UI knows: ignored
      bus.emit("change", { entity: "alert", id: 2 }); // an alert fired, was acknowledged or resolved
      bus.emit("resync", 12);
      expect(seen).toEqual(["resync", { entity: "message", id: 4 }, { entity: "alert", id: 2 }, "resync"]);
      stop();
      expect(bus.count(), "unsubscribing must remove both listeners").toBe(0);
      bus.emit("change", { entity: "message", id: 5 });
      expect(seen).toHaveLength(4);
    });

    it("removes listeners that finish registering after unsubscribe", async () => {
      const bus = fakeEvents();
      bus.hold();
      const seen: unknown[] = [];
      const stop = new TauriBackend(invoking(() => null), bus.listen).subscribe(
        (e) => seen.push(e),
        () => seen.push("resync"),
      );
      stop();
      bus.release();
      await flush();
      expect(bus.count()).toBe(0);
      expect(seen, "nothing may reach a view that already unsubscribed").toEqual([]);
    });
  });
});

describe("TauriBackend.saveOptOuts", () => {
  it("asks for a file in the save dialog, then has the shell write the list there", async () => {
    const invoked: [string, Record<string, unknown> | undefined][] = [];
    let dialog: unknown;
    const backend = new TauriBackend(
      invoking((command, args) => {
        invoked.push([command, args]);
        return 3;
      }),
      noListen,
      (options) => {
        dialog = options;
        return Promise.resolve("/home/ann/opt-outs.csv");
      },
    );
    await expect(backend.saveOptOuts()).resolves.toBe(3);
    expect((dialog as { defaultPath: string }).defaultPath).toMatch(/^smsdesk-opt-outs-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(invoked).toEqual([["save_opt_outs", { path: "/home/ann/opt-outs.csv" }]]);
  });

  it("writes nothing when the dialog is closed, and names a dialog that cannot open", async () => {
    const invoked: string[] = [];
    const closed = new TauriBackend(
      invoking((command) => invoked.push(command)),
      noListen,
      () => Promise.resolve(null),
    );
    await expect(closed.saveOptOuts()).resolves.toBeNull();
    expect(invoked).toEqual([]);
    const broken = new TauriBackend(
      invoking(() => 0),
      noListen,
      () => Promise.reject(new Error("no portal")),
    );
    await expect(broken.saveOptOuts()).rejects.toMatchObject({ code: "dialog_unavailable" });
  });
});

describe("TauriBackend.saveCsv", () => {
  it("asks for a file in the save dialog, then has the shell write the text there; nothing when the dialog is closed", async () => {
    const invoked: [string, Record<string, unknown> | undefined][] = [];
    let dialog: unknown;
    const backend = new TauriBackend(
      invoking((command, args) => {
        invoked.push([command, args]);
        return null;
      }),
      noListen,
      (options) => {
        dialog = options;
        return Promise.resolve("/home/ann/rejected.csv");
      },
    );
    await expect(backend.saveCsv("line,reason\r\n", "contacts-rejected.csv")).resolves.toBe(true);
    expect(dialog).toEqual({ defaultPath: "contacts-rejected.csv", filters: [{ name: "CSV", extensions: ["csv"] }] });
    expect(invoked).toEqual([["save_csv", { path: "/home/ann/rejected.csv", text: "line,reason\r\n" }]]);
    const closed = new TauriBackend(
      invoking((command, args) => invoked.push([command, args])),
      noListen,
      () => Promise.resolve(null),
    );
    await expect(closed.saveCsv("x", "x.csv")).resolves.toBe(false);
    expect(invoked).toHaveLength(1);
  });
});

describe("TauriBackend.exportMessages", () => {
  type Invoked = [string, Record<string, unknown> | undefined];

  it("asks for a file in the save dialog, then has the engine write it, passing its progress events on", async () => {
    const bus = fakeEvents();
    const invoked: Invoked[] = [];
    let dialog: unknown;
    const backend = new TauriBackend(
      invoking((command, args) => {
        invoked.push([command, args]);
        bus.emit("export-progress", { done: 500, total: 700 });
        bus.emit("export-progress", { done: 700, total: 700 });
        return 700;
      }),
      bus.listen,
      (options) => {
        dialog = options;
        return Promise.resolve("/home/ann/messages.csv");
      },
    );
    const seen: unknown[] = [];
    await expect(backend.exportMessages(filter, { onProgress: (p) => seen.push(p) })).resolves.toBe(700);
    expect(dialog).toMatchObject({ filters: [{ name: "CSV", extensions: ["csv"] }] });
    expect((dialog as { defaultPath: string }).defaultPath).toMatch(/^messages-\d{8}-\d{4}\.csv$/);
    expect(invoked).toEqual([["export_messages", { filter: { ...filter, limit: null }, path: "/home/ann/messages.csv" }]]);
    expect(seen).toEqual([
      { done: 500, total: 700 },
      { done: 700, total: 700 },
    ]);
    expect(bus.count(), "the progress listener is removed afterwards").toBe(0);
  });

  it("writes nothing when the dialog is closed without a file", async () => {
    const invoked: string[] = [];
    const backend = new TauriBackend(
      invoking((command) => invoked.push(command)),
      noListen,
      () => Promise.resolve(null),
    );
    await expect(backend.exportMessages(filter)).resolves.toBeNull();
    expect(invoked).toEqual([]);
  });

  it("reports a save dialog that cannot be opened as dialog_unavailable", async () => {
    const backend = new TauriBackend(
      invoking(() => 0),
      noListen,
      () => Promise.reject(new Error("GTK could not be initialised")),
    );
    await expect(backend.exportMessages(filter)).rejects.toMatchObject({
      code: "dialog_unavailable",
      message: "the save dialog could not be opened: GTK could not be initialised",
    });
  });

  it("cancels with cancel_export when the signal aborts, and reports the engine's cancelled", async () => {
    const invoked: string[] = [];
    let stopped: () => void = () => {};
    const backend = new TauriBackend(
      invoking((command) => {
        invoked.push(command);
        if (command === "cancel_export") {
          stopped();
          return null;
        }
        return new Promise((_resolve, reject) => {
          stopped = () => reject({ code: "cancelled", message: "the export was cancelled" });
        });
      }),
      noListen,
      () => Promise.resolve("/tmp/x.csv"),
    );
    const controller = new AbortController();
    const result = backend.exportMessages(filter, { signal: controller.signal });
    await flush();
    controller.abort();
    await expect(result).rejects.toMatchObject({ code: "cancelled" });
    expect(invoked).toEqual(["export_messages", "cancel_export"]);
  });
});
