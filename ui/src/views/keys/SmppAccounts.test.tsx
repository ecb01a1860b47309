// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../../backend";
import type { ApiKeyInfo } from "../../bindings/ApiKeyInfo";
import type { NewSmppAccount } from "../../bindings/NewSmppAccount";
import type { SmppAccountInfo } from "../../bindings/SmppAccountInfo";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../../test/dom";
import { FakeBackend } from "../../test/fakeBackend";
import { ApiKeys } from "../ApiKeys";

const NO_LIMITS = { per_minute: null, per_day: null, destination_prefixes: [], countries: [], otp_countries: [] };
const T0 = 1_765_000_000_000;

function account(id: number, name: string, more: Partial<SmppAccountInfo> = {}): SmppAccountInfo {
  return {
    id,
    name,
    tps: 10,
    window: 10,
    kinds: ["transactional"],
    scopes: ["send", "read:own"],
    created_at_ms: T0,
    created_by: "Alice",
    revoked_at_ms: null,
    ...more,
  };
}

function keyOf(a: SmppAccountInfo): ApiKeyInfo {
  return {
    id: a.id,
    name: a.name,
    prefix: `sdk_${a.id}`,
    created_at_ms: a.created_at_ms,
    created_by: a.created_by,
    revoked_at_ms: a.revoked_at_ms,
    webhook_url: null,
    scopes: a.scopes,
    limits: NO_LIMITS,
  };
}

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

interface Scene {
  root: HTMLElement;
  backend: FakeBackend;
  accounts: SmppAccountInfo[];
  readonly created: NewSmppAccount[];
  readonly reset: number[];
  readonly revoked: number[];
  readonly keyLoads: { count: number };
}

/** The API keys screen over a backend that keeps the SMPP accounts it makes (each also a key). */
async function screen(start: SmppAccountInfo[] = [], languages = ["en-US"]): Promise<Scene> {
  const backend = new FakeBackend();
  const scene: Scene = {
    root: document.body,
    backend,
    accounts: [...start],
    created: [],
    reset: [],
    revoked: [],
    keyLoads: { count: 0 },
  };
  const website: ApiKeyInfo = { ...keyOf(account(1, "website")), scopes: ["send", "read:own"] };
  backend.listKeys = () => {
    scene.keyLoads.count += 1;
    return Promise.resolve([website, ...scene.accounts.map(keyOf)]);
  };
  backend.listSmppAccounts = () => Promise.resolve([...scene.accounts]);
  backend.createSmppAccount = (a) => {
    scene.created.push(a);
    const info = account(100 + scene.created.length, a.name, { tps: a.tps ?? 10, window: a.window ?? 10, kinds: a.kinds ?? ["transactional"] });
    scene.accounts = [info, ...scene.accounts];
    return Promise.resolve({ info, password: "Kp7xQ2mZ" });
  };
  backend.resetSmppPassword = (id) => {
    scene.reset.push(id);
    const info = scene.accounts.find((a) => a.id === id);
    return info === undefined ? Promise.reject(new BackendError("not_found", "no")) : Promise.resolve({ info, password: "N3wPassw" });
  };
  backend.revokeKey = (id) => {
    scene.revoked.push(id);
    scene.accounts = scene.accounts.map((a) => (a.id === id ? { ...a, revoked_at_ms: T0 + 60_000 } : a));
    return Promise.resolve();
  };
  view = await render(<ApiKeys backend={backend} />, languages);
  await settle();
  scene.root = view.container;
  return scene;
}

const rows = (root: HTMLElement) => [...root.querySelectorAll<HTMLElement>('[data-testid="smpp-account-row"]')];
const row = (root: HTMLElement, name: string) => {
  const found = rows(root).find((r) => r.dataset["name"] === name);
  if (found === undefined) throw new Error(`no row ${name}`);
  return found;
};
const field = (root: HTMLElement, id: string) => byTestId<HTMLInputElement>(root, id);

