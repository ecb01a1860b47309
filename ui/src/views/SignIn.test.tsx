// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { App } from "../App";
import { BackendError, Session } from "../backend";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { browser, desktop } from "../test/fakePeople";
import { person } from "../test/fixtures";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
  window.location.hash = "";
});

/** The app in a browser tab nobody signed in from yet, once it has asked who is signed in. */
async function signedOutApp(languages?: string[]) {
  const b = browser();
  view = await render(<App connection={b.connection} />, languages);
  await settle();
  return { ...b, root: view.container };
}

async function signInWith(root: HTMLElement, name: string, password: string): Promise<void> {
  await type(byTestId<HTMLInputElement>(root, "signin-name"), name);
  await type(byTestId<HTMLInputElement>(root, "signin-password"), password);
  await submit(byTestId(root, "sign-in").querySelector("form") as HTMLFormElement);
  await settle();
}

describe("signing in (browser)", () => {
  it("asks who is signed in first, then, signed out, shows name and password fields, labelled, the password hidden", async () => {
    const { root, people } = await signedOutApp();
    expect(people.calls[0], "the app asks the engine who this browser is").toBe("me");
    expect(root.querySelector("h2")?.textContent).toBe("Sign in");
    const name = byTestId<HTMLInputElement>(root, "signin-name");
    const password = byTestId<HTMLInputElement>(root, "signin-password");
    expect(root.querySelector(`label[for="${name.id}"]`)?.textContent).toBe("Name");
    expect(root.querySelector(`label[for="${password.id}"]`)?.textContent).toBe("Password");
    expect(password.type, "a password must not show on screen as it is typed").toBe("password");
    expect(name.autocomplete).toBe("username");
    expect(password.autocomplete).toBe("current-password");
    expect(byTestId<HTMLButtonElement>(root, "signin-submit").type).toBe("submit");
    expect(root.textContent, "no API key any more: people have accounts").not.toContain("API key");
    expect(queryTestId(root, "nav-messages"), "nothing of the app before signing in").toBeNull();
    expect(queryTestId(root, "user-menu")).toBeNull();
  });

  it("a wrong password says so plainly, empties the password and gives it the focus back", async () => {
    const { root, people } = await signedOutApp();
    await signInWith(root, "Olga", "not her password");
    const error = byTestId(root, "signin-error");
    expect(error.getAttribute("role")).toBe("alert");
    expect(error.dataset["code"]).toBe("unauthorized");
    expect(error.textContent).toContain("Wrong name or password");
    const password = byTestId<HTMLInputElement>(root, "signin-password");
    expect(password.value).toBe("");
    expect(password.getAttribute("aria-invalid")).toBe("true");
    expect(password.getAttribute("aria-describedby")).toBe(error.parentElement?.id);
    expect(document.activeElement).toBe(password);
    expect(queryTestId(root, "nav-messages")).toBeNull();
    expect(people.session.getState().phase).toBe("signed_out");
  });

  it("empty fields are said in the app's words at each field, not by the browser, and nothing is asked", async () => {
    const { root, people } = await signedOutApp();
    const form = byTestId(root, "sign-in").querySelector("form") as HTMLFormElement;
    expect(form.noValidate, "the browser's own bubbles are not used").toBe(true);
    await submit(form);
    await settle();
    expect(byTestId(root, "signin-name-required").textContent).toBe("Fill in this field.");
    expect(byTestId(root, "signin-password-required").textContent).toBe("Fill in this field.");
    expect(byTestId<HTMLInputElement>(root, "signin-name").getAttribute("aria-invalid")).toBe("true");
    await type(byTestId<HTMLInputElement>(root, "signin-name"), "Olga");
    await submit(form);
    await settle();
    expect(queryTestId(root, "signin-name-required")).toBeNull();
    expect(byTestId(root, "signin-password-required")).not.toBeNull();
    expect(people.calls.filter((c) => c.startsWith("signIn")), "nothing sent while a field is empty").toHaveLength(0);
  });

  it("too many failed sign-ins: says how long to wait, and the button waits as long", async () => {
    const { root, people } = await signedOutApp();
    people.refuseNext = new BackendError("too_many_attempts", "too many failed sign-ins: try again in 1 s", { retryAfterSeconds: 1 });
    await signInWith(root, "Olga", "operator password");
    const error = byTestId(root, "signin-error");
    expect(error.dataset["code"]).toBe("too_many_attempts");
    expect(error.textContent).toContain("Too many failed sign-ins");
    expect(byTestId(root, "signin-wait").textContent).toBe("For safety, signing in is paused. Try again in 1 s.");
    const button = byTestId<HTMLButtonElement>(root, "signin-submit");
    expect(button.disabled).toBe(true);
    expect(button.textContent, "the countdown is on the button, not in the announced notice").toBe("Sign in (1 s)");
    expect(button.closest('[aria-live]'), "the button ticks outside any live region").toBeNull();
    await settle(1_100);
    expect(byTestId(root, "signin-wait").textContent).toBe("You may try again now.");
    expect(button.disabled).toBe(false);
    expect(button.textContent).toBe("Sign in");
  });

  it("the right password shows the app, and the header names who is signed in and their role", async () => {
    const { root, people } = await signedOutApp();
    await signInWith(root, "Olga", "operator password");
    expect(people.calls).toContain("signIn Olga");
    expect(queryTestId(root, "sign-in")).toBeNull();
    expect(byTestId(root, "nav-messages").getAttribute("aria-current")).toBe("page");
    expect(byTestId(root, "messages-empty").textContent).toBe("No messages yet.");
    expect(byTestId(root, "user-name").textContent).toBe("Olga");
    expect(byTestId(root, "user-role").textContent).toBe("Operator");
  });

  it("while signing in, the button says so and cannot be pressed twice", async () => {
    const { root, people } = await signedOutApp();
    let answer: () => void = () => {};
    people.gate = new Promise((resolve) => (answer = resolve));
    await signInWith(root, "Olga", "operator password");
    const button = byTestId<HTMLButtonElement>(root, "signin-submit");
    expect(button.disabled).toBe(true);
    expect(button.textContent).toBe("Signing in…");
    await submit(byTestId(root, "sign-in").querySelector("form") as HTMLFormElement);
    answer();
    await settle();
    expect(people.calls.filter((c) => c.startsWith("signIn"))).toHaveLength(1);
    expect(queryTestId(root, "nav-messages")).not.toBeNull();
  });

  it("a session that ends during use (401) takes the tab back to sign-in, saying the session ended", async () => {
    const { root, people, backend } = await signedOutApp();
    await signInWith(root, "Olga", "operator password");
    await settle(() => people.endSession());
    expect(queryTestId(root, "nav-messages")).toBeNull();
    const ended = byTestId(root, "signin-ended");
    expect(ended.dataset["why"]).toBe("ended");
    expect(ended.textContent).toContain("Your session ended");
    expect(ended.textContent, "said once, in the reader's words: not the server's English too").not.toContain(
      "the session ended: sign in again",
    );
    expect(backend.subscribers, "nothing may keep listening once the session ended").toBe(0);
  });

  it("signing out from the user menu returns to the sign-in screen, not saying the session ended", async () => {
    const { root, people } = await signedOutApp();
    await signInWith(root, "Olga", "operator password");
    const button = byTestId<HTMLButtonElement>(root, "user-menu-button");
    expect(button.getAttribute("aria-expanded")).toBe("false");
    expect(byTestId(root, "user-menu-panel").hidden).toBe(true);
    await click(button);
    expect(button.getAttribute("aria-expanded")).toBe("true");
    expect(byTestId(root, "user-menu-panel").hidden).toBe(false);
    expect(byTestId(root, "user-menu-panel").textContent).toContain("Signed in as Olga, Operator.");
    await click(byTestId(root, "sign-out"));
    await settle();
    expect(people.calls).toContain("signOut");
    expect(queryTestId(root, "sign-in")).not.toBeNull();
    expect(queryTestId(root, "signin-ended"), "a chosen sign-out is not an ended session").toBeNull();
  });

  it("the user menu closes with Escape, giving the focus back to its button", async () => {
    const { root } = await signedOutApp();
    await signInWith(root, "Olga", "operator password");
    const button = byTestId<HTMLButtonElement>(root, "user-menu-button");
    await click(button);
    await settle(() => document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true })));
    expect(button.getAttribute("aria-expanded")).toBe("false");
    expect(document.activeElement).toBe(button);
  });

  it("on an instance without any account, points to the setup link", async () => {
    const b = browser();
    b.people.setupOpen = true;
    view = await render(<App connection={b.connection} />);
    await settle();
    expect(byTestId(view.container, "signin-setup-open").textContent).toContain("No account exists yet");
  });

  it("cannot tell who is signed in when the engine does not answer, and offers to try again", async () => {
    const b = browser();
    let reachable = false;
    const session = new Session(() =>
      reachable ? Promise.reject(new BackendError("unauthorized", "sign in")) : Promise.reject(new BackendError("unreachable", "connection refused")),
    );
    view = await render(<App connection={{ ...b.connection, session }} />);
    await settle();
    const notice = byTestId(view.container, "session-unavailable");
    expect(notice.textContent).toContain("Could not find out who is signed in");
    reachable = true;
    await click(byTestId(notice, "retry"));
    await settle();
    expect(queryTestId(view.container, "sign-in")).not.toBeNull();
  });

  it("speaks the browser's language", async () => {
    const { root } = await signedOutApp(["ru-RU"]);
    expect(root.querySelector("h2")?.textContent).toBe("Вход");
    expect(byTestId(root, "sign-in").textContent).toContain("Пароль");
  });
});

describe("the desktop window", () => {
  it("needs no sign-in: the app is shown at once, naming its computer's admin, without a sign-out", async () => {
    const local = { ...person("admin"), actor: "ann (desktop)", kind: "local" as const, csrf_token: null };
    const { connection } = desktop(local);
    view = await render(<App connection={connection} />);
    await settle();
    expect(queryTestId(view.container, "sign-in")).toBeNull();
    expect(queryTestId(view.container, "nav-messages")).not.toBeNull();
    expect(byTestId(view.container, "user-name").textContent).toBe("ann (desktop)");
    expect(byTestId(view.container, "user-role").textContent).toBe("Admin");
    expect(queryTestId(view.container, "sign-out")).toBeNull();
    expect(queryTestId(view.container, "change-password-open")).toBeNull();
  });
});
