import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { ExportProgress } from "../bindings/ExportProgress";
import type { FirstAdmin } from "../bindings/FirstAdmin";
import type { Me } from "../bindings/Me";
import type { MessageFilter } from "../bindings/MessageFilter";
import type { OperationRoute, Operations } from "../bindings/operations";
import type { PasswordChange } from "../bindings/PasswordChange";
import type { SetupState } from "../bindings/SetupState";
import type { SignIn } from "../bindings/SignIn";
import { BackendError, CLIENT_ERROR_CODES, ERROR_CODES, isApiError, type Backend, type ExportOptions } from "./backend";
import { openEventStream } from "./events";
import { CsvRecordCounter, downloadBlob, exportFileName, saveCsvText } from "./exportFile";
import { operationsOver } from "./operations";
import { Session, type PeopleAccess } from "./session";

const API_PREFIX = "/api/v1";
const DEFAULT_TIMEOUT_MS = 15_000;

export interface HttpBackendOptions {
  /** Gives up on a request after this long and reports the engine as unreachable. */
  timeoutMs?: number;
  /** Passed to the event stream (tests shorten its waits). */
  events?: { initialDelayMs?: number; maxDelayMs?: number; idleTimeoutMs?: number };
  /** How an exported file reaches the user: a download by default. */
  download?: (file: Blob, name: string) => void;
}

type Query = Readonly<Record<string, string | number | boolean | null | undefined>>;

interface Call {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  readonly path: string;
  readonly query?: Query;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * A 401 here says something else than "the session ended" (a wrong password when signing in
   * or changing it, nobody signed in yet): the session is left alone.
   */
  readonly own401?: boolean;
}

// The operations are assigned in the constructor, from the catalogue.
export interface HttpBackend extends Operations {}

/**
 * Talks to the engine's HTTP API, for the UI served to a browser: each operation at the method
 * and path the catalogue gives it. The browser's session is the `smsdesk_session` cookie, which
 * no script can read and the browser sends with every request to this origin; every request
 * that changes something also carries the session's CSRF token (`X-CSRF-Token`, from `me`),
 * which a page of another site cannot know. A 401 ends the sign-in it was made under, which
 * takes the UI back to the sign-in screen.
 */
export class HttpBackend implements Backend, PeopleAccess {
  readonly session: Session;
  readonly #base: string;
  readonly #timeoutMs: number;
  readonly #events: HttpBackendOptions["events"];
  readonly #download: (file: Blob, name: string) => void;

