import { invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import { save } from "@tauri-apps/plugin-dialog";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { ExportProgress } from "../bindings/ExportProgress";
import type { MessageFilter } from "../bindings/MessageFilter";
import type { OperationRoute, Operations } from "../bindings/operations";
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
import { operationsOver } from "./operations";

export type InvokeFn = <T>(command: string, args?: Record<string, unknown>) => Promise<T>;
export type ListenFn = <T>(event: string, handler: (event: { payload: T }) => void) => Promise<() => void>;
/** The native save dialog: the chosen path, or null when it was closed without one. */
export type SaveFn = (options: {
  defaultPath: string;
  filters: { name: string; extensions: string[] }[];
}) => Promise<string | null>;

// The operations are assigned in the constructor, from the catalogue.
export interface TauriBackend extends Operations {}

/**
 * Talks to the engine through Tauri commands, inside the desktop window: one command per
 * operation, named as in the catalogue, with its arguments as named fields (camelCase). The
 * window is the operator: it needs no key.
 */
export class TauriBackend implements Backend {
  readonly #invoke: InvokeFn;
  readonly #listen: ListenFn;
  readonly #save: SaveFn;

  constructor(invokeFn: InvokeFn = invoke, listenFn: ListenFn = listen, saveFn: SaveFn = save) {
    this.#invoke = invokeFn;
    this.#listen = listenFn;
    this.#save = saveFn;
    Object.assign(
      this,
      operationsOver((route, args) => this.#operation(route, args)),
    );
  }

  /** Asks for a file in the native save dialog, then has the shell write the list there (`save_opt_outs`). */
  async saveOptOuts(): Promise<number | null> {
    const day = new Date().toISOString().slice(0, 10);
    const path = await this.#choose(`smsdesk-opt-outs-${day}.csv`);
    if (path === null) return null;
    return this.#call<number>("save_opt_outs", { path });
  }

  /** Asks for a file in the native save dialog, then has the shell write the text there (`save_csv`). */
  async saveCsv(text: string, name: string): Promise<boolean> {
    const path = await this.#choose(name);
    if (path === null) return false;
    await this.#call<void>("save_csv", { path, text });
    return true;
  }

  /** Asks for a file in the native save dialog, then has the shell write the text there (`save_json`). */
  async saveJson(text: string, name: string): Promise<boolean> {
    const path = await this.#choose(name, { name: "JSON", extensions: ["json"] });
    if (path === null) return false;
    await this.#call<void>("save_json", { path, text });
    return true;
  }

  /** A file chosen in the native save dialog, or null when it was closed without one. */
  async #choose(
    defaultPath: string,
    filter: { name: string; extensions: string[] } = { name: "CSV", extensions: ["csv"] },
  ): Promise<string | null> {
    try {
      return await this.#save({ defaultPath, filters: [filter] });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new BackendError(CLIENT_ERROR_CODES.dialogUnavailable, `the save dialog could not be opened: ${reason}`, {
        cause: error,
      });
    }
  }

  /**
   * Asks for a file in the native save dialog, then has the engine write the CSV there
   * (`export_messages`), following its `export-progress` events; aborting asks `cancel_export`.
   */
  async exportMessages(filter: MessageFilter, options: ExportOptions = {}): Promise<number | null> {
    const { onProgress, signal } = options;
    const path = await this.#choose(exportFileName(new Date()));
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

  /** One operation: its command, with each argument by name (a left-out one as null). */
  async #operation(route: OperationRoute, args: readonly unknown[]): Promise<unknown> {
    const named = Object.fromEntries(route.args.map((arg, i) => [arg.name, args[i] ?? null]));
    const answer = await this.#call<unknown>(route.command, route.args.length === 0 ? undefined : named);
    return route.answers ? answer : undefined;
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
