// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../backend";
import type { AccountChange } from "../bindings/AccountChange";
import type { AccountInfo } from "../bindings/AccountInfo";
import type { NewAccount } from "../bindings/NewAccount";
import type { SessionInfo } from "../bindings/SessionInfo";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { createI18n, LOCALES } from "../i18n/i18n";
import { FakeBackend } from "../test/fakeBackend";
import { T0 } from "../test/fixtures";
import { Accounts } from "./Accounts";
import { browserName } from "./accounts/SessionTable";

const alice: AccountInfo = {
  id: 1,
  name: "Alice",
  role: "admin",
  created_at_ms: T0,
  created_by: "Alice (setup link)",
  disabled_at_ms: null,
  last_sign_in_ms: T0 + 60_000,
};
const olga: AccountInfo = { ...alice, id: 2, name: "Olga", role: "operator", created_by: "Alice", last_sign_in_ms: null };

const CHROME =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const aliceSession: SessionInfo = {
  id: 7,
  account_id: 1,
  account_name: "Alice",
  created_at_ms: T0 + 60_000,
  last_seen_ms: T0 + 120_000,
  expires_at_ms: T0 + 12 * 3_600_000,
  address: "192.0.2.10",
  user_agent: CHROME,
};

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

/** The accounts screen over an engine that keeps accounts and sessions, and records each change. */
async function accountsScreen() {
  let accounts: AccountInfo[] = [alice, olga];
  let sessions: SessionInfo[] = [aliceSession];
  const created: NewAccount[] = [];
  const changes: [number, AccountChange][] = [];
  const revoked: number[] = [];
  const backend = new FakeBackend();
  backend.listAccounts = () => Promise.resolve([...accounts]);
  backend.listSessions = () => Promise.resolve([...sessions]);
  backend.createAccount = (n) => {
    created.push(n);
    const info: AccountInfo = { ...olga, id: accounts.length + 1, name: n.name, role: n.role };
    accounts = [...accounts, info];
    return Promise.resolve(info);
  };
  backend.updateAccount = (id, change) => {
    changes.push([id, change]);
    accounts = accounts.map((a) =>
      a.id !== id
        ? a
        : {
            ...a,
            role: change.role ?? a.role,
            disabled_at_ms: change.disabled === null ? a.disabled_at_ms : change.disabled ? T0 + 1 : null,
          },
    );
    return Promise.resolve(accounts.find((a) => a.id === id) as AccountInfo);
  };
  backend.revokeSession = (id) => {
    revoked.push(id);
    sessions = sessions.filter((s) => s.id !== id);
    return Promise.resolve();
  };
  let meChecks = 0;
  view = await render(<Accounts backend={backend} onChanged={() => (meChecks += 1)} />);
  await settle();
  return { backend, created, changes, revoked, root: view.container, meChecks: () => meChecks };
}

const row = (root: HTMLElement, name: string): HTMLElement =>
  root.querySelector<HTMLElement>(`[data-testid="account-row"][data-name="${name}"]`) as HTMLElement;

async function manage(root: HTMLElement, name: string): Promise<HTMLElement> {
  await click(byTestId(row(root, name), "account-manage"));
  return root.querySelector<HTMLElement>(`[data-testid="account-editor"][data-name="${name}"]`) as HTMLElement;
}

