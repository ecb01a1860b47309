// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../../backend";
import type { SettingField } from "../../bindings/SettingField";
import type { SettingsUpdate } from "../../bindings/SettingsUpdate";
import type { SettingsView } from "../../bindings/SettingsView";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../../test/dom";
import { FakeBackend } from "../../test/fakeBackend";
import { Settings } from "../Settings";

function field(key: string, value: string, more: Partial<SettingField> = {}): SettingField {
  const [section = ""] = key.split(".");
  return {
    key,
    section,
    value,
    default: value,
    kind: "text",
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

function view(): SettingsView {
  return {
    config_file: "/data/smsdesk.toml",
    fields: [
      field("smpp.sandbox", "true", { kind: "bool", applies: "reconnect" }),
      field("smpp_server.enabled", "false", { kind: "bool" }),
      field("smpp_server.bind", "127.0.0.1"),
      field("smpp_server.port", "2775", { kind: "integer" }),
      field("smpp_server.tls", "false", { kind: "bool" }),
      field("smpp_server.tls_cert_file", ""),
      field("smpp_server.tls_key_file", ""),
      field("http.port", "8470", { kind: "integer" }),
    ],
    password_set: false,
    secret_store: "encrypted_file",
    providers: [],
    presets: [],
  };
}

let rendered: Rendered | undefined;
afterEach(async () => {
  await rendered?.unmount();
  rendered = undefined;
});

async function open(languages = ["en-US"]): Promise<{ root: HTMLElement; updates: SettingsUpdate[] }> {
  const updates: SettingsUpdate[] = [];
  const backend = new FakeBackend();
  backend.settings = () => Promise.resolve(view());
  backend.pace = () => new Promise(() => {});
  backend.connectionSettings = () => new Promise(() => {});
  backend.updateSettings = (u) => {
    updates.push(u);
    return Promise.reject(new BackendError("stopping", "not in this test"));
  };
  rendered = await render(<Settings backend={backend} />, languages);
  await settle();
  return { root: rendered.container, updates };
}

const keys = (section: HTMLElement) => [...section.querySelectorAll<HTMLElement>("[data-key]")].map((f) => f.dataset["key"]);

describe("the SMPP server in Settings", () => {
  it("has a section of its own, in words, saying where its accounts are; the certificate only while TLS is on", async () => {
    const { root } = await open();
    const section = byTestId(root, "settings-smpp-server");
    expect(section.querySelector("h2")?.textContent).toBe("SMPP server");
    expect(section.querySelector(".panel-intro")?.textContent).toContain("a PBX, a laboratory system");
    expect(byTestId<HTMLAnchorElement>(section, "settings-smpp-accounts-link").getAttribute("href")).toBe("#/keys");
    expect(keys(section)).toEqual(["smpp_server.enabled", "smpp_server.bind", "smpp_server.port", "smpp_server.tls"]);
    expect(section.querySelector('[data-key="smpp_server.bind"] .setting-help')?.textContent).toContain("127.0.0.1: this computer alone");
    expect(keys(byTestId(root, "settings-other")), "not among the other settings").toEqual(["http.port"]);

    await click(byTestId(root, "setting-smpp_server.tls"));
    expect(keys(section)).toEqual([
      "smpp_server.enabled",
      "smpp_server.bind",
      "smpp_server.port",
      "smpp_server.tls",
      "smpp_server.tls_cert_file",
      "smpp_server.tls_key_file",
    ]);
    expect(section.querySelector('[data-key="smpp_server.tls_cert_file"] label')?.textContent).toBe(
      "Server certificate file (PEM, with its chain)",
    );
  });

  it("saves the certificate only while TLS is on", async () => {
    const { root, updates } = await open();
    await click(byTestId(root, "setting-smpp_server.enabled"));
    await click(byTestId(root, "setting-smpp_server.tls"));
    await type(byTestId<HTMLInputElement>(root, "setting-smpp_server.tls_cert_file"), "/etc/smsdesk/server.pem");
    await click(byTestId(root, "setting-smpp_server.tls"));
    expect(queryTestId(root, "setting-smpp_server.tls_cert_file")).toBeNull();
    await submit(byTestId<HTMLFormElement>(root, "settings-form"));
    await settle();
    expect(updates[0]?.values).toEqual({ "smpp_server.enabled": "true" });
  });

  it("speaks French and Russian", async () => {
    const fr = await open(["fr-FR"]);
    expect(byTestId(fr.root, "settings-smpp-server").querySelector("h2")?.textContent).toBe("Serveur SMPP");
    await rendered?.unmount();
    const ru = await open(["ru-RU"]);
    expect(ru.root.querySelector('[data-key="smpp_server.enabled"] label')?.textContent).toBe("Принимать SMPP от систем офиса");
  });
});
