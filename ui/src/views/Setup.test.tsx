// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { App } from "../App";
import { BackendError } from "../backend";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { browser } from "../test/fakePeople";
import { setupTokenOf } from "./Setup";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
  window.history.replaceState(null, "", "/");
});

/** The app opened on the setup link, with the engine's setup `open` or not. */
async function setupPage(token: string, open = true) {
  const b = browser();
  b.people.setupOpen = open;
  b.backend.listAccounts = () => Promise.resolve([]);
  b.backend.listSessions = () => Promise.resolve([]);
  window.history.replaceState(null, "", `/setup#${token}`);
  view = await render(<App connection={b.connection} setupToken={setupTokenOf(window.location)} />);
  await settle();
  return { ...b, root: view.container };
}

async function fill(root: HTMLElement, name: string, password: string, confirmation = password): Promise<void> {
  await type(byTestId<HTMLInputElement>(root, "setup-name"), name);
  await type(byTestId<HTMLInputElement>(root, "setup-password"), password);
  await type(byTestId<HTMLInputElement>(root, "setup-confirm"), confirmation);
  await submit(byTestId<HTMLFormElement>(root, "setup-form"));
  await settle();
}

describe("setupTokenOf", () => {
  it("reads the token from the fragment of /setup only", () => {
    expect(setupTokenOf({ pathname: "/setup", hash: "#setup_0a1b" })).toBe("setup_0a1b");
    expect(setupTokenOf({ pathname: "/setup/", hash: "#setup_0a1b" })).toBe("setup_0a1b");
    expect(setupTokenOf({ pathname: "/setup", hash: "" })).toBe("");
    expect(setupTokenOf({ pathname: "/", hash: "#/messages" })).toBeNull();
  });
});

describe("the setup link (first admin)", () => {
  it("asks whether setup is open, never who is signed in, and offers a form: name, password twice, labelled", async () => {
    const { root, people } = await setupPage("setup_good");
    expect(people.calls).toEqual(["setupState"]);
    expect(root.querySelector("h2")?.textContent).toBe("Create the first admin");
    const name = byTestId<HTMLInputElement>(root, "setup-name");
    const password = byTestId<HTMLInputElement>(root, "setup-password");
    const confirm = byTestId<HTMLInputElement>(root, "setup-confirm");
    expect(root.querySelector(`label[for="${name.id}"]`)?.textContent).toBe("Name");
    expect(root.querySelector(`label[for="${password.id}"]`)?.textContent).toBe("New password");
    expect(root.querySelector(`label[for="${confirm.id}"]`)?.textContent).toBe("Type it again");
    expect([password.type, confirm.type]).toEqual(["password", "password"]);
    expect(password.autocomplete).toBe("new-password");
    expect(byTestId(root, "setup").textContent).toContain("At least 10 characters, not the account’s name, and not easy to guess");
    expect(queryTestId(root, "sign-in")).toBeNull();
  });

  it("refuses a short password or a confirmation that differs before asking the engine", async () => {
    const { root, people } = await setupPage("setup_good");
    await fill(root, "Alice", "short", "short");
    expect(byTestId(root, "setup-password-problem").textContent).toBe("The password needs at least 10 characters.");
    expect(byTestId<HTMLInputElement>(root, "setup-password").getAttribute("aria-invalid")).toBe("true");
    await fill(root, "Alice", "a long enough password", "a long enough passw0rd");
    expect(byTestId(root, "setup-password-problem").textContent).toBe("The two passwords differ.");
    expect(byTestId<HTMLInputElement>(root, "setup-confirm").getAttribute("aria-invalid")).toBe("true");
    expect(people.calls.filter((c) => c.startsWith("createFirstAdmin"))).toEqual([]);
  });

  it("creates the first admin with the token from the fragment, signs them in on Accounts, and the address forgets the token", async () => {
    const { root, people } = await setupPage("setup_good");
    await fill(root, "  Alice ", "a long enough password");
    expect(people.calls).toContain("createFirstAdmin Alice");
    expect(queryTestId(root, "setup")).toBeNull();
    expect(window.location.pathname).toBe("/");
    expect(window.location.hash).toBe("#/accounts");
    expect(window.location.href, "the token is gone from the address and its history entry").not.toContain("setup_good");
    expect(byTestId(root, "nav-accounts").getAttribute("aria-current")).toBe("page");
    expect(byTestId(root, "user-name").textContent).toBe("Alice");
    expect(byTestId(root, "user-role").textContent).toBe("Admin");
  });

  it("a refused link (used, expired, wrong) says so clearly, with a link to sign in", async () => {
    const { root } = await setupPage("setup_old");
    await fill(root, "Alice", "a long enough password");
    const closed = byTestId(root, "setup-closed");
    expect(closed.dataset["why"]).toBe("refused");
    expect(closed.textContent).toContain("This setup link does not work");
    expect(byTestId<HTMLAnchorElement>(root, "setup-sign-in").getAttribute("href")).toBe("/");
    expect(queryTestId(root, "setup-form")).toBeNull();
  });

  it("when setup is not open (an account exists), says the instance is set up, with a link to sign in", async () => {
    const { root } = await setupPage("setup_good", false);
    const closed = byTestId(root, "setup-closed");
    expect(closed.dataset["why"]).toBe("closed");
    expect(closed.textContent).toContain("This instance is set up already");
    expect(byTestId<HTMLAnchorElement>(root, "setup-sign-in").getAttribute("href")).toBe("/");
    expect(queryTestId(root, "setup-form")).toBeNull();
  });

  it("a link without its token asks for the whole link", async () => {
    const { root } = await setupPage("");
    expect(byTestId(root, "setup-no-token").textContent).toContain("including the part after #");
    expect(queryTestId(root, "setup-form")).toBeNull();
  });

  it("shows the engine's refusal of the password beside the field, in the reader's words for its reason", async () => {
    const { root, people } = await setupPage("setup_good");
    people.createFirstAdmin = () =>
      Promise.reject(
        new BackendError("invalid", "the account has invalid fields", {
          errors: [
            {
              field: "password",
              code: "weak_password",
              params: { reason: "common" },
              message: "this is a common password, among the first ones tried",
            },
          ],
        }),
      );
    await fill(root, "Alice", "1234567890");
    const problem = byTestId(root, "setup-password-problem");
    expect(problem.textContent).toBe("The server refused it: This is a common password, among the first ones tried: choose another.");
    expect(problem.querySelector("[data-reason]")?.getAttribute("data-reason")).toBe("common");
    expect(byTestId(root, "setup-error").dataset["code"]).toBe("invalid");
  });

  it("words a reason the UI does not know as the code's general sentence", async () => {
    const { root, people } = await setupPage("setup_good");
    people.createFirstAdmin = () =>
      Promise.reject(
        new BackendError("invalid", "the account has invalid fields", {
          errors: [{ field: "password", code: "weak_password", params: { reason: "newer_reason" }, message: "refused for a newer reason" }],
        }),
      );
    await fill(root, "Alice", "a long enough password");
    expect(byTestId(root, "setup-password-problem").textContent).toBe(
      "The server refused it: This password is refused: too short, too long, the account’s own name, or easy to guess.",
    );
  });

  it("a setup answer that does not come offers to try again", async () => {
    const b = browser();
    let calls = 0;
    b.people.setupState = () => {
      calls += 1;
      return calls === 1 ? Promise.reject(new BackendError("unreachable", "connection refused")) : Promise.resolve({ open: true });
    };
    window.history.replaceState(null, "", "/setup#setup_good");
    view = await render(<App connection={b.connection} setupToken="setup_good" />);
    await settle();
    await click(byTestId(view.container, "retry"));
    await settle();
    expect(queryTestId(view.container, "setup-form")).not.toBeNull();
  });
});

