// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import type { ApiKeyInfo } from "../bindings/ApiKeyInfo";
import type { NewApiKey } from "../bindings/NewApiKey";
import { byTestId, click, render, settle, submit, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { ApiKeys } from "./ApiKeys";

const website: ApiKeyInfo = {
  id: 1,
  name: "website",
  prefix: "sdk_ab12",
  created_at_ms: 1_700_000_000_000,
  created_by: "operator",
  revoked_at_ms: null,
  webhook_url: null,
  scopes: ["send", "read:own"],
  limits: { per_minute: null, per_day: null, destination_prefixes: [] },
};

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

describe("API keys", () => {
  it("lists keys, creates one and shows it once, and revokes after a second click", async () => {
    const keys: ApiKeyInfo[] = [website];
    const created: NewApiKey[] = [];
    const revoked: number[] = [];
    const backend = new FakeBackend();
    backend.listKeys = () => Promise.resolve([...keys]);
    backend.createKey = (key) => {
      created.push(key);
      const info = { ...website, id: 2, name: key.name, prefix: "sdk_cd34" };
      keys.push(info);
      return Promise.resolve({ info, key: "sdk_cd34_full_secret", webhook_secret: null });
    };
    backend.revokeKey = (id) => {
      revoked.push(id);
      keys[0] = { ...website, revoked_at_ms: 1_700_000_100_000 };
      return Promise.resolve();
    };
    view = await render(<ApiKeys backend={backend} />);
    await settle();
    const root = view.container;
    expect(root.querySelectorAll('[data-testid="key-row"]')).toHaveLength(1);

    const form = byTestId<HTMLFormElement>(root, "create-key-form");
    await type(form.querySelector<HTMLInputElement>('input[name="name"]') as HTMLInputElement, " crm ");
    await submit(form);
    await settle();
    expect(created).toEqual([
      { name: "crm", webhook_url: null, scopes: null, limits: { per_minute: null, per_day: null, destination_prefixes: [] } },
    ]);
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
});