  /** `base` is the engine's origin, e.g. `http://127.0.0.1:8787`, without the API prefix. */
  constructor(base: string, options: HttpBackendOptions = {}) {
    this.#base = base.replace(/\/+$/, "");
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // `me` goes through #call, whose 401 here means "nobody signed in", not "a sign-in ended".
    this.session = new Session(() => this.#call<Me>({ method: "GET", path: "/me", own401: true }));
    this.#events = options.events;
    this.#download = options.download ?? downloadBlob;
    Object.assign(
      this,
      operationsOver((route, args) => this.#operation(route, args)),
    );
  }

  async signIn(credentials: SignIn): Promise<Me> {
    const me = await this.#call<Me>({ method: "POST", path: "/session", body: credentials, own401: true });
    this.session.signedIn(me);
    return me;
  }

  /** Ends this browser's session; one the engine had already ended counts as signed out too. */
  async signOut(): Promise<void> {
    try {
      await this.#call<void>({ method: "DELETE", path: "/session", own401: true });
    } catch (error) {
      if (!(error instanceof BackendError && error.code === ERROR_CODES.unauthorized)) throw error;
    }
    this.session.signedOut();
  }

  setupState(): Promise<SetupState> {
    return this.#call<SetupState>({ method: "GET", path: "/setup", own401: true });
  }

  async createFirstAdmin(first: FirstAdmin): Promise<Me> {
    const me = await this.#call<Me>({ method: "POST", path: "/setup", body: first, own401: true });
    this.session.signedIn(me);
    return me;
  }

  async changePassword(change: PasswordChange): Promise<void> {
    await this.#call<void>({ method: "POST", path: "/me/password", body: change, own401: true });
    // The engine ends the person's sessions with the change: find out whether this one went too.
    try {
      this.session.signedIn(await this.#call<Me>({ method: "GET", path: "/me", own401: true }));
    } catch (error) {
      if (error instanceof BackendError && error.code === ERROR_CODES.unauthorized) {
        this.session.signedOut({ kind: "password_changed" });
      }
    }
  }

  /** The list as GET /opt-outs/export makes it, handed to the browser as a download. */
  async saveOptOuts(): Promise<number | null> {
    const file = await this.exportOptOuts();
    saveCsvText(file.csv, file.file_name);
    return file.numbers;
  }

  /** Hands the text to the browser as a download. */
  saveCsv(text: string, name: string): Promise<boolean> {
    this.#download(new Blob([text], { type: "text/csv;charset=utf-8" }), name);
    return Promise.resolve(true);
  }

  /** Hands the text to the browser as a download. */
  saveJson(text: string, name: string): Promise<boolean> {
    this.#download(new Blob([text], { type: "application/json;charset=utf-8" }), name);
    return Promise.resolve(true);
  }

  /**
   * Reads GET /messages/export as it streams, counting its records against `X-Total-Count` for
   * the progress, then hands the whole file to the browser as a download.
   */
  async exportMessages(filter: MessageFilter, options: ExportOptions = {}): Promise<number | null> {
    const { onProgress, signal } = options;
    const ticket = this.session.ticket;
    const url = `${this.#base}${API_PREFIX}/messages/export${queryString({ ...filter, cursor: null, limit: null })}`;
    const cancelled = (): BackendError => new BackendError(CLIENT_ERROR_CODES.cancelled, "the export was cancelled");
    let response: Response;
    try {
      response = await fetch(url, {
        method: "GET",
        headers: { Accept: "text/csv" },
        credentials: "same-origin",
        cache: "no-store",
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error) {
      if (signal?.aborted === true) throw cancelled();
      throw new BackendError(CLIENT_ERROR_CODES.unreachable, describeNetworkFailure(`GET ${url}`, error), { cause: error });
    }
    if (!response.ok) {
      const error = await refusal(response, `GET ${url}`);
      if (response.status === 401) this.session.refuse(ticket, error);
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
      credential: () => this.session.ticket,
      onChange,
      onResync,
      onUnauthorized: (ticket, error) => this.session.refuse(ticket, error),
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
    const ticket = this.session.ticket;
    const headers: Record<string, string> = { Accept: "application/json" };
    if (call.body !== undefined) headers["Content-Type"] = "application/json";
    const csrf = this.session.csrfToken;
    if (call.method !== "GET" && csrf !== null) headers["X-CSRF-Token"] = csrf;
    let response: Response;
    try {
      response = await fetch(url, {
        method: call.method,
        headers: { ...headers, ...call.headers },
        body: call.body === undefined ? null : JSON.stringify(call.body),
        credentials: "same-origin",
        cache: "no-store",
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      throw new BackendError(CLIENT_ERROR_CODES.unreachable, describeNetworkFailure(what, error), { cause: error });
    }

    if (response.status === 204) return undefined as T;
    if (!response.ok) {
      const error = await refusal(response, what);
      if (response.status === 401 && call.own401 !== true) this.session.refuse(ticket, error);
      // The browser's cookie is another session's than this page's token (signed out and in
      // again in another tab): ask who is signed in now, so the page follows that person.
      if (error.code === ERROR_CODES.csrfTokenMissing) void this.session.check();
      throw error;
    }
    const body = await readJson(response);
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

/** An answer that is not a success, as a BackendError (with the wait `Retry-After` asks for). */
async function refusal(response: Response, what: string): Promise<BackendError> {
  const body = await readJson(response);
  const retryAfter = retryAfterSeconds(response.headers.get("Retry-After"));
  return isApiError(body)
    ? BackendError.from(body, undefined, retryAfter)
    : new BackendError(
        response.status === 401 ? ERROR_CODES.unauthorized : CLIENT_ERROR_CODES.badResponse,
        `${what} answered HTTP ${response.status} without an error body`,
        { retryAfterSeconds: retryAfter },
      );
}

/** `Retry-After` in seconds (the engine never sends the date form). */
function retryAfterSeconds(header: string | null): number | null {
  if (header === null || !/^\d+$/.test(header.trim())) return null;
  return Number(header.trim());
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
