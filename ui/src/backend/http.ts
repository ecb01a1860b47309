import type { AppInfo } from "../bindings/AppInfo";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { ExportProgress } from "../bindings/ExportProgress";
import type { MessageFilter } from "../bindings/MessageFilter";
import type { OperationRoute, Operations } from "../bindings/operations";
import { BackendError, CLIENT_ERROR_CODES, ERROR_CODES, isApiError, type Backend, type ExportOptions } from "./backend";
import { openEventStream } from "./events";
import { CsvRecordCounter, downloadBlob, exportFileName } from "./exportFile";
import { operationsOver } from "./operations";
import { ApiKeySession, memoryKeyStore, type KeySignIn } from "./session";

const API_PREFIX = "/api/v1";
const DEFAULT_TIMEOUT_MS = 15_000;

export interface HttpBackendOptions {
  /** Gives up on a request after this long and reports the engine as unreachable. */
  timeoutMs?: number;
  /** The sign-in every request uses; a fresh, signed-out one when not given. */
  session?: ApiKeySession;
  /** Passed to the event stream (tests shorten its waits). */
  events?: { initialDelayMs?: number; maxDelayMs?: number; idleTimeoutMs?: number };
  /** How an exported file reaches the user: a download by default. */
  download?: (file: Blob, name: string) => void;
}

type Query = Readonly<Record<string, string | number | boolean | null | undefined>>;

interface Call {
  readonly method: "GET" | "POST" | "PATCH";
  readonly path: string;
  readonly query?: Query;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Overrides the session's key (to check a key before signing in with it). */
  readonly key?: string;
}

// The operations are assigned in the constructor, from the catalogue.
export interface HttpBackend extends Operations {}

/**
 * Talks to the engine's HTTP API, for the UI served to a browser: each operation at the method
 * and path the catalogue gives it. Every request carries the
 * session's key as `Authorization: Bearer`; a 401 drops the key, which takes the UI back to the
 * sign-in screen.
 */
export class HttpBackend implements Backend, KeySignIn {
  readonly session: ApiKeySession;
  readonly #base: string;
  readonly #timeoutMs: number;
  readonly #events: HttpBackendOptions["events"];
  readonly #download: (file: Blob, name: string) => void;

