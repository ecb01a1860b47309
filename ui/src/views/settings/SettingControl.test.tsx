// @vitest-environment happy-dom
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import type { FieldError } from "../../bindings/FieldError";
import type { SettingField } from "../../bindings/SettingField";
import type { SettingsView } from "../../bindings/SettingsView";
import { createI18n, LOCALES } from "../../i18n/i18n";
import { byTestId, queryTestId, render, type, type Rendered } from "../../test/dom";
import { settingLabel } from "./labels";
import { PasswordControl, SettingControl } from "./SettingControl";

function field(key: string, value: string, more: Partial<SettingField> = {}): SettingField {
  const [section = ""] = key.split(".");
  return {
    key,
    section,
    value,
    default: value,
    kind: "integer",
    choices: [],
    source: "default",
    env_var: `SMSDESK_${key.replace(".", "_").toUpperCase()}`,
    editable: true,
    applies: "restart",
    pending_restart: false,
    doc: "",
    ...more,
  };
}

const PASSWORD = field("smpp.password", "", { kind: "password", applies: "reconnect", source: "encrypted_file" });
const VIEW = { password_set: false, secret_store: "encrypted_file" } as SettingsView;

/** Every setting the engine documents, as `section.key`, read from the one list it is generated from. */
function documentedSettings(): string[] {
  const text = readFileSync(resolve(process.cwd(), "../src-tauri/core/src/config/settings.rs"), "utf8");
  const body = text.slice(text.indexOf("settings! {"));
  const keys: string[] = [];
  let section = "";
  for (const line of body.split("\n")) {
    const opened = /^ {4}([a-z_]+): [A-Z]\w+ \{$/.exec(line);
    if (opened?.[1] !== undefined) section = opened[1];
    const key = /^ {8}([a-z_0-9]+): .+ = /.exec(line);
    if (key?.[1] !== undefined) keys.push(`${section}.${key[1]}`);
  }
  return keys;
}

let rendered: Rendered | undefined;
afterEach(async () => {
  await rendered?.unmount();
  rendered = undefined;
});

/** A setting as it stands alone on the screen, holding what is typed into it. */
function Held({ f, errors = [] }: { f: SettingField; errors?: FieldError[] }) {
  const [value, setValue] = useState(f.value);
  return <SettingControl field={f} value={value} onChange={setValue} errors={errors} />;
}

/** The password field, holding what is typed into it. */
function HeldPassword({ errors = [], start = null }: { errors?: FieldError[]; start?: string | null }) {
  const [value, setValue] = useState<string | null>(start);
  return <PasswordControl field={PASSWORD} view={VIEW} value={value} onChange={setValue} errors={errors} />;
}

async function show(f: SettingField, languages: string[] = ["en-US"]): Promise<HTMLElement> {
  rendered = await render(<Held f={f} />, languages);
  return rendered.container;
}

describe("a setting on the Settings screen", () => {
  it("has a name in words in every language for every setting the engine documents", () => {
    const keys = documentedSettings();
    expect(keys.length, "the list of settings was read").toBeGreaterThan(60);
    expect(keys).toContain("http.header_read_timeout_seconds");
    for (const locale of LOCALES) {
      const { t } = createI18n([locale]);
      const raw = keys.filter((key) => settingLabel(t, key) === key);
      expect(raw, `${locale}: settings shown by their key alone`).toEqual([]);
    }
  });

  it("shows its name as the label, its key in small print beneath, and when it applies apart", async () => {
    const root = await show(field("http.header_read_timeout_seconds", "10"), ["fr-FR"]);
    const setting = root.querySelector('[data-key="http.header_read_timeout_seconds"]');
    const label = setting?.querySelector("label");
    expect(label?.textContent).toBe("Délai pour envoyer les en-têtes d’une requête (secondes)");
    expect(label?.nextElementSibling?.matches("code.setting-key")).toBe(true);
    expect(label?.nextElementSibling?.textContent).toBe("http.header_read_timeout_seconds");
    expect(setting?.querySelector(".setting-meta")?.textContent).toBe("S’applique au prochain démarrage");
    const input = byTestId(root, "setting-http.header_read_timeout_seconds");
    expect(input.id).toBe(label?.getAttribute("for"));
  });

  it("offers the office's country from the list of countries, named in the reader's language", async () => {
    const root = await show(field("intake.default_region", "fr", { kind: "text", applies: "now" }), ["fr-FR"]);
    const select = byTestId<HTMLSelectElement>(root, "setting-intake.default_region");
    expect(select.tagName, "chosen, not typed").toBe("SELECT");
    expect(select.value, "a code written in lower case is the same country").toBe("FR");
    expect(select.selectedOptions[0]?.textContent).toBe("France");
    expect(select.options.length, "every country the numbering data knows, and none").toBeGreaterThan(200);
    expect(select.options[0]?.value).toBe("");
  });

  it("says as it is typed that a System ID is longer than SMPP's 15 characters", async () => {
    const root = await show(field("smpp.system_id", "smsdesk", { kind: "text", applies: "reconnect" }));
    const input = byTestId<HTMLInputElement>(root, "setting-smpp.system_id");
    expect(queryTestId(root, "limit-smpp.system_id")).toBeNull();
    await type(input, "a-system-id-of-16");
    const limit = byTestId(root, "limit-smpp.system_id");
    expect(limit.textContent).toBe("Too long: SMPP carries a system ID of 15 characters at most. Check the system ID your provider gave you.");
    const typed = byTestId<HTMLInputElement>(root, "setting-smpp.system_id");
    expect(typed.getAttribute("aria-invalid")).toBe("true");
    expect(typed.getAttribute("aria-describedby")?.split(" ")).toContain(limit.id);
  });
});

describe("the SMPP password", () => {
  async function password(errors: FieldError[] = [], languages = ["en-US"], start: string | null = null): Promise<HTMLElement> {
    rendered = await render(<HeldPassword errors={errors} start={start} />, languages);
    return rendered.container;
  }
  const input = (root: HTMLElement) => byTestId<HTMLInputElement>(root, "setting-smpp.password");

  it("says as it is typed when it is longer than SMPP's 8 characters, and nothing while it fits", async () => {
    const root = await password();
    await type(input(root), "8charsok");
    expect(queryTestId(root, "limit-smpp.password")).toBeNull();
    expect(input(root).getAttribute("aria-invalid")).toBeNull();

    await type(input(root), "elevenchars");
    const limit = byTestId(root, "limit-smpp.password");
    expect(limit.textContent, "in the words of the engine's own refusal").toBe(
      "Too long: SMPP carries a password of 8 characters at most, so the provider would refuse it. Ask your provider for the password to use over SMPP.",
    );
    expect(input(root).getAttribute("aria-invalid")).toBe("true");
    expect(input(root).getAttribute("aria-describedby")?.split(" ")).toContain(limit.id);

    await type(input(root), "short");
    expect(queryTestId(root, "limit-smpp.password"), "gone once it fits").toBeNull();
  });

  it("says it in the reader's language", async () => {
    const root = await password([], ["ru-RU"], "elevenchars");
    expect(byTestId(root, "limit-smpp.password").textContent).toContain("SMPP передаёт пароль не длиннее 8 символов");
  });

  it("says it once when the engine refused the same length", async () => {
    const refused: FieldError = { field: "smpp.password", code: "password_too_long", params: { max: "8" }, message: "too long" };
    const root = await password([refused], ["en-US"], "elevenchars");
    expect(root.querySelectorAll('[data-testid="limit-smpp.password"]').length).toBe(1);
    expect(queryTestId(root, "field-errors"), "the engine's refusal of the same is not repeated").toBeNull();
  });
});
