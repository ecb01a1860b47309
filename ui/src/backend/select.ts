import type { Backend } from "./backend";
import { HttpBackend } from "./http";
import { ApiKeySession, storageKeyStore, type KeySignIn } from "./session";
import { TauriBackend } from "./tauri";

/** The part of `window` the choice depends on, so it can be exercised outside a browser. */
export interface HostWindow {
  readonly location: { readonly origin: string };
  readonly sessionStorage?: Storage;
}

/** How this page reaches the engine, and whether it must sign in first. */
export interface Connection {
  readonly backend: Backend;
  /** Present in a browser, which needs an API key; absent in the window, which is the operator. */
  readonly signIn: KeySignIn | null;
}

/** Inside the Tauri window Tauri's IPC is present; anywhere else the page was served by the engine's HTTP server. */
export function isTauri(host: object): boolean {
  return "__TAURI_INTERNALS__" in host;
}

export function selectBackend(host: HostWindow): Connection {
  if (isTauri(host)) return { backend: new TauriBackend(), signIn: null };
  // Reading `sessionStorage` itself throws where the browser blocks storage: ask lazily, inside the store's guard.
  const session = new ApiKeySession(storageKeyStore(() => host.sessionStorage));
  const backend = new HttpBackend(host.location.origin, { session });
  return { backend, signIn: backend };
}
