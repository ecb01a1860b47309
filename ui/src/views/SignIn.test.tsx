// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { App } from "../App";
import { ApiKeySession, BackendError, memoryKeyStore, type Connection, type KeySignIn } from "../backend";
import type { AppInfo } from "../bindings/AppInfo";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";

const info: AppInfo = {
  product: "smsdesk",
  version: "0.1.0",
  mode: "serve",
  dataDir: "/srv",
  databasePath: "/srv/smsdesk.db",
  configPath: "/srv/smsdesk.toml",
  schemaVersion: 3,
  httpUrl: "http://127.0.0.1:8470",
  startedAtMs: 1_700_000_000_000,
};

const RIGHT_KEY = "sdk_right";
const refusal = () => new BackendError("unauthorized", "unknown or revoked API key");

/** A browser's sign-in against an engine that accepts one key. */
function browser(answer?: Promise<void>): Connection & { signIn: KeySignIn; backend: FakeBackend } {
  const session = new ApiKeySession(memoryKeyStore());
  const backend = new FakeBackend();
  backend.listMessages = () => Promise.resolve({ items: [], next_cursor: null, scan_limited: false });
  const signIn: KeySignIn = {
    session,
    async signIn(key) {
      await answer;
      if (key.trim() !== RIGHT_KEY) throw refusal();
      session.signIn(key.trim());
      return info;
    },
  };
  return { backend, signIn };
}

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

async function signInWith(root: HTMLElement, key: string): Promise<void> {
  await type(byTestId<HTMLInputElement>(root, "signin-key"), key);
  await submit(root.querySelector("form") as HTMLFormElement);
  await settle();
}

describe("signing in (browser)", () => {
  it("without a key shows the sign-in screen: a password field, a submit button, and where keys come from", async () => {
    view = await render(<App connection={browser()} />);
    const root = view.container;
    expect(root.querySelector("h2")?.textContent).toBe("Sign in with an API key");
    const input = byTestId<HTMLInputElement>(root, "signin-key");
    expect(input.type, "a key must not be shown on screen as it is typed").toBe("password");
    expect(root.querySelector(`label[for="${input.id}"]`)?.textContent).toBe("API key");
    expect(byTestId<HTMLButtonElement>(root, "signin-submit").type).toBe("submit");
    expect(root.textContent).toContain("smsdesk api-key create --name");
    expect(root.textContent).toContain("desktop app");
    expect(queryTestId(root, "nav-messages"), "nothing of the app before signing in").toBeNull();
    expect(queryTestId(root, "sign-out")).toBeNull();
  });

  it("a wrong key shows the engine's message and stays on the sign-in screen", async () => {
    view = await render(<App connection={browser()} />);
    const root = view.container;
    await signInWith(root, "sdk_wrong");
    const error = byTestId(root, "signin-error");
    expect(error.getAttribute("role")).toBe("alert");
    expect(byTestId(error, "error-message").textContent).toBe("unknown or revoked API key");
    expect(byTestId(error, "error-code").textContent).toBe("unauthorized");
    expect(queryTestId(root, "nav-messages")).toBeNull();
    const input = byTestId<HTMLInputElement>(root, "signin-key");
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(document.activeElement, "the key field gets focus back, to correct the key").toBe(input);
  });

  it("the right key shows the app", async () => {
    const connection = browser();
    view = await render(<App connection={connection} />);
    const root = view.container;
    await signInWith(root, `  ${RIGHT_KEY}\n`);
    expect(queryTestId(root, "sign-in")).toBeNull();
    expect(byTestId(root, "nav-messages").getAttribute("aria-current")).toBe("page");
    expect(byTestId(root, "messages-empty").textContent).toBe("No messages yet.");
    expect(connection.signIn.session.key).toBe(RIGHT_KEY);
  });

  it("while the key is being checked, the button says so and cannot be pressed twice", async () => {
    let answer: () => void = () => {};
    const connection = browser(new Promise((resolve) => (answer = resolve)));
    view = await render(<App connection={connection} />);
    const root = view.container;
    await signInWith(root, RIGHT_KEY);
    const button = byTestId<HTMLButtonElement>(root, "signin-submit");
    expect(button.disabled).toBe(true);
    expect(button.textContent).toBe("Checking the key…");
    answer();
    await settle();
    expect(queryTestId(root, "nav-messages")).not.toBeNull();
  });

  it("a key refused later (revoked) takes the tab back to sign-in, saying why", async () => {
    const connection = browser();
    view = await render(<App connection={connection} />);
    const root = view.container;
    await signInWith(root, RIGHT_KEY);
    await settle(() => connection.signIn.session.refuse(RIGHT_KEY, refusal()));
    expect(queryTestId(root, "nav-messages")).toBeNull();
    expect(byTestId(root, "signin-expired").textContent).toContain("unknown or revoked API key");
    expect(connection.backend.subscribers, "nothing may keep listening with a refused key").toBe(0);
  });

  it("signing out returns to the sign-in screen", async () => {
    const connection = browser();
    view = await render(<App connection={connection} />);
    const root = view.container;
    await signInWith(root, RIGHT_KEY);
    await click(byTestId(root, "sign-out"));
    expect(queryTestId(root, "sign-in")).not.toBeNull();
    expect(queryTestId(root, "signin-expired"), "a chosen sign-out is not a refusal").toBeNull();
    expect(connection.signIn.session.key).toBeNull();
  });

  it("speaks the browser's language", async () => {
    view = await render(<App connection={browser()} />, ["ru-RU"]);
    expect(view.container.querySelector("h2")?.textContent).toBe("Вход по API-ключу");
  });
});

describe("the desktop window", () => {
  it("needs no sign-in: the app is shown at once, without a sign-out button", async () => {
    const backend = new FakeBackend();
    backend.listMessages = () => Promise.resolve({ items: [], next_cursor: null, scan_limited: false });
    view = await render(<App connection={{ backend, signIn: null }} />);
    await settle();
    expect(queryTestId(view.container, "sign-in")).toBeNull();
    expect(queryTestId(view.container, "nav-messages")).not.toBeNull();
    expect(queryTestId(view.container, "sign-out")).toBeNull();
  });
});
