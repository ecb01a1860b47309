import { describe, expect, it } from "vitest";
import { BackendError } from "./backend";
import { ApiKeySession, KEY_STORAGE_NAME, memoryKeyStore, storageKeyStore } from "./session";

/** A Storage as the browser's sessionStorage behaves. */
class FakeStorage implements Storage {
  readonly items = new Map<string, string>();
  get length(): number {
    return this.items.size;
  }
  clear(): void {
    this.items.clear();
  }
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  key(index: number): string | null {
    return [...this.items.keys()][index] ?? null;
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
}

const refusal = new BackendError("unauthorized", "unknown or revoked API key");

describe("storageKeyStore", () => {
  it("keeps the key in the given storage under one name", () => {
    const storage = new FakeStorage();
    const store = storageKeyStore(() => storage);
    expect(store.read()).toBeNull();
    store.write("sdk_abc");
    expect(storage.getItem(KEY_STORAGE_NAME)).toBe("sdk_abc");
    expect(storageKeyStore(() => storage).read(), "a reload must find the key again").toBe("sdk_abc");
    store.clear();
    expect(storage.items.size).toBe(0);
  });

  it("keeps the key in memory when the browser refuses storage", () => {
    const store = storageKeyStore(() => {
      throw new DOMException("blocked", "SecurityError");
    });
    store.write("sdk_abc");
    expect(store.read()).toBe("sdk_abc");
    store.clear();
    expect(store.read()).toBeNull();
  });
});

describe("ApiKeySession", () => {
  it("starts signed in when the tab already holds a key, and ignores a blank one", () => {
    expect(new ApiKeySession(memoryKeyStore("sdk_abc")).key).toBe("sdk_abc");
    expect(new ApiKeySession(memoryKeyStore("  ")).key).toBeNull();
  });

  it("stores the key on sign-in, clears it on sign-out, and tells subscribers each time", () => {
    const store = memoryKeyStore();
    const session = new ApiKeySession(store);
    let calls = 0;
    const unsubscribe = session.subscribe(() => calls++);
    session.signIn("sdk_abc");
    expect([session.key, store.read(), calls]).toEqual(["sdk_abc", "sdk_abc", 1]);
    session.signOut();
    expect([session.key, store.read(), calls]).toEqual([null, null, 2]);
    unsubscribe();
    session.signIn("sdk_def");
    expect(calls, "an unsubscribed listener must not be called").toBe(2);
  });

  it("keeps the same state object between changes (as useSyncExternalStore requires)", () => {
    const session = new ApiKeySession(memoryKeyStore("sdk_abc"));
    expect(session.getState()).toBe(session.getState());
    const before = session.getState();
    session.signOut();
    expect(session.getState()).not.toBe(before);
  });

  it("drops a refused key and says why", () => {
    const store = memoryKeyStore();
    const session = new ApiKeySession(store);
    session.signIn("sdk_abc");
    session.refuse("sdk_abc", refusal);
    expect(session.getState()).toEqual({ key: null, refused: refusal });
    expect(store.read(), "a refused key must not be tried again after a reload").toBeNull();
  });

  it("keeps a newer key when a request made with an older one is refused", () => {
    const session = new ApiKeySession(memoryKeyStore());
    session.signIn("sdk_new");
    session.refuse("sdk_old", refusal);
    expect(session.getState()).toEqual({ key: "sdk_new", refused: null });
  });

  it("forgets the last refusal once signed in again", () => {
    const session = new ApiKeySession(memoryKeyStore("sdk_abc"));
    session.refuse("sdk_abc", refusal);
    session.signIn("sdk_def");
    expect(session.getState().refused).toBeNull();
  });
});
