import type { Backend } from "./backend";
import { HttpBackend } from "./http";
import { Session, type PeopleAccess } from "./session";
import { TauriBackend } from "./tauri";

/** The part of `window` the choice depends on, so it can be exercised outside a browser. */
export interface HostWindow {
  readonly location: { readonly origin: string };
}

/** How this page reaches the engine, and who it works for. */
export interface Connection {
  readonly backend: Backend;
  /** Who is signed in: in the window, always the person at this computer (its admin). */
  readonly session: Session;
  /** In a browser: signing in and out, the first admin, one's own password. Null in the window. */
  readonly people: PeopleAccess | null;
}

/** Inside the Tauri window Tauri's IPC is present; anywhere else the page was served by the engine's HTTP server. */
export function isTauri(host: object): boolean {
  return "__TAURI_INTERNALS__" in host;
}

export function selectBackend(host: HostWindow): Connection {
  if (isTauri(host)) {
    const backend = new TauriBackend();
    return { backend, session: new Session(() => backend.me()), people: null };
  }
  const backend = new HttpBackend(host.location.origin);
  return { backend, session: backend.session, people: backend };
}
