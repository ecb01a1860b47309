import type { AppInfo } from "../bindings/AppInfo";
import { BackendError, CLIENT_ERROR_CODES, isApiError, type Backend } from "./backend";

const API_PREFIX = "/api/v1";
const DEFAULT_TIMEOUT_MS = 15_000;

export interface HttpBackendOptions {
  /** Gives up on a request after this long and reports the engine as unreachable. */
  timeoutMs?: number;
}

/** Talks to the engine's HTTP API, for the UI served to a browser. */
export class HttpBackend implements Backend {
  readonly #base: string;
  readonly #timeoutMs: number;

  /** `base` is the engine's origin, e.g. `http://127.0.0.1:8787`, without the API prefix. */
  constructor(base: string, options: HttpBackendOptions = {}) {
    this.#base = base.replace(/\/+$/, "");
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  appInfo(): Promise<AppInfo> {
    return this.#get<AppInfo>("/info");
  }

  async #get<T>(path: string): Promise<T> {
    const url = `${this.#base}${API_PREFIX}${path}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: "GET",
        headers: { Accept: "application/json" },
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      throw new BackendError(CLIENT_ERROR_CODES.unreachable, describeNetworkFailure(url, error), { cause: error });
    }

    const body = await readJson(response);
    if (!response.ok) {
      if (isApiError(body)) throw new BackendError(body.code, body.message);
      throw new BackendError(
        CLIENT_ERROR_CODES.badResponse,
        `GET ${url} answered HTTP ${response.status} without an error body`,
      );
    }
    if (body === undefined) {
      throw new BackendError(CLIENT_ERROR_CODES.badResponse, `GET ${url} answered HTTP ${response.status} without JSON`);
    }
    return body as T;
  }
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return (await response.json()) as unknown;
  } catch {
    return undefined;
  }
}

function describeNetworkFailure(url: string, error: unknown): string {
  if (error instanceof DOMException && error.name === "TimeoutError") return `GET ${url} timed out`;
  const reason = error instanceof Error ? error.message : String(error);
  return `GET ${url} failed: ${reason}`;
}
