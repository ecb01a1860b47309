// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../backend";
import type { ApiKeyInfo } from "../bindings/ApiKeyInfo";
import type { NewApiKey } from "../bindings/NewApiKey";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { ApiKeys, parsePrefixes } from "./ApiKeys";

const NO_LIMITS = { per_minute: null, per_day: null, destination_prefixes: [], countries: [], otp_countries: [] };

const website: ApiKeyInfo = {
  id: 1,
  name: "website",
  prefix: "sdk_ab12",
  created_at_ms: 1_700_000_000_000,
  created_by: "Alice",
  revoked_at_ms: null,
  webhook_url: null,
  scopes: ["send", "read:own"],
  limits: NO_LIMITS,
};

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

/** The keys screen over a backend that keeps the keys it creates. */
async function keysScreen(keys: ApiKeyInfo[] = [website], languages: string[] = ["en-US"]) {
  const created: NewApiKey[] = [];
  const backend = new FakeBackend();
  backend.listKeys = () => Promise.resolve([...keys]);
  backend.createKey = (key) => {
    created.push(key);
    const info: ApiKeyInfo = {
      ...website,
      id: keys.length + 1,
      name: key.name,
      prefix: "sdk_cd34",
      scopes: key.scopes ?? ["send", "read:own"],
      limits: key.limits,
    };
    keys.push(info);
    return Promise.resolve({ info, key: "sdk_cd34_full_secret", webhook_secret: null });
  };
  view = await render(<ApiKeys backend={backend} />, languages);
  await settle();
  return { backend, created, root: view.container };
}

const checkbox = (root: HTMLElement, scope: string) => byTestId<HTMLInputElement>(root, `key-scope-${scope}`);