  /** `base` is the engine's origin, e.g. `http://127.0.0.1:8787`, without the API prefix. */
  constructor(base: string, options: HttpBackendOptions = {}) {
    this.#base = base.replace(/\/+$/, "");
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.session = options.session ?? new ApiKeySession(memoryKeyStore());
    this.#events = options.events;
    this.#download = options.download ?? downloadBlob;
    Object.assign(
      this,
      operationsOver((route, args) => this.#operation(route, args)),
    );
  }

  async signIn(key: string): Promise<AppInfo> {
    const candidate = key.trim();
    if (candidate === "") throw new BackendError(ERROR_CODES.unauthorized, "an API key is needed");
    const info = await this.#call<AppInfo>({ method: "GET", path: "/info", key: candidate });
    this.session.signIn(candidate);
    return info;
  }

  /**
   * Reads GET /messages/export as it streams, counting its records against `X-Total-Count` for
   * the progress, then hands the whole file to the browser as a download.
   */
  async exportMessages(filter: MessageFilter, options: ExportOptions = {}): Promise<number | null> {
    const { onProgress, signal } = options;
    const key = this.session.key;
    if (key === null) throw new BackendError(ERROR_CODES.unauthorized, "not signed in");
    const url = `${this.#base}${API_PREFIX}/messages/export${queryString({ ...filter, cursor: null, limit: null })}`;
    const cancelled = (): BackendError => new BackendError(CLIENT_ERROR_CODES.cancelled, "the export was cancelled");
    let response: Response;
    try {
      response = await fetch(url, {
        method: "GET",
        headers: { Accept: "text/csv", Authorization: `Bearer ${key}` },
        cache: "no-store",
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error) {
      if (signal?.aborted === true) throw cancelled();
      throw new BackendError(CLIENT_ERROR_CODES.unreachable, describeNetworkFailure(`GET ${url}`, error), { cause: error });
    }
    if (!response.ok) {
      const body = await readJson(response);
      const error = isApiError(body)
        ? BackendError.from(body)
        : new BackendError(
            response.status === 401 ? ERROR_CODES.unauthorized : CLIENT_ERROR_CODES.badResponse,
            `GET ${url} answered HTTP ${response.status} without an error body`,
          );
      if (response.status === 401) this.session.refuse(key, error);
      throw error;
    }
    const total = Number(response.headers.get("X-Total-Count"));
    if (response.body === null || !Number.isSafeInteger(total)) {
      throw new BackendError(CLIENT_ERROR_CODES.badResponse, `GET ${url} answered without a CSV body and its count`);
    }
    const progress = (done: number): void => onProgress?.({ done, total } satisfies ExportProgress);
    progress(0);
    const counter = new CsvRecordCounter();
    const chunks: Uint8Array<ArrayBuffer>[] = [];
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        counter.push(value);
        progress(Math.max(0, counter.records - 1));
      }
    } catch (error) {
      if (signal?.aborted === true) throw cancelled();
      throw new BackendError(CLIENT_ERROR_CODES.unreachable, `GET ${url} broke off: ${String(error)}`, { cause: error });
    }
    if (signal?.aborted === true) throw cancelled();
    const exported = Math.max(0, counter.records - 1);
    this.#download(new Blob(chunks, { type: "text/csv;charset=utf-8" }), exportFileName(new Date()));
    return exported;
  }

  subscribe(onChange: (event: ChangeEvent) => void, onResync: () => void): () => void {
    return openEventStream({
      url: `${this.#base}${API_PREFIX}/events`,
      credential: () => this.session.key,
      onChange,
      onResync,
      onUnauthorized: (key, error) => this.session.refuse(key, error),
      ...this.#events,
    });
  }

  /** One operation: its arguments in the path, the query, the body or a header, as its route says. */
  #operation(route: OperationRoute, args: readonly unknown[]): Promise<unknown> {
    let path = route.path;
    const query: Record<string, Query[string]> = {};
    const headers: Record<string, string> = {};
    let body: unknown;
    route.args.forEach((arg, i) => {
      const value = args[i];
      switch (arg.place) {
        case "path":
          path = path.replace(`{${arg.name}}`, segment(value));
          break;
        case "query":
          Object.assign(query, value);
          break;
        case "param":
          query[arg.name] = value as Query[string];
          break;
        case "body":
          body = value;
          break;
        case "header":
          if (value !== undefined && value !== null && arg.header !== undefined) headers[arg.header] = String(value);
          break;
      }
    });
    return this.#call({ method: route.method, path, query, body, headers });
  }

  async #call<T>(call: Call): Promise<T> {
    const url = `${this.#base}${API_PREFIX}${call.path}${queryString(call.query)}`;
    const what = `${call.method} ${url}`;
    const key = call.key ?? this.session.key;
    // Without a key the engine would only answer 401: do not ask.
    if (key === null) throw new BackendError(ERROR_CODES.unauthorized, "not signed in");

    const headers: Record<string, string> = { Accept: "application/json", Authorization: `Bearer ${key}` };
    if (call.body !== undefined) headers["Content-Type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(url, {
        method: call.method,
        headers: { ...headers, ...call.headers },
        body: call.body === undefined ? null : JSON.stringify(call.body),
        cache: "no-store",
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      throw new BackendError(CLIENT_ERROR_CODES.unreachable, describeNetworkFailure(what, error), { cause: error });
    }

    if (response.status === 204) return undefined as T;
    const body = await readJson(response);
    if (!response.ok) {
      const error = isApiError(body)
        ? BackendError.from(body)
        : new BackendError(
            response.status === 401 ? ERROR_CODES.unauthorized : CLIENT_ERROR_CODES.badResponse,
            `${what} answered HTTP ${response.status} without an error body`,
          );
      // A key being checked for sign-in is not the session's; the session keeps what it had.
      if (response.status === 401 && call.key === undefined) this.session.refuse(key, error);
      throw error;
    }
    if (body === undefined) {
      throw new BackendError(CLIENT_ERROR_CODES.badResponse, `${what} answered HTTP ${response.status} without JSON`);
    }
    return body as T;
  }
}

function segment(id: unknown): string {
  return encodeURIComponent(String(id));
}

/** Filters become query parameters; absent (null) fields are left out, as the engine expects. */
function queryString(query: Query | undefined): string {
  if (query === undefined) return "";
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== null && value !== undefined) params.append(name, String(value));
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return (await response.json()) as unknown;
  } catch {
    return undefined;
  }
}

function describeNetworkFailure(what: string, error: unknown): string {
  if (error instanceof DOMException && error.name === "TimeoutError") return `${what} timed out`;
  const reason = error instanceof Error ? error.message : String(error);
  return `${what} failed: ${reason}`;
}