describe("SMPP accounts on the API keys screen", () => {
  it("lists each account with its pace, kinds, creation and state, and marks its key in the keys' list", async () => {
    const { root } = await screen([
      account(7, "pbx", { tps: 5, window: 2, kinds: ["otp", "transactional"] }),
      account(6, "lab", { revoked_at_ms: T0 + 3_600_000 }),
    ]);
    const section = byTestId(root, "smpp-accounts");
    expect(section.querySelector("h2")?.textContent).toBe("SMPP accounts");
    expect(section.querySelector(".panel-intro")?.textContent).toContain("a PBX, a laboratory system");
    expect(byTestId<HTMLAnchorElement>(section, "smpp-accounts-settings-link").getAttribute("href")).toBe("#/settings");
    expect([...section.querySelectorAll("th")].map((th) => th.textContent)).toEqual([
      "System ID",
      "Submits per second",
      "Window",
      "Kinds",
      "Created",
      "State",
      "Actions",
    ]);
    const pbx = row(root, "pbx");
    const cells = [...pbx.querySelectorAll("td")].map((td) => td.textContent ?? "");
    expect(cells.slice(0, 4)).toEqual(["pbx", "5", "2", "One-time codes (when a submit does not say)Transactional"]);
    expect(cells[4]).toContain("by Alice");
    expect(byTestId(pbx, "smpp-account-state").textContent).toBe("Active");
    expect(byTestId(pbx, "smpp-account-reset").textContent).toBe("New password");
    const lab = row(root, "lab");
    expect(byTestId(lab, "smpp-account-state").textContent).toContain("Revoked");
    expect(queryTestId(lab, "smpp-account-actions"), "nothing to do with a revoked account").toBeNull();

    const keyRows = [...root.querySelectorAll<HTMLElement>('[data-testid="key-row"]')];
    expect(keyRows.map((r) => [r.dataset["id"], r.querySelector(".badge-neutral")?.textContent ?? null])).toEqual([
      ["1", null],
      ["7", "SMPP account"],
      ["6", "SMPP account"],
    ]);
  });

  it("says when there is none yet", async () => {
    const { root } = await screen();
    expect(byTestId(root, "smpp-accounts-empty").textContent).toBe("No SMPP account yet.");
  });

  it("creates one with 10 submits a second, a window of 10 and transactional messages unless told, and shows its password once", async () => {
    const scene = await screen();
    const { root } = scene;
    expect(field(root, "smpp-account-tps").value).toBe("10");
    expect(field(root, "smpp-account-window").value).toBe("10");
    expect(["otp", "transactional", "bulk"].map((k) => field(root, `smpp-account-kind-${k}`).checked)).toEqual([false, true, false]);
    expect(byTestId(root, "smpp-account-default-kind").textContent).toBe(
      "A submit without a service_type is sent as the first kind ticked: Transactional.",
    );
    expect(byTestId<HTMLButtonElement>(root, "smpp-account-submit").disabled, "a name first").toBe(true);

    await type(field(root, "smpp-account-name"), " pbx ");
    await submit(byTestId<HTMLFormElement>(root, "smpp-account-form"));
    await settle();
    expect(scene.created).toEqual([{ name: "pbx", tps: 10, window: 10, kinds: ["transactional"], limits: NO_LIMITS }]);
    const shown = byTestId(root, "smpp-password");
    expect(shown.dataset["from"]).toBe("create");
    expect(shown.querySelector("h3")?.textContent).toBe("SMPP account pbx created");
    expect(byTestId(shown, "smpp-password-value").textContent).toBe("Kp7xQ2mZ");
    expect(shown.textContent).toContain("binds with the System ID pbx and this password");
    expect(byTestId(shown, "smpp-password-warning").textContent).toBe("Copy it now: it is not stored and cannot be shown again.");
    expect(byTestId(root, "smpp-account-create").contains(shown), "under the form it was made with").toBe(true);
    expect(rows(root).map((r) => r.dataset["name"]), "the list shows it").toEqual(["pbx"]);
    expect(scene.keyLoads.count, "and the keys' list, where it is a key too").toBe(2);
    expect(field(root, "smpp-account-name").value, "the form is ready for the next one").toBe("");
  });

  it("gives a live account a new password after a second click, and shows it once above the list", async () => {
    const scene = await screen([account(7, "pbx")]);
    const { root } = scene;
    await click(byTestId(row(root, "pbx"), "smpp-account-reset"));
    expect(scene.reset, "one click only asks").toEqual([]);
    expect(byTestId(row(root, "pbx"), "smpp-account-confirm-hint").textContent).toContain("binds with the old one are refused");
    await click(byTestId(row(root, "pbx"), "smpp-account-keep"));
    expect(queryTestId(row(root, "pbx"), "smpp-account-confirm")).toBeNull();

    await click(byTestId(row(root, "pbx"), "smpp-account-reset"));
    expect(byTestId(row(root, "pbx"), "smpp-account-confirm").textContent).toBe("Give pbx a new password now");
    await click(byTestId(row(root, "pbx"), "smpp-account-confirm"));
    await settle();
    expect(scene.reset).toEqual([7]);
    const shown = byTestId(root, "smpp-password");
    expect(shown.dataset["from"]).toBe("reset");
    expect(shown.querySelector("h3")?.textContent).toBe("New password for pbx");
    expect(byTestId(shown, "smpp-password-value").textContent).toBe("N3wPassw");
    expect(byTestId(root, "smpp-accounts").contains(shown)).toBe(true);

    await type(field(root, "smpp-account-name"), "lab");
    await submit(byTestId<HTMLFormElement>(root, "smpp-account-form"));
    await settle();
    expect(root.querySelectorAll('[data-testid="smpp-password"]').length, "one password shown at a time").toBe(1);
    expect(byTestId(root, "smpp-password").dataset["name"]).toBe("lab");
  });

  it("revokes an account only after a second click, as its key", async () => {
    const scene = await screen([account(7, "pbx")]);
    const { root } = scene;
    await click(byTestId(row(root, "pbx"), "smpp-account-revoke"));
    expect(scene.revoked).toEqual([]);
    const confirm = byTestId(row(root, "pbx"), "smpp-account-confirm");
    expect(confirm.textContent).toBe("Revoke pbx now");
    expect(confirm.classList.contains("button-danger")).toBe(true);
    await click(confirm);
    await settle();
    expect(scene.revoked).toEqual([7]);
    expect(byTestId(row(root, "pbx"), "smpp-account-state").textContent).toContain("Revoked");
    const key = root.querySelector<HTMLElement>('[data-testid="key-row"][data-id="7"]');
    expect(key?.textContent, "the keys' list follows").toContain("Revoked");
  });

  it("says why a new password was not given", async () => {
    const scene = await screen([account(7, "pbx")]);
    scene.backend.resetSmppPassword = () => Promise.reject(new BackendError("not_allowed", "SMPP account pbx is revoked"));
    await click(byTestId(row(scene.root, "pbx"), "smpp-account-reset"));
    await click(byTestId(row(scene.root, "pbx"), "smpp-account-confirm"));
    await settle();
    expect(byTestId(row(scene.root, "pbx"), "smpp-account-error").textContent).toContain("No new password was given");
    expect(queryTestId(scene.root, "smpp-password")).toBeNull();
  });

  it("speaks French and Russian", async () => {
    const fr = await screen([account(7, "pbx")], ["fr-FR"]);
    expect(byTestId(fr.root, "smpp-accounts").querySelector("h2")?.textContent).toBe("Comptes SMPP");
    expect(byTestId(fr.root, "smpp-account-submit").textContent).toBe("Créer le compte SMPP");
    await view?.unmount();
    view = undefined;
    const ru = await screen([account(7, "pbx")], ["ru-RU"]);
    expect(byTestId(ru.root, "smpp-accounts").querySelector("h2")?.textContent).toBe("SMPP-аккаунты");
    expect(byTestId(row(ru.root, "pbx"), "smpp-account-reset").textContent).toBe("Новый пароль");
  });
});
