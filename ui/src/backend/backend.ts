import type { ApiError } from "../bindings/ApiError";
import type { AppInfo } from "../bindings/AppInfo";

/**
 * Everything the UI asks of the engine. There are two implementations, one per
 * transport (Tauri IPC inside the desktop window, HTTP in a browser); screens
 * only ever see this interface.
 */
export interface Backend {
  appInfo(): Promise<AppInfo>;
}

/** Codes produced on the UI side, when the engine could not answer with its own. */
export const CLIENT_ERROR_CODES = {
  /** The engine could not be reached at all (server down, connection refused, timeout). */
  unreachable: "unreachable",
  /** The engine answered, but not with something this UI understands. */
  badResponse: "bad_response",
} as const;

/**
 * An error as the UI sees it. Screens branch on `code` (a stable identifier
 * chosen by the engine or listed in CLIENT_ERROR_CODES), never on `message`,
 * which is for people.
 */
export class BackendError extends Error implements ApiError {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "BackendError";
    this.code = code;
  }
}

export function isApiError(value: unknown): value is ApiError {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return typeof candidate["code"] === "string" && typeof candidate["message"] === "string";
}
