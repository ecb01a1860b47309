import type { AppInfo } from "../bindings/AppInfo";
import type { BackendError } from "./backend";

/** Where a browser keeps the API key it signed in with. */
export interface KeyStore {
  read(): string | null;
  write(key: string): void;
  clear(): void;
}

export const KEY_STORAGE_NAME = "smsdesk.apiKey";

/**
 * The key lives in the tab's sessionStorage, not localStorage. smsdesk runs on office PCs that
 * staff share: sessionStorage survives a reload but belongs to this tab only and is gone when
 * the tab or browser closes, so the next person at the desk does not inherit the key, and it is
 * not left on disk for days. The cost is signing in again per tab, which is cheap. (A storage the
 * browser refuses, as some privacy settings do, degrades to memory: signed in until reload.)
 */
export function storageKeyStore(storage: () => Storage | null | undefined, name = KEY_STORAGE_NAME): KeyStore {
  const fallback = memoryKeyStore();
  const attempt = <T>(use: (s: Storage) => T, otherwise: () => T): T => {
    try {
      const s = storage();
      if (s) return use(s);
    } catch {
      // Storage disabled or full: keep the key in memory instead.
    }
    return otherwise();
  };
  return {
    read: () => attempt((s) => s.getItem(name), () => fallback.read()),
    write: (key) => {
      fallback.write(key);
      attempt(
        (s) => s.setItem(name, key),
        () => undefined,
      );
    },
    clear: () => {
      fallback.clear();
      attempt(
        (s) => s.removeItem(name),
        () => undefined,
      );
    },
  };
}

export function memoryKeyStore(initial: string | null = null): KeyStore {
  let key = initial;
  return {
    read: () => key,
    write: (k) => {
      key = k;
    },
    clear: () => {
      key = null;
    },
  };
}

export interface SessionState {
  /** The key requests are made with; null when signed out. */
  readonly key: string | null;
  /** Why the last key was dropped: the engine refused it (revoked, or the server was reset). */
  readonly refused: BackendError | null;
}

/**
 * The browser's sign-in: which API key it uses, shared by every request and the event stream.
 * It notifies its subscribers on every change (the UI then shows the sign-in screen or the app).
 */
export class ApiKeySession {
  readonly #store: KeyStore;
  readonly #listeners = new Set<() => void>();
  #state: SessionState;

  constructor(store: KeyStore) {
    this.#store = store;
    const key = store.read();
    this.#state = { key: key === null || key.trim() === "" ? null : key, refused: null };
  }

  /** The same object until the next change (what React's useSyncExternalStore needs). */
  readonly getState = (): SessionState => this.#state;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  get key(): string | null {
    return this.#state.key;
  }

  signIn(key: string): void {
    this.#store.write(key);
    this.#set({ key, refused: null });
  }

  signOut(): void {
    this.#store.clear();
    this.#set({ key: null, refused: null });
  }

  /**
   * The engine answered 401 to a request made with `key`. A request still in flight from a key
   * already replaced says nothing about the current one, so only the current key is dropped.
   */
  refuse(key: string, error: BackendError): void {
    if (this.#state.key !== key) return;
    this.#store.clear();
    this.#set({ key: null, refused: error });
  }

  #set(state: SessionState): void {
    this.#state = state;
    for (const listener of [...this.#listeners]) listener();
  }
}

/** What a transport that needs a credential offers the sign-in screen. */
export interface KeySignIn {
  readonly session: ApiKeySession;
  /** Checks the key with the engine and, if it is accepted, signs in with it. Rejects with the engine's refusal. */
  signIn(key: string): Promise<AppInfo>;
}