describe("Accounts", () => {
  it("lists each account with its role, state and last sign-in, and the signed-in browsers with where from and since when", async () => {
    const { root } = await accountsScreen();
    const rows = [...root.querySelectorAll<HTMLElement>('[data-testid="account-row"]')];
    expect(rows.map((r) => r.dataset["name"])).toEqual(["Alice", "Olga"]);
    expect(byTestId(row(root, "Alice"), "account-role").textContent).toBe("Admin");
    expect(byTestId(row(root, "Olga"), "account-role").textContent).toBe("Operator");
    expect(byTestId(row(root, "Olga"), "account-state").textContent).toBe("Active");
    expect(row(root, "Olga").textContent, "never signed in").toContain("Never");
    expect(row(root, "Alice").querySelector("time")?.getAttribute("datetime")).toBe(new Date(T0 + 60_000).toISOString());
    expect(row(root, "Olga").textContent).toContain("by Alice");

    const session = byTestId(root, "session-row");
    expect(session.querySelector("th")?.textContent).toBe("Alice");
    expect(byTestId(session, "session-address").textContent).toBe("192.0.2.10");
    expect(session.textContent).toContain("Chrome, Linux");
    const times = [...session.querySelectorAll("time")].map((t) => t.getAttribute("datetime"));
    expect(times).toEqual([new Date(T0 + 60_000).toISOString(), new Date(T0 + 120_000).toISOString()]);
    expect(byTestId(session, "session-end").getAttribute("aria-label")).toBe("End session of Alice from 192.0.2.10");
  });

  // axe's label-content-name-mismatch: a button's accessible name must hold the words it shows,
  // so that a person who says what they see (voice control) reaches it.
  it("names each row's buttons with the words they show, in every language", () => {
    for (const locale of LOCALES) {
      const { t } = createI18n([locale]);
      const end = t("sessions.end.label", { name: "Alice", address: "192.0.2.10" });
      const manage = t("accounts.manage.label", { name: "Alice" });
      expect(end.toLowerCase(), `${locale}: ${end}`).toContain(t("sessions.end").toLowerCase());
      expect(manage.toLowerCase(), `${locale}: ${manage}`).toContain(t("accounts.manage").toLowerCase());
    }
  });

  it("adds an account with a name, a role and a first password typed twice", async () => {
    const { created, root, meChecks } = await accountsScreen();
    const form = byTestId<HTMLFormElement>(root, "account-create-form");
    expect(byTestId<HTMLSelectElement>(root, "new-account-role").value, "operator unless chosen otherwise").toBe("operator");
    await type(byTestId<HTMLInputElement>(root, "new-account-name"), " Victor ");
    await settle(() => {
      const select = byTestId<HTMLSelectElement>(root, "new-account-role");
      select.value = "viewer";
      select.dispatchEvent(new Event("change", { bubbles: true }));
    });
    expect(form.textContent).toContain("Reads everything; changes nothing and exports nothing.");
    await type(byTestId<HTMLInputElement>(root, "new-account-password"), "viewer password");
    await type(byTestId<HTMLInputElement>(root, "new-account-confirm"), "viewer password");
    await submit(form);
    await settle();
    expect(created).toEqual([{ name: "Victor", role: "viewer", password: "viewer password" }]);
    expect(byTestId(root, "account-created").textContent).toBe("Victor can now sign in, as Viewer.");
    expect(row(root, "Victor"), "the list shows the new account").not.toBeNull();
    expect(byTestId<HTMLInputElement>(root, "new-account-password").value, "the password is not kept in the form").toBe("");
    expect(meChecks()).toBe(1);
  });

  it("does not send an account without a name or with passwords that differ", async () => {
    const { created, root } = await accountsScreen();
    const form = byTestId<HTMLFormElement>(root, "account-create-form");
    await type(byTestId<HTMLInputElement>(root, "new-account-password"), "a long password");
    await type(byTestId<HTMLInputElement>(root, "new-account-confirm"), "a long passw0rd");
    await submit(form);
    await settle();
    expect(byTestId(root, "new-account-name-missing").textContent).toBe("The account needs a name.");
    expect(byTestId(root, "new-account-password-problem").textContent).toBe("The two passwords differ.");
    expect(created).toEqual([]);
  });

  it("a name already taken is explained", async () => {
    const { backend, root } = await accountsScreen();
    backend.createAccount = () => Promise.reject(new BackendError("name_taken", "an account named `olga` exists already"));
    await type(byTestId<HTMLInputElement>(root, "new-account-name"), "olga");
    await type(byTestId<HTMLInputElement>(root, "new-account-password"), "a long password");
    await type(byTestId<HTMLInputElement>(root, "new-account-confirm"), "a long password");
    await submit(byTestId<HTMLFormElement>(root, "account-create-form"));
    await settle();
    const error = byTestId(root, "account-create-error");
    expect(error.dataset["code"]).toBe("name_taken");
    expect(error.textContent).toContain("An account with this name exists already");
  });

  it("changes an account's role, disables it after a confirmation, and enables it again", async () => {
    const { changes, root, meChecks } = await accountsScreen();
    let editor = await manage(root, "Olga");
    expect(byTestId(row(root, "Olga"), "account-manage").getAttribute("aria-expanded")).toBe("true");
    expect(byTestId<HTMLButtonElement>(editor, "account-role-save").disabled, "nothing to save yet").toBe(true);
    await settle(() => {
      const select = byTestId<HTMLSelectElement>(editor, "account-role-select");
      select.value = "viewer";
      select.dispatchEvent(new Event("change", { bubbles: true }));
    });
    await submit(byTestId<HTMLFormElement>(editor, "account-role-form"));
    await settle();
    expect(changes).toEqual([[2, { role: "viewer", disabled: null, password: null }]]);
    expect(byTestId(row(root, "Olga"), "account-role").textContent).toBe("Viewer");
    expect(byTestId(editor, "account-done").textContent).toBe("Olga’s role was changed.");

    editor = root.querySelector<HTMLElement>('[data-testid="account-editor"][data-name="Olga"]') as HTMLElement;
    await click(byTestId(editor, "account-disable"));
    expect(changes, "one click only asks for confirmation").toHaveLength(1);
    await click(byTestId(editor, "account-disable-confirm"));
    await settle();
    expect(changes[1]).toEqual([2, { role: null, disabled: true, password: null }]);
    expect(byTestId(row(root, "Olga"), "account-state").textContent).toBe("Disabled");

    await click(byTestId(editor, "account-enable"));
    await settle();
    expect(changes[2]).toEqual([2, { role: null, disabled: false, password: null }]);
    expect(byTestId(row(root, "Olga"), "account-state").textContent).toBe("Active");
    expect(meChecks(), "the app asks again who is signed in after each change (it may be their own account)").toBe(3);
  });

  it("sets a new password, typed twice", async () => {
    const { changes, root } = await accountsScreen();
    const editor = await manage(root, "Olga");
    await type(byTestId<HTMLInputElement>(editor, "account-password"), "a new password for olga");
    await type(byTestId<HTMLInputElement>(editor, "account-confirm"), "a new password for olga");
    await submit(byTestId<HTMLFormElement>(editor, "account-password-form"));
    await settle();
    expect(changes).toEqual([[2, { role: null, disabled: null, password: "a new password for olga" }]]);
    expect(byTestId(editor, "account-done").textContent).toBe("Olga’s password was set; their sessions ended.");
    expect(byTestId<HTMLInputElement>(editor, "account-password").value).toBe("");
  });

  it("the last admin stays one: the refusal is explained", async () => {
    const { backend, root } = await accountsScreen();
    backend.updateAccount = () => Promise.reject(new BackendError("last_admin", "Alice is the last active admin: make another admin first"));
    const editor = await manage(root, "Alice");
    await click(byTestId(editor, "account-disable"));
    await click(byTestId(editor, "account-disable-confirm"));
    await settle();
    const error = byTestId(editor, "account-error");
    expect(error.dataset["code"]).toBe("last_admin");
    expect(error.textContent).toContain("This is the last active admin: make someone else admin first.");
    expect(byTestId(row(root, "Alice"), "account-state").textContent).toBe("Active");
  });

  it("ends a browser's session at once, and the list no longer shows it", async () => {
    const { revoked, root } = await accountsScreen();
    await click(byTestId(root, "session-end"));
    await settle();
    expect(revoked).toEqual([7]);
    expect(queryTestId(root, "session-row")).toBeNull();
    expect(root.textContent).toContain("Nobody is signed in from a browser.");
  });

  it("follows changes other admins make: an audited change reloads accounts and sessions", async () => {
    const { backend, root } = await accountsScreen();
    backend.listAccounts = () => Promise.resolve([alice, olga, { ...olga, id: 3, name: "Paul" }]);
    await settle(() => backend.emit({ entity: "audit", id: 40 }), 300);
    expect(row(root, "Paul")).not.toBeNull();
  });
});

describe("browserName", () => {
  it("says which browser and system in a few words", () => {
    expect(browserName(CHROME)).toBe("Chrome, Linux");
    expect(browserName("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0")).toBe("Firefox, Windows");
    expect(browserName("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36")).toBe(
      "Headless Chrome, Linux",
    );
    expect(browserName("curl/8.5.0")).toBe("curl/8.5.0");
  });
});