describe("the office's country at setup", () => {
  /** The browser's preferred languages, as `navigator.languages` gives them, for one test. */
  function languages(list: readonly string[]): () => void {
    const own = Object.getOwnPropertyDescriptor(navigator, "languages");
    Object.defineProperty(navigator, "languages", { value: list, configurable: true });
    return () => {
      if (own === undefined) delete (navigator as { languages?: readonly string[] }).languages;
      else Object.defineProperty(navigator, "languages", own);
    };
  }

  it("is picked from a list named in the reader's language, suggested by the browser's locale, and sent as its code", async () => {
    const restore = languages(["fr-FR", "fr"]);
    try {
      const b = await setupPage("setup_good");
      const sent: (string | null)[] = [];
      const create = b.people.createFirstAdmin.bind(b.people);
      b.people.createFirstAdmin = (first) => {
        sent.push(first.country);
        return create(first);
      };
      const picker = byTestId<HTMLSelectElement>(b.root, "setup-country");
      expect(picker.value, "fr-FR suggests France").toBe("FR");
      expect(picker.selectedOptions[0]?.textContent).toBe("France");
      expect(b.root.querySelector(`label[for="${picker.id}"]`)?.textContent).toBe("Office country");
      expect(byTestId(b.root, "setup-country-field").textContent).toContain("06 12 34 56 00");
      await fill(b.root, "Alice", "a long enough password");
      expect(sent).toEqual(["FR"]);
    } finally {
      restore();
    }
  });

  it("may be left unset: the request says null", async () => {
    const restore = languages(["en"]);
    try {
      const b = await setupPage("setup_good");
      const sent: (string | null)[] = [];
      b.people.createFirstAdmin = (first) => {
        sent.push(first.country);
        return Promise.reject(new BackendError("setup_token_invalid", "used"));
      };
      expect(byTestId<HTMLSelectElement>(b.root, "setup-country").value, "a language without a region suggests none").toBe("");
      await fill(b.root, "Alice", "a long enough password");
      expect(sent).toEqual([null]);
    } finally {
      restore();
    }
  });

  it("checks the form itself: no browser bubble, and its own words for a missing name", async () => {
    const { root, people } = await setupPage("setup_good");
    expect(byTestId<HTMLFormElement>(root, "setup-form").noValidate).toBe(true);
    await fill(root, "", "a long enough password");
    expect(byTestId(root, "setup-name-required").textContent).toBe("Fill in this field.");
    expect(people.calls.filter((c) => c.startsWith("createFirstAdmin"))).toEqual([]);
  });
});
