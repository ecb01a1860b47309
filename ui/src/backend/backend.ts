import type { ApiError } from "../bindings/ApiError";
import type { ChangeEntity } from "../bindings/ChangeEntity";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { ErrorCode } from "../bindings/ErrorCode";
import type { ExportProgress } from "../bindings/ExportProgress";
import type { FieldError } from "../bindings/FieldError";
import type { MessageFilter } from "../bindings/MessageFilter";
import type { Operations } from "../bindings/operations";

/**
 * Everything the UI asks of the engine. The operations (`Operations`, one method per operation
 * of the engine's catalogue, generated with its documentation) and two that differ by transport:
 * the export and live updates. There are two implementations, one per transport (Tauri IPC
 * inside the desktop window, HTTP in a browser); screens only ever see this interface. Every
 * method rejects with a BackendError.
 */
export interface Backend extends Operations {
  /**
   * Saves every message `filter` selects (its cursor and limit are ignored) as a CSV file: a
   * download in a browser, a file chosen in the save dialog in the window. Resolves with how many
   * messages were exported, or null when the save dialog was closed without choosing a file.
   * Rejects with `cancelled` once `options.signal` aborts (nothing is saved), and with
   * `dialog_unavailable` when the window cannot show a save dialog.
   */
  exportMessages(filter: MessageFilter, options?: ExportOptions): Promise<number | null>;

  /**
   * Saves the opt-out list as a CSV file, as the engine writes it: a download in a browser, a
   * file chosen in the save dialog in the window. Resolves with how many numbers it holds, or
   * null when the save dialog was closed without choosing a file. Rejects with
   * `dialog_unavailable` when the window cannot show a save dialog.
   */
  saveOptOuts(): Promise<number | null>;

  /**
   * Saves a CSV text the UI made (the rows a CSV import left out) as a file offered under `name`:
   * a download in a browser, a file chosen in the save dialog in the window. Resolves true once
   * saved (in a browser: handed to its downloads), false when the save dialog was closed without
   * choosing a file. Rejects with `dialog_unavailable` when the window cannot show a save dialog.
   */
  saveCsv(text: string, name: string): Promise<boolean>;

  /**
   * Saves a JSON text the UI made (a number's record, asked for by its owner) as a file offered
   * under `name`: a download in a browser, the native save dialog in the desktop window
   * (`save_json`). False when the person closed the dialog without a file.
   */
  saveJson?(text: string, name: string): Promise<boolean>;

  /**
   * Live updates: `onChange` after each committed change, `onResync` whenever changes may have
   * been missed (the subscription just became live, reconnected, or fell behind), upon which a
   * view reloads what it shows. Returns the unsubscribe function.
   */
  subscribe(onChange: (event: ChangeEvent) => void, onResync: () => void): () => void;
}

/** How an export reports its progress and is cancelled. */
export interface ExportOptions {
  /** Told the total first, then how many rows are done, as they are. */
  readonly onProgress?: (progress: ExportProgress) => void;
  /** Aborting it cancels the export. */
  readonly signal?: AbortSignal;
}

/** Codes produced on the UI side, when the engine could not answer with its own. */
export const CLIENT_ERROR_CODES = {
  /** The engine could not be reached at all (server down, connection refused, timeout). */
  unreachable: "unreachable",
  /** The engine answered, but not with something this UI understands. */
  badResponse: "bad_response",
  /** The user cancelled what was under way (an export). */
  cancelled: "cancelled",
  /** The window could not show a save dialog (no desktop portal, a GTK problem). */
  dialogUnavailable: "dialog_unavailable",
} as const;

/** A code produced on the UI side. */
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[keyof typeof CLIENT_ERROR_CODES];

/** Any code a BackendError carries: the engine's own, or one of the UI's. */
export type BackendErrorCode = ErrorCode | ClientErrorCode;

