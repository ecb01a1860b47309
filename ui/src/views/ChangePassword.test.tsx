// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { App } from "../App";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { browser } from "../test/fakePeople";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
  window.location.hash = "";
});

/** Olga, signed in, on her own password's screen, reached from the user menu. */
async function passwordScreen() {
  const b = browser();
  b.people.current = b.people.accounts.get("Olga")?.me ?? null;
  view = await render(<App connection={b.connection} />);
  await settle();
  const root = view.container;
  await click(byTestId(root, "user-menu-button"));
  const link = byTestId<HTMLAnchorElement>(root, "change-password-open");
  expect(link.getAttribute("href")).toBe("#/password");
  await settle(() => {
    window.location.hash = "#/password";
    window.dispatchEvent(new HashChangeEvent("hashchange"));
  });
  return { ...b, root };
}

async function change(root: HTMLElement, current: string, next: string, confirmation = next): Promise<void> {
  await type(byTestId<HTMLInputElement>(root, "password-current"), current);
  await type(byTestId<HTMLInputElement>(root, "password-new-password"), next);
  await type(byTestId<HTMLInputElement>(root, "password-new-confirm"), confirmation);
  await submit(byTestId<HTMLFormElement>(root, "change-password-form"));
  await settle();
}

describe("changing one's own password", () => {
  it("asks for the current password and the new one twice, saying it signs out everywhere", async () => {
    const { root } = await passwordScreen();
    const screen = byTestId(root, "change-password");
    expect(screen.querySelector("h2")?.textContent).toBe("Change your password");
    expect(screen.textContent).toContain("Signed in as Olga.");
    expect(screen.textContent).toContain("Changing it signs you out everywhere else");
    const current = byTestId<HTMLInputElement>(root, "password-current");
    expect(current.type).toBe("password");
    expect(current.autocomplete).toBe("current-password");
    expect(root.querySelector(`label[for="${current.id}"]`)?.textContent).toBe("Current password");
  });

  it("a wrong current password says so, and the person stays signed in", async () => {
    const { root, people } = await passwordScreen();
    await change(root, "not my password", "a brand new password");
    const error = byTestId(root, "password-error");
    expect(error.getAttribute("role")).toBe("alert");
    expect(error.textContent).toBe("The current password is not right");
    expect(byTestId<HTMLInputElement>(root, "password-current").getAttribute("aria-invalid")).toBe("true");
    expect(people.session.getState().phase, "a wrong password is not an ended session").toBe("signed_in");
  });

  it("a new password that is too short or not confirmed is not sent", async () => {
    const { root, people } = await passwordScreen();
    await change(root, "operator password", "short");
    expect(byTestId(root, "password-new-password-problem").textContent).toBe("The password needs at least 10 characters.");
    await change(root, "operator password", "a brand new password", "a brand new passw0rd");
    expect(byTestId(root, "password-new-password-problem").textContent).toBe("The two passwords differ.");
    expect(people.calls).not.toContain("changePassword");
  });

  it("once changed, it says so, this browser stays signed in, and the new password is the one that works", async () => {
    const { root, people } = await passwordScreen();
    await change(root, "operator password", "a brand new password");
    expect(people.calls).toContain("changePassword");
    expect(byTestId(root, "password-done").textContent).toBe("Your password was changed.");
    expect(queryTestId(root, "sign-in"), "this session goes on").toBeNull();
    expect(people.session.getState().phase).toBe("signed_in");
    await change(root, "operator password", "another new password");
    expect(byTestId(root, "password-error").textContent, "the old password no longer proves it is them").toBe(
      "The current password is not right",
    );
  });
});
