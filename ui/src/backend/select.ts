import type { Backend } from "./backend";
import { HttpBackend } from "./http";
import { TauriBackend } from "./tauri";

/** The part of `window` the choice depends on, so it can be exercised outside a browser. */
export interface HostWindow {
  readonly location: { readonly origin: string };
}

/** Inside the Tauri window Tauri's IPC is present; anywhere else the page was served by the engine's HTTP server. */
export function isTauri(host: object): boolean {
  return "__TAURI_INTERNALS__" in host;
}

export function selectBackend(host: HostWindow): Backend {
  return isTauri(host) ? new TauriBackend() : new HttpBackend(host.location.origin);
}