/** Codes of the engine's answers that the UI itself acts on. */
export const ERROR_CODES = {
  /** No session, or one that ended (HTTP 401): the browser must sign in again. Also a wrong name or password. */
  unauthorized: "unauthorized",
  /** The caller's role does not allow this (HTTP 403). */
  forbidden: "forbidden",
  /** A state-changing request without the session's CSRF token, or with another session's (HTTP 403). */
  csrfTokenMissing: "csrf_token_missing",
  /** Too many failed sign-ins (HTTP 429); `retryAfterSeconds` says when to try again. */
  tooManyAttempts: "too_many_attempts",
  /** Fields were refused; `errors` names each. */
  invalid: "invalid",
  /** A retry past its kind's number of tries (HTTP 409); an admin may override. */
  attemptsExhausted: "attempts_exhausted",
  /** A retry past the message's own validity (HTTP 409): never sent, whoever asks. */
  validityEnded: "validity_ended",
  /** A retry past its kind's maximum age (HTTP 409); an admin may override. */
  tooOld: "too_old",
  /** A message to a number on the opt-out list (HTTP 422): refused at intake, on a retry or a resend. */
  destinationOptedOut: "destination_opted_out",
  /** A retry of a message whose last try was refused for good (HTTP 409); `commandStatus` names the status. */
  permanentFailureRetry: "permanent_failure_retry",
  /** A template (or an account) with this name exists already (HTTP 409). */
  nameTaken: "name_taken",
} as const satisfies Record<string, ErrorCode>;

/**
 * An error as the UI sees it. Screens branch on `code` (a stable identifier
 * chosen by the engine or listed in CLIENT_ERROR_CODES), never on `message`,
 * which is for people.
 */
export class BackendError extends Error {
  readonly code: BackendErrorCode;
  readonly errors: FieldError[];
  /** When the engine said how long to wait before trying again (`Retry-After`), in seconds. */
  readonly retryAfterSeconds: number | null;
  /** With `permanent_failure_retry`: the SMSC's status the last try was refused with (`ESME_RINVDSTADR`). */
  readonly commandStatus: string | null;

  constructor(
    code: BackendErrorCode,
    message: string,
    options?: {
      cause?: unknown;
      errors?: FieldError[] | undefined;
      retryAfterSeconds?: number | null;
      commandStatus?: string | null | undefined;
    },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "BackendError";
    this.code = code;
    this.errors = options?.errors ?? [];
    this.retryAfterSeconds = options?.retryAfterSeconds ?? null;
    this.commandStatus = options?.commandStatus ?? null;
  }

  static from(error: ApiError, cause?: unknown, retryAfterSeconds?: number | null): BackendError {
    return new BackendError(error.code, error.message, {
      cause,
      errors: error.errors,
      retryAfterSeconds: retryAfterSeconds ?? null,
      commandStatus: error.command_status,
    });
  }
}

export function isApiError(value: unknown): value is ApiError {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Record<string, unknown>;
  if (typeof candidate["code"] !== "string" || typeof candidate["message"] !== "string") return false;
  const errors = candidate["errors"];
  const status = candidate["command_status"];
  if (status !== undefined && status !== null && typeof status !== "string") return false;
  return errors === undefined || (Array.isArray(errors) && errors.every(isFieldError));
}

function isFieldError(value: unknown): value is FieldError {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate["field"] === "string" &&
    typeof candidate["code"] === "string" &&
    typeof candidate["message"] === "string"
  );
}

/** Every kind of row a change names: the type check refuses this list if it misses one or names another. */
const CHANGE_ENTITIES: Readonly<Record<ChangeEntity, true>> = {
  message: true,
  queue: true,
  attempt: true,
  receipt: true,
  logical_event: true,
  projection: true,
  exception: true,
  audit: true,
  inbox_message: true,
  opt_out: true,
  alert: true,
};

/** A change of a kind of row this UI knows (one it does not know, it has no view to refresh for). */
export function isChangeEvent(value: unknown): value is ChangeEvent {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Record<string, unknown>;
  const entity = candidate["entity"];
  return typeof entity === "string" && Object.hasOwn(CHANGE_ENTITIES, entity) && typeof candidate["id"] === "number";
}

/** Any rejection as a BackendError (a bug in the UI surfaces as bad_response rather than a crash). */
export function asBackendError(error: unknown): BackendError {
  if (error instanceof BackendError) return error;
  if (isApiError(error)) return BackendError.from(error, error);
  const message = typeof error === "string" ? error : error instanceof Error ? error.message : String(error);
  return new BackendError(CLIENT_ERROR_CODES.badResponse, message, { cause: error });
}
