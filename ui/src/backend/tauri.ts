import { invoke } from "@tauri-apps/api/core";
import type { AppInfo } from "../bindings/AppInfo";
import { BackendError, CLIENT_ERROR_CODES, isApiError, type Backend } from "./backend";

export type InvokeFn = <T>(command: string, args?: Record<string, unknown>) => Promise<T>;

/** Talks to the engine through Tauri commands, inside the desktop window. */
export class TauriBackend implements Backend {
  readonly #invoke: InvokeFn;

  constructor(invokeFn: InvokeFn = invoke) {
    this.#invoke = invokeFn;
  }

  appInfo(): Promise<AppInfo> {
    return this.#call<AppInfo>("app_info");
  }

  async #call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
    try {
      return await this.#invoke<T>(command, args);
    } catch (error) {
      throw toBackendError(error);
    }
  }
}

/**
 * Commands reject with an ApiError object. Tauri itself rejects with a plain
 * string (unknown command, denied by capabilities, bad arguments), which is a
 * mismatch between this UI and the shell, not something the user did.
 */
function toBackendError(error: unknown): BackendError {
  if (isApiError(error)) return new BackendError(error.code, error.message, { cause: error });
  const message = typeof error === "string" ? error : error instanceof Error ? error.message : String(error);
  return new BackendError(CLIENT_ERROR_CODES.badResponse, message, { cause: error });
}