describe("API keys", () => {
  it("lists keys, creates one and shows it once, and revokes after a second click", async () => {
    const keys: ApiKeyInfo[] = [website];
    const revoked: number[] = [];
    const { backend, created, root } = await keysScreen(keys);
    backend.revokeKey = (id) => {
      revoked.push(id);
      keys[0] = { ...website, revoked_at_ms: 1_700_000_100_000 };
      return Promise.resolve();
    };
    expect(root.querySelectorAll('[data-testid="key-row"]')).toHaveLength(1);

    const form = byTestId<HTMLFormElement>(root, "create-key-form");
    await type(form.querySelector<HTMLInputElement>('input[name="name"]') as HTMLInputElement, " crm ");
    await submit(form);
    await settle();
    expect(created).toEqual([{ name: "crm", webhook_url: null, scopes: ["send", "read:own"], limits: NO_LIMITS }]);
    expect(byTestId(root, "created-key-value").textContent).toBe("sdk_cd34_full_secret");
    expect(root.querySelectorAll('[data-testid="key-row"]'), "the list shows the new key").toHaveLength(2);

    const firstRow = root.querySelector<HTMLElement>('[data-testid="key-row"]') as HTMLElement;
    await click(firstRow.querySelector("button") as HTMLButtonElement);
    expect(revoked, "one click only asks for confirmation").toEqual([]);
    await click(firstRow.querySelector(".button-danger") as HTMLButtonElement);
    await settle();
    expect(revoked).toEqual([1]);
    expect(root.querySelector('[data-testid="key-row"]')?.textContent).toContain("Revoked");
  });

  it("offers every scope as a checkbox with a one-line explanation, send and read:own checked by default", async () => {
    const { root } = await keysScreen();
    const choice = byTestId(root, "key-scopes-choice");
    expect(choice.tagName).toBe("FIELDSET");
    expect(choice.querySelector("legend")?.textContent).toBe("What the key may do");
    const boxes = [...choice.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')];
    expect(boxes.map((b) => [b.value, b.checked])).toEqual([
      ["send", true],
      ["read:own", true],
      ["read:all", false],
      ["act", false],
      ["export", false],
      ["alerts", false],
      ["metrics", false],
    ]);
    for (const box of boxes) {
      const label = box.closest("label");
      expect(label?.querySelector(".hint")?.textContent, `${box.value} is explained`).not.toBe("");
    }
    expect(checkbox(root, "read:all").closest("label")?.textContent).toContain("Read every message, the exceptions");
  });

  it("offers a key the alerts on its webhook and the metrics for monitoring, in the reader's language", async () => {
    const said = async (languages: string[]) => {
      const { root } = await keysScreen([website], languages);
      const words = ["alerts", "metrics"].map((scope) => checkbox(root, scope).closest("label")?.querySelector(".choice-label")?.textContent);
      await view?.unmount();
      view = undefined;
      return words;
    };
    expect(await said(["en-US"])).toEqual(["alerts Receive alerts on its webhook", "metrics Read the metrics for monitoring"]);
    expect(await said(["fr-FR"])).toEqual(["alerts Recevoir les alertes sur son webhook", "metrics Lire les métriques de supervision"]);
    expect(await said(["ru-RU"])).toEqual(["alerts Получать оповещения на свой вебхук", "metrics Читать метрики для мониторинга"]);
  });

  it("creates a key with the scopes and limits chosen, prefixes split on commas and spaces", async () => {
    const { created, root } = await keysScreen();
    const form = byTestId<HTMLFormElement>(root, "create-key-form");
    await type(form.querySelector<HTMLInputElement>('input[name="name"]') as HTMLInputElement, "backoffice");
    await click(checkbox(root, "read:own"));
    await click(checkbox(root, "read:all"));
    await click(checkbox(root, "act"));
    await type(byTestId<HTMLInputElement>(root, "key-per-minute"), "60");
    await type(byTestId<HTMLInputElement>(root, "key-per-day"), "1000");
    await type(byTestId<HTMLInputElement>(root, "key-prefixes"), "+33, +32 +41");
    await submit(form);
    await settle();
    expect(created).toEqual([
      {
        name: "backoffice",
        webhook_url: null,
        scopes: ["send", "read:all", "act"],
        limits: { per_minute: 60, per_day: 1000, destination_prefixes: ["+33", "+32", "+41"], countries: [], otp_countries: [] },
      },
    ]);
    const row = root.querySelector<HTMLElement>('[data-testid="key-row"][data-id="2"]') as HTMLElement;
    expect(byTestId(row, "key-scopes").dataset["scopes"]).toBe("send read:all act");
    const limits = byTestId(row, "key-limits").textContent;
    expect(limits).toContain("60 per minute");
    expect(limits).toContain("1,000 per day");
    expect(limits).toContain("only to +33, +32, +41");
    expect(checkbox(root, "read:own").checked, "the form is back to the defaults for the next key").toBe(true);
  });

  it("gives a key the countries its messages and codes may go to and spend limits of its own, and describes them", async () => {
    const { created, root } = await keysScreen();
    const form = byTestId<HTMLFormElement>(root, "create-key-form");
    await type(form.querySelector<HTMLInputElement>('input[name="name"]') as HTMLInputElement, "website");
    await type(byTestId<HTMLInputElement>(root, "key-countries"), "fr, be");
    await type(byTestId<HTMLInputElement>(root, "key-otp-countries"), "FR");
    await type(byTestId<HTMLInputElement>(root, "key-spend-day"), "5,50");
    await submit(form);
    await settle();
    expect(created[0]?.limits).toEqual({
      per_minute: null,
      per_day: null,
      destination_prefixes: [],
      countries: ["FR", "BE"],
      otp_countries: ["FR"],
      spend_day: "5.50",
    });
    const row = root.querySelector<HTMLElement>('[data-testid="key-row"][data-id="2"]') as HTMLElement;
    const limits = byTestId(row, "key-limits").textContent;
    expect(limits).toContain("only to FR, BE");
    expect(limits).toContain("one-time codes only to FR");
    expect(limits).toContain("at most 5.50 a day");
  });

  it("refuses a country that is not two letters or a spend limit that is not an amount, saying why", async () => {
    const { root } = await keysScreen();
    const form = byTestId<HTMLFormElement>(root, "create-key-form");
    await type(form.querySelector<HTMLInputElement>('input[name="name"]') as HTMLInputElement, "website");
    await type(byTestId<HTMLInputElement>(root, "key-countries"), "France");
    expect(byTestId(root, "create-key-blocked").textContent).toBe("A country must be two letters, such as FR.");
    await type(byTestId<HTMLInputElement>(root, "key-countries"), "FR");
    await type(byTestId<HTMLInputElement>(root, "key-spend-month"), "lots");
    expect(byTestId(root, "create-key-blocked").textContent).toBe("A spend limit must be an amount, such as 5.00.");
    expect(byTestId<HTMLButtonElement>(root, "create-key-submit").disabled).toBe(true);
  });

  it("shows each key's scopes and limits, or that it has none", async () => {
    const crm: ApiKeyInfo = {
      ...website,
      id: 2,
      name: "crm",
      scopes: ["read:all", "export"],
      limits: { per_minute: null, per_day: 500, destination_prefixes: ["+33"], countries: [], otp_countries: [] },
    };
    const { root } = await keysScreen([website, crm]);
    const [first, second] = [...root.querySelectorAll<HTMLElement>('[data-testid="key-row"]')];
    expect([...byTestId(first!, "key-scopes").querySelectorAll("code")].map((c) => c.textContent)).toEqual(["send", "read:own"]);
    expect(byTestId(first!, "key-limits").textContent).toBe("None");
    expect([...byTestId(second!, "key-scopes").querySelectorAll("code")].map((c) => c.textContent)).toEqual(["read:all", "export"]);
    expect(byTestId(second!, "key-limits").textContent).toBe("500 per dayonly to +33");
  });

  it("refuses to send a key with no scope or a limit that is not a whole number, saying why", async () => {
    const { created, root } = await keysScreen();
    const form = byTestId<HTMLFormElement>(root, "create-key-form");
    await type(form.querySelector<HTMLInputElement>('input[name="name"]') as HTMLInputElement, "nothing");
    await click(checkbox(root, "send"));
    await click(checkbox(root, "read:own"));
    const button = byTestId<HTMLButtonElement>(root, "create-key-submit");
    expect(button.disabled).toBe(true);
    expect(byTestId(root, "create-key-blocked").textContent).toBe("Choose at least one thing the key may do.");
    expect(button.getAttribute("aria-describedby")).toBe(byTestId(root, "create-key-blocked").id);

    await click(checkbox(root, "send"));
    await type(byTestId<HTMLInputElement>(root, "key-per-minute"), "0");
    expect(byTestId(root, "create-key-blocked").textContent).toBe("A limit is a whole number of at least 1, or empty.");
    expect(byTestId<HTMLInputElement>(root, "key-per-minute").getAttribute("aria-invalid")).toBe("true");
    await submit(form);
    await settle();
    expect(created, "nothing is sent while something is wrong").toEqual([]);
  });

  it("an empty name and a webhook that is not a web address are said at their fields in the app's words", async () => {
    const { created, root } = await keysScreen();
    const form = byTestId<HTMLFormElement>(root, "create-key-form");
    expect(form.noValidate, "not the browser's bubbles").toBe(true);
    await submit(form);
    await settle();
    expect(byTestId(root, "create-key-name-required").textContent).toBe("Fill in this field.");
    expect(byTestId<HTMLInputElement>(root, "create-key-name").getAttribute("aria-invalid")).toBe("true");
    await type(byTestId<HTMLInputElement>(root, "create-key-name"), "crm");
    await type(byTestId<HTMLInputElement>(root, "create-key-webhook"), "crm.example/hook");
    expect(byTestId(root, "create-key-webhook-problem").textContent).toContain("http:// or https://");
    await submit(form);
    await settle();
    expect(created, "nothing is sent while a field is wrong").toEqual([]);
    await type(byTestId<HTMLInputElement>(root, "create-key-webhook"), "https://crm.example/hook");
    expect(queryTestId(root, "create-key-webhook-problem")).toBeNull();
    await submit(form);
    await settle();
    expect(created.map((c) => [c.name, c.webhook_url])).toEqual([["crm", "https://crm.example/hook"]]);
  });

  it("shows the engine's refusal of a key (a bad prefix) with its words", async () => {
    const { backend, root } = await keysScreen();
    backend.createKey = () =>
      Promise.reject(new BackendError("invalid", "destination prefix `33` is not the start of an international number (`+` and 1 to 15 digits)"));
    const form = byTestId<HTMLFormElement>(root, "create-key-form");
    await type(form.querySelector<HTMLInputElement>('input[name="name"]') as HTMLInputElement, "crm");
    await type(byTestId<HTMLInputElement>(root, "key-prefixes"), "33");
    await submit(form);
    await settle();
    expect(root.textContent).toContain("The key was not created");
    expect(root.textContent).toContain("destination prefix `33` is not the start of an international number");
    expect(queryTestId(root, "created-key")).toBeNull();
  });
});

describe("parsePrefixes", () => {
  it("splits on commas, semicolons, spaces and new lines, and drops empty parts", () => {
    expect(parsePrefixes(" +33, +32;+41\n+44  ")).toEqual(["+33", "+32", "+41", "+44"]);
    expect(parsePrefixes("   ")).toEqual([]);
  });
});
