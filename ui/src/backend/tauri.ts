import { invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import type { ApiKeyInfo } from "../bindings/ApiKeyInfo";
import type { AppInfo } from "../bindings/AppInfo";
import type { AuditPage } from "../bindings/AuditPage";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { ConnectionStatus } from "../bindings/ConnectionStatus";
import type { CreatedApiKey } from "../bindings/CreatedApiKey";
import type { Dashboard } from "../bindings/Dashboard";
import type { ExceptionDetail } from "../bindings/ExceptionDetail";
import type { ExceptionFilter } from "../bindings/ExceptionFilter";
import type { ExceptionPage } from "../bindings/ExceptionPage";
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
import { asBackendError, BackendError, CLIENT_ERROR_CODES, isApiError, isChangeEvent, type Backend } from "./backend";

export type InvokeFn = <T>(command: string, args?: Record<string, unknown>) => Promise<T>;
export type ListenFn = <T>(event: string, handler: (event: { payload: T }) => void) => Promise<() => void>;

/**
 * Talks to the engine through Tauri commands, inside the desktop window (src-tauri/src/commands.rs,
 * one command per operation; argument names are the Rust parameters in camelCase). The window is
 * the operator: it needs no key.
 */
export class TauriBackend implements Backend {
  readonly #invoke: InvokeFn;
  readonly #listen: ListenFn;

  constructor(invokeFn: InvokeFn = invoke, listenFn: ListenFn = listen) {
    this.#invoke = invokeFn;
    this.#listen = listenFn;
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
