import type { Activity } from "../bindings/Activity";
import type { ActivityWindow } from "../bindings/ActivityWindow";
import type { ApiError } from "../bindings/ApiError";
import type { ApiKeyInfo } from "../bindings/ApiKeyInfo";
import type { AppInfo } from "../bindings/AppInfo";
import type { AuditPage } from "../bindings/AuditPage";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { ConnectionStatus } from "../bindings/ConnectionStatus";
import type { ConnectionTest } from "../bindings/ConnectionTest";
import type { ConnectionTestResult } from "../bindings/ConnectionTestResult";
import type { CreatedApiKey } from "../bindings/CreatedApiKey";
import type { Dashboard } from "../bindings/Dashboard";
import type { ExceptionDetail } from "../bindings/ExceptionDetail";
import type { ExceptionFilter } from "../bindings/ExceptionFilter";
import type { ExceptionPage } from "../bindings/ExceptionPage";
import type { ExportProgress } from "../bindings/ExportProgress";
import type { FieldError } from "../bindings/FieldError";
import type { MessageAction } from "../bindings/MessageAction";
import type { MessageDetail } from "../bindings/MessageDetail";
import type { MessageFilter } from "../bindings/MessageFilter";
import type { MessagePage } from "../bindings/MessagePage";
import type { NewApiKey } from "../bindings/NewApiKey";
import type { PageRequest } from "../bindings/PageRequest";
import type { Preview } from "../bindings/Preview";
import type { ResolveRequest } from "../bindings/ResolveRequest";
import type { SettingsSaved } from "../bindings/SettingsSaved";
import type { SettingsUpdate } from "../bindings/SettingsUpdate";
import type { SettingsView } from "../bindings/SettingsView";
import type { SubmitBatch } from "../bindings/SubmitBatch";
import type { SubmitMessage } from "../bindings/SubmitMessage";
import type { SubmittedBatch } from "../bindings/SubmittedBatch";
import type { SubmittedMessage } from "../bindings/SubmittedMessage";

/**
 * Everything the UI asks of the engine: the engine's service, operation for operation. There are
 * two implementations, one per transport (Tauri IPC inside the desktop window, HTTP in a
 * browser); screens only ever see this interface. Every method rejects with a BackendError.
 */
export interface Backend {
  info(): Promise<AppInfo>;

  /** Hands in one message; answers once it is committed to the queue. A repeat with the same idempotency key gets the first answer. */
  submitMessage(message: SubmitMessage, idempotencyKey?: string): Promise<SubmittedMessage>;
  /** Hands in several messages (at most intake.max_batch): all are queued, or none. Same idempotency rules. */
  submitBatch(batch: SubmitBatch, idempotencyKey?: string): Promise<SubmittedBatch>;
  /** Checks messages as a submit would (number, encoding, parts, field errors); writes nothing. */
  previewMessages(batch: SubmitBatch): Promise<Preview>;
  listMessages(filter: MessageFilter): Promise<MessagePage>;
  /**
   * Saves every message `filter` selects (its cursor and limit are ignored) as a CSV file: a
   * download in a browser, a file chosen in the save dialog in the window. Resolves with how many
   * messages were exported, or null when the save dialog was closed without choosing a file.
   * Rejects with `cancelled` once `options.signal` aborts (nothing is saved), and with
   * `dialog_unavailable` when the window cannot show a save dialog.
   */
  exportMessages(filter: MessageFilter, options?: ExportOptions): Promise<number | null>;
  message(id: number): Promise<MessageDetail>;
  retry(id: number, action: MessageAction): Promise<void>;
  cancel(id: number, action: MessageAction): Promise<void>;

  listExceptions(filter: ExceptionFilter): Promise<ExceptionPage>;
  exception(id: number): Promise<ExceptionDetail>;
  resolve(id: number, request: ResolveRequest): Promise<void>;

  dashboard(): Promise<Dashboard>;
  /** Submits, receipts and receipt latency over the window (UTC buckets), and outcomes by day. */
  activity(window: ActivityWindow): Promise<Activity>;
  /** The SMPP connection and its link state now (not a store change: poll it). */
  connection(): Promise<ConnectionStatus>;
  auditLog(page: PageRequest): Promise<AuditPage>;

  /** Key management is the operator's: over HTTP these reject with `forbidden`. */
  listKeys(): Promise<ApiKeyInfo[]>;
  createKey(key: NewApiKey): Promise<CreatedApiKey>;
  revokeKey(id: number): Promise<void>;

  /** Settings are the operator's too: over HTTP with an API key these reject with `forbidden`. */
  settings(): Promise<SettingsView>;
  /** Saves changed settings; rejects with `invalid` naming every bad field, and writes nothing then. */
  updateSettings(update: SettingsUpdate): Promise<SettingsSaved>;
  /** A trial bind with unsaved connection settings. */
  testConnection(test: ConnectionTest): Promise<ConnectionTestResult>;

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

/** Codes of the engine's answers that the UI itself acts on. */
export const ERROR_CODES = {
  /** No key, or an unknown or revoked one (HTTP 401): the browser must sign in again. */
  unauthorized: "unauthorized",
  /** The key may not do this (HTTP 403): key management is the operator's. */
  forbidden: "forbidden",
  /** Fields were refused; `errors` names each. */
  invalid: "invalid",
} as const;

/**
 * An error as the UI sees it. Screens branch on `code` (a stable identifier
 * chosen by the engine or listed in CLIENT_ERROR_CODES), never on `message`,
 * which is for people.
 */
export class BackendError extends Error implements ApiError {
  readonly code: string;
  readonly errors: FieldError[];

  constructor(code: string, message: string, options?: { cause?: unknown; errors?: FieldError[] | undefined }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "BackendError";
    this.code = code;
    this.errors = options?.errors ?? [];
  }

  static from(error: ApiError, cause?: unknown): BackendError {
    return new BackendError(error.code, error.message, { cause, errors: error.errors });
  }
}

export function isApiError(value: unknown): value is ApiError {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Record<string, unknown>;
  if (typeof candidate["code"] !== "string" || typeof candidate["message"] !== "string") return false;
  const errors = candidate["errors"];
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

export function isChangeEvent(value: unknown): value is ChangeEvent {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return typeof candidate["entity"] === "string" && typeof candidate["id"] === "number";
}

/** Any rejection as a BackendError (a bug in the UI surfaces as bad_response rather than a crash). */
export function asBackendError(error: unknown): BackendError {
  if (error instanceof BackendError) return error;
  if (isApiError(error)) return BackendError.from(error, error);
  const message = typeof error === "string" ? error : error instanceof Error ? error.message : String(error);
  return new BackendError(CLIENT_ERROR_CODES.badResponse, message, { cause: error });
}
