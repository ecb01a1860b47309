import { invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import { save } from "@tauri-apps/plugin-dialog";
import type { Activity } from "../bindings/Activity";
import type { ActivityWindow } from "../bindings/ActivityWindow";
import type { ApiKeyInfo } from "../bindings/ApiKeyInfo";
import type { AppInfo } from "../bindings/AppInfo";
import type { AuditPage } from "../bindings/AuditPage";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { ConnectionStatus } from "../bindings/ConnectionStatus";
import type { ConnectionTest } from "../bindings/ConnectionTest";
import type { ConnectionTestResult } from "../bindings/ConnectionTestResult";
import type { CreatedApiKey } from "../bindings/CreatedApiKey";
import type { SettingsSaved } from "../bindings/SettingsSaved";
import type { SettingsUpdate } from "../bindings/SettingsUpdate";
import type { SettingsView } from "../bindings/SettingsView";
import type { Dashboard } from "../bindings/Dashboard";
import type { ExceptionDetail } from "../bindings/ExceptionDetail";
import type { ExceptionFilter } from "../bindings/ExceptionFilter";
import type { ExceptionPage } from "../bindings/ExceptionPage";
import type { ExportProgress } from "../bindings/ExportProgress";
import type { MessageAction } from "../bindings/MessageAction";
import type { MessageDetail } from "../bindings/MessageDetail";
import type { MessageFilter } from "../bindings/MessageFilter";
import type { MessagePage } from "../bindings/MessagePage";
import type { NewApiKey } from "../bindings/NewApiKey";
import type { PageRequest } from "../bindings/PageRequest";
import type { Preview } from "../bindings/Preview";
import type { ResolveRequest } from "../bindings/ResolveRequest";
import type { SubmitBatch } from "../bindings/SubmitBatch";
import type { SubmitMessage } from "../bindings/SubmitMessage";
import type { SubmittedBatch } from "../bindings/SubmittedBatch";
import type { SubmittedMessage } from "../bindings/SubmittedMessage";
import {
  asBackendError,
  BackendError,
  CLIENT_ERROR_CODES,
  isApiError,
  isChangeEvent,
  type Backend,
  type ExportOptions,
} from "./backend";
import { exportFileName } from "./exportFile";

export type InvokeFn = <T>(command: string, args?: Record<string, unknown>) => Promise<T>;
export type ListenFn = <T>(event: string, handler: (event: { payload: T }) => void) => Promise<() => void>;
/** The native save dialog: the chosen path, or null when it was closed without one. */
export type SaveFn = (options: {
  defaultPath: string;
  filters: { name: string; extensions: string[] }[];
}) => Promise<string | null>;

/**
 * Talks to the engine through Tauri commands, inside the desktop window (src-tauri/src/commands.rs,
 * one command per operation; argument names are the Rust parameters in camelCase). The window is
 * the operator: it needs no key.
 */
export class TauriBackend implements Backend {
  readonly #invoke: InvokeFn;
  readonly #listen: ListenFn;
  readonly #save: SaveFn;

  constructor(invokeFn: InvokeFn = invoke, listenFn: ListenFn = listen, saveFn: SaveFn = save) {
    this.#invoke = invokeFn;
    this.#listen = listenFn;
    this.#save = saveFn;
  }

  info(): Promise<AppInfo> {
    return this.#call("app_info");
  }

  submitMessage(message: SubmitMessage, idempotencyKey?: string): Promise<SubmittedMessage> {
    return this.#call("submit_message", { message, idempotencyKey: idempotencyKey ?? null });
  }

  submitBatch(batch: SubmitBatch, idempotencyKey?: string): Promise<SubmittedBatch> {
    return this.#call("submit_batch", { batch, idempotencyKey: idempotencyKey ?? null });
  }

  previewMessages(batch: SubmitBatch): Promise<Preview> {
    return this.#call("preview_messages", { batch });
  }

  listMessages(filter: MessageFilter): Promise<MessagePage> {
    return this.#call("list_messages", { filter });
  }

  message(id: number): Promise<MessageDetail> {
    return this.#call("message_detail", { id });
  }

  /**
   * Asks for a file in the native save dialog, then has the engine write the CSV there
   * (`export_messages`), following its `export-progress` events; aborting asks `cancel_export`.
   */
  async exportMessages(filter: MessageFilter, options: ExportOptions = {}): Promise<number | null> {
    const { onProgress, signal } = options;
    let path: string | null;
    try {
      path = await this.#save({ defaultPath: exportFileName(new Date()), filters: [{ name: "CSV", extensions: ["csv"] }] });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new BackendError(CLIENT_ERROR_CODES.dialogUnavailable, `the save dialog could not be opened: ${reason}`, {
        cause: error,
      });
    }
    if (path === null) return null;
    if (signal?.aborted === true) throw new BackendError(CLIENT_ERROR_CODES.cancelled, "the export was cancelled");
    const stop = await this.#listen<ExportProgress>("export-progress", ({ payload }) => onProgress?.(payload)).catch(
      () => () => {},
    );
    const cancel = (): void => {
      this.#invoke("cancel_export").catch(() => {});
    };
    signal?.addEventListener("abort", cancel);
    try {
      return await this.#call<number>("export_messages", { filter: { ...filter, cursor: null, limit: null }, path });
    } finally {
      signal?.removeEventListener("abort", cancel);
      unlisten(stop);
    }
  }

  retry(id: number, action: MessageAction): Promise<void> {
    return this.#done("retry_message", { id, action });
  }

  cancel(id: number, action: MessageAction): Promise<void> {
    return this.#done("cancel_message", { id, action });
  }

  listExceptions(filter: ExceptionFilter): Promise<ExceptionPage> {
    return this.#call("list_exceptions", { filter });
  }

  exception(id: number): Promise<ExceptionDetail> {
    return this.#call("exception_detail", { id });
  }

  resolve(id: number, request: ResolveRequest): Promise<void> {
    return this.#done("resolve_exception", { id, request });
  }

  dashboard(): Promise<Dashboard> {
    return this.#call("dashboard");
  }

  activity(window: ActivityWindow): Promise<Activity> {
    return this.#call("dashboard_activity", { window });
  }

  connection(): Promise<ConnectionStatus> {
    return this.#call("connection_status");
  }

  auditLog(page: PageRequest): Promise<AuditPage> {
    return this.#call("audit_log", { page });
  }

  listKeys(): Promise<ApiKeyInfo[]> {
    return this.#call("list_keys");
  }

  createKey(key: NewApiKey): Promise<CreatedApiKey> {
    return this.#call("create_key", { key });
  }

  revokeKey(id: number): Promise<void> {
    return this.#done("revoke_key", { id });
  }

  settings(): Promise<SettingsView> {
    return this.#call("settings");
  }

  updateSettings(update: SettingsUpdate): Promise<SettingsSaved> {
    return this.#call("update_settings", { update });
  }

  testConnection(test: ConnectionTest): Promise<ConnectionTestResult> {
    return this.#call("test_connection", { test });
  }

  /** The shell forwards the store's committed changes as the events `change` and `resync`. */
  subscribe(onChange: (event: ChangeEvent) => void, onResync: () => void): () => void {
    let closed = false;
    let unlisteners: (() => void)[] = [];
    const registered = Promise.all([
      this.#listen<unknown>("change", ({ payload }) => {
        if (!closed && isChangeEvent(payload)) onChange(payload);
      }),
      this.#listen<unknown>("resync", () => {
        if (!closed) onResync();
      }),
    ]);
    registered.then(
      (fns) => {
        if (closed) {
          fns.forEach(unlisten);
          return;
        }
        unlisteners = fns;
        // Changes committed before the listeners were registered were not seen.
        onResync();
      },
      (error: unknown) => {
        // Without events the screens still work; they only stop refreshing by themselves.
        console.warn("smsdesk: live updates unavailable:", asBackendError(error).message);
      },
    );
    return () => {
      closed = true;
      unlisteners.forEach(unlisten);
      unlisteners = [];
    };
  }

  async #done(command: string, args?: Record<string, unknown>): Promise<void> {
    await this.#call<unknown>(command, args);
  }

  async #call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
    try {
      return await this.#invoke<T>(command, args);
    } catch (error) {
      throw toBackendError(error);
    }
  }
}

function unlisten(fn: () => void): void {
  try {
    fn();
  } catch {
    // The window is going away; nothing is listening any more anyway.
  }
}

/**
 * Commands reject with an ApiError object. Tauri itself rejects with a plain
 * string (unknown command, denied by capabilities, bad arguments), which is a
 * mismatch between this UI and the shell, not something the user did.
 */
function toBackendError(error: unknown): BackendError {
  if (isApiError(error)) return BackendError.from(error, error);
  const message = typeof error === "string" ? error : error instanceof Error ? error.message : String(error);
  return new BackendError(CLIENT_ERROR_CODES.badResponse, message, { cause: error });
}
