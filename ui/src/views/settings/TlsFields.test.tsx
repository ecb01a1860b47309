// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../../backend";
import type { ConnectionTest } from "../../bindings/ConnectionTest";
import type { SettingField } from "../../bindings/SettingField";
import type { SettingsUpdate } from "../../bindings/SettingsUpdate";
import type { SettingsView } from "../../bindings/SettingsView";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../../test/dom";
import { FakeBackend } from "../../test/fakeBackend";
import { Settings } from "../Settings";
import { ConnectProvider } from "./ConnectProvider";

function field(key: string, value: string, more: Partial<SettingField> = {}): SettingField {
  const [section = ""] = key.split(".");
  return {
    key,
    section,
    value,
    default: more.default ?? value,
    kind: "text",
    choices: [],
    source: "default",
    env_var: `SMSDESK_${key.replace(".", "_").toUpperCase()}`,
    editable: true,
    applies: "reconnect",
    pending_restart: false,
    doc: "",
    ...more,
  };
}

const PIN = Array(32).fill("AB").join(":");
/** What the engine says when the test would send the saved password in clear. */
const NOT_IN_CLEAR = new BackendError("invalid", "1 field is invalid: smpp.password", {
  errors: [
    {
      field: "smpp.password",
      code: "required",
      params: {},
      message: "type the password for this server: the saved password is sent only to smpp.acme.example:3550 as office, over TLS",
    },
  ],
});

/** A provider saved as the connection, with or without TLS. */
function view(tls: boolean, sandbox = false): SettingsView {
  return {
    config_file: "/data/smsdesk.toml",
    fields: [
      field("smpp.sandbox", String(sandbox), { kind: "bool" }),
      field("smpp.host", "smpp.acme.example"),
      field("smpp.port", tls ? "3550" : "2775", { kind: "integer" }),
      field("smpp.system_id", "office"),
      field("smpp.password", "", { kind: "password", source: "encrypted_file" }),
      field("smpp.tls", String(tls), { kind: "bool", default: "false" }),
      field("smpp.tls_ca_file", ""),
      field("smpp.tls_server_name", ""),
      field("smpp.tls_pin_sha256", ""),
      field("smpp.tls_client_cert_file", ""),
      field("smpp.tls_client_key_file", ""),
      field("smpp.tps", "10", { kind: "integer", applies: "now" }),
    ],
    password_set: true,
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

interface Scene {
  root: HTMLElement;
  readonly tests: ConnectionTest[];
  readonly updates: SettingsUpdate[];
}

/** The Settings screen over `saved`; each test answers `answer` (bound when not given). */
async function settings(saved: SettingsView, answer?: (test: ConnectionTest) => Promise<never>, languages = ["en-US"]): Promise<Scene> {
  const backend = new FakeBackend();
  const scene: Scene = { root: document.body, tests: [], updates: [] };
  backend.settings = () => Promise.resolve(saved);
  backend.pace = () => new Promise(() => {});
  backend.connectionSettings = () => new Promise(() => {});
  backend.testConnection = (test) => {
    scene.tests.push(test);
    return answer?.(test) ?? Promise.resolve({ outcome: "bound", target: "t", status: null, status_name: null, message: "", elapsed_ms: 3 });
  };
  backend.updateSettings = (u) => {
    scene.updates.push(u);
    return Promise.reject(new BackendError("stopping", "not in this test"));
  };
  rendered = await render(<Settings backend={backend} />, languages);
  await settle();
  scene.root = rendered.container;
  return scene;
}

const input = (root: HTMLElement, key: string) => byTestId<HTMLInputElement>(root, `setting-${key}`);
const detailKeys = (root: HTMLElement, testId = "tls-fields-details") =>
  [...byTestId(root, testId).querySelectorAll<HTMLElement>("[data-key]")].map((f) => f.dataset["key"]);

describe("TLS to the provider on the Settings screen", () => {
  it("sits with the connection: the switch says when to use it and that the port differs; its checks only while it is on", async () => {
    const { root } = await settings(view(false));
    const tls = byTestId(byTestId(root, "settings-connection"), "tls-fields");
    expect(tls.querySelector("legend")?.textContent).toBe("Encryption (TLS)");
    const setting = tls.querySelector('[data-key="smpp.tls"]');
    expect(setting?.querySelector("label")?.textContent).toBe("Use TLS (an encrypted connection)");
    const help = setting?.querySelector(".setting-help")?.textContent ?? "";
    expect(help).toContain("Recommended when your provider offers a TLS port");
    expect(help).toContain("usually a different one from the clear port");
    expect(help).toContain("never falls back to clear text");
    expect(queryTestId(root, "tls-fields-details"), "nothing to fill while it is off").toBeNull();
    expect(queryTestId(byTestId(root, "settings-other"), "setting-smpp.tls_ca_file"), "not among the other settings").toBeNull();

    await click(input(root, "smpp.tls"));
    expect(detailKeys(root)).toEqual([
      "smpp.tls_ca_file",
      "smpp.tls_server_name",
      "smpp.tls_pin_sha256",
      "smpp.tls_client_cert_file",
      "smpp.tls_client_key_file",
    ]);
    for (const key of detailKeys(root)) {
      const f = root.querySelector(`[data-key="${key}"]`);
      expect(f?.querySelector("label")?.textContent, key).not.toBe(key);
      expect(f?.querySelector(".setting-help")?.textContent, `${key} has a hint`).not.toBe("");
    }
    expect(root.querySelector('[data-key="smpp.tls_pin_sha256"] .setting-help')?.textContent).toContain(
      "openssl x509 -noout -fingerprint -sha256",
    );
  });

  it("says as it is typed that a pin is not a SHA-256, and takes one with colons", async () => {
    const { root } = await settings(view(true));
    const pin = input(root, "smpp.tls_pin_sha256");
    await type(pin, "ab:cd");
    expect(byTestId(root, "limit-smpp.tls_pin_sha256").textContent).toBe(
      "A SHA-256 is 64 hexadecimal digits (0–9 and A–F), colons allowed, as openssl prints it.",
    );
    expect(pin.getAttribute("aria-invalid")).toBe("true");
    await type(pin, PIN);
    expect(queryTestId(root, "limit-smpp.tls_pin_sha256")).toBeNull();
  });

  it("saves TLS with its checks while it is on, and not a check typed once it is off", async () => {
    const { root, updates } = await settings(view(false));
    await click(input(root, "smpp.tls"));
    await type(input(root, "smpp.port"), "3550");
    await type(input(root, "smpp.tls_pin_sha256"), PIN);
    await submit(byTestId<HTMLFormElement>(root, "settings-form"));
    await settle();
    expect(updates[0]?.values).toEqual({ "smpp.tls": "true", "smpp.port": "3550", "smpp.tls_pin_sha256": PIN });

    // (The first save was refused: the edits are still there.)
    await click(input(root, "smpp.tls"));
    expect(queryTestId(root, "tls-fields-details")).toBeNull();
    await submit(byTestId<HTMLFormElement>(root, "settings-form"));
    await settle();
    expect(updates[1]?.values).toEqual({ "smpp.port": "3550" });
  });

  it("tests with TLS as on screen; with TLS saved and turned off it warns, and shows the password asked for next to the field", async () => {
    const { root, tests } = await settings(view(true), () => Promise.reject(NOT_IN_CLEAR));
    await type(input(root, "smpp.tls_server_name"), "smpp.acme.example");
    await click(byTestId(root, "test-connection"));
    await settle();
    expect(tests[0]).toMatchObject({ tls: true, tls_server_name: "smpp.acme.example", tls_ca_file: "", tls_pin_sha256: "" });

    await click(input(root, "smpp.tls"));
    expect(byTestId(root, "tls-fields-clear").textContent).toContain("the password and the messages would travel in clear");
    await click(byTestId(root, "test-connection"));
    await settle();
    expect(tests[1]).toMatchObject({ tls: false, tls_server_name: null, tls_ca_file: null, tls_pin_sha256: null, password: null });
    const beside = root.querySelector('[data-key="smpp.password"] [data-testid="field-errors"]');
    expect(beside?.textContent).toContain("Type the password for this server");
    expect(beside?.textContent).toContain("only over TLS when it is saved for TLS");
    expect(input(root, "smpp.password").getAttribute("aria-invalid")).toBe("true");
    expect(byTestId(root, "test-error").dataset["code"]).toBe("invalid");

    await type(input(root, "smpp.password"), "s3cret");
    expect(root.querySelector('[data-key="smpp.password"] [data-testid="field-errors"]'), "gone once the password is typed").toBeNull();
  });

  it("says the test uses the client certificate as saved when another is typed", async () => {
    const { root } = await settings(view(true));
    expect(queryTestId(root, "test-connection-note")).toBeNull();
    await type(input(root, "smpp.tls_client_cert_file"), "/etc/smsdesk/client.pem");
    expect(byTestId(root, "test-connection-note").textContent).toContain("client certificate and key as saved");
  });

  it("keeps the certificate's checks off while the sandbox is ticked, but not the switch (the sandbox serves TLS too)", async () => {
    const { root } = await settings(view(true, true));
    expect(input(root, "smpp.tls").disabled).toBe(false);
    expect(input(root, "smpp.tls_ca_file").disabled).toBe(true);
  });

  it("speaks French and Russian", async () => {
    const fr = await settings(view(true), undefined, ["fr-FR"]);
    expect(fr.root.querySelector('[data-key="smpp.tls"] label')?.textContent).toBe("Utiliser TLS (une connexion chiffrée)");
    expect(fr.root.querySelector('[data-key="smpp.tls_ca_file"] label')?.textContent).toBe(
      "Fichier des autorités de certification (PEM)",
    );
    await rendered?.unmount();
    const ru = await settings(view(true), undefined, ["ru-RU"]);
    expect(ru.root.querySelector('[data-key="smpp.tls"] label')?.textContent).toBe("Использовать TLS (зашифрованное соединение)");
    expect(ru.root.querySelector('[data-key="smpp.tls"] .setting-help')?.textContent).toContain("TLS-порт обычно отличается");
  });
});

describe("TLS in the guide to connecting the provider", () => {
  async function guide(saved: SettingsView, answer?: (test: ConnectionTest) => Promise<never>): Promise<Scene & { backend: FakeBackend }> {
    const backend = new FakeBackend();
    const scene = { root: document.body, tests: [] as ConnectionTest[], updates: [] as SettingsUpdate[], backend };
    backend.settings = () => Promise.resolve(saved);
    backend.testConnection = (test) => {
      scene.tests.push(test);
      return answer?.(test) ?? Promise.resolve({ outcome: "bound", target: "t", status: null, status_name: null, message: "", elapsed_ms: 3 });
    };
    backend.updateSettings = (u) => {
      scene.updates.push(u);
      return Promise.reject(new BackendError("stopping", "not in this test"));
    };
    rendered = await render(<ConnectProvider backend={backend} onClose={() => {}} />);
    await settle();
    scene.root = rendered.container;
    return scene;
  }
  const guided = (root: HTMLElement, key: string) => byTestId<HTMLInputElement>(root, `connect-${key}`);

  it("asks with the address, tests and switches with TLS and its checks", async () => {
    const { root, tests, updates } = await guide(view(false, true));
    const address = byTestId(root, "connect-step-address");
    expect(byTestId(address, "connect-tls").querySelector('[data-key="smpp.tls"] .setting-help')?.textContent).toContain(
      "usually a different one from the clear port",
    );
    expect(queryTestId(root, "connect-tls-details")).toBeNull();

    await click(guided(root, "smpp.tls"));
    expect(detailKeys(root, "connect-tls-details")).toHaveLength(5);
    await type(guided(root, "smpp.port"), "3550");
    await type(guided(root, "smpp.password"), "s3cret");
    await type(guided(root, "smpp.tls_pin_sha256"), PIN);
    await click(byTestId(root, "connect-test"));
    await settle();
    expect(tests[0]).toMatchObject({ sandbox: false, port: 3550, tls: true, tls_pin_sha256: PIN, tls_server_name: "", tls_ca_file: "" });

    await click(byTestId(root, "connect-switch"));
    await settle();
    expect(updates[0]?.values).toEqual({
      "smpp.sandbox": "false",
      "smpp.port": "3550",
      "smpp.tls": "true",
      "smpp.tls_pin_sha256": PIN,
    });
  });

  it("shows the password the test asks for next to the password field", async () => {
    const { root } = await guide(view(true), () => Promise.reject(NOT_IN_CLEAR));
    await click(guided(root, "smpp.tls"));
    await click(byTestId(root, "connect-test"));
    await settle();
    expect(root.querySelector('[data-key="smpp.password"] [data-testid="field-errors"]')?.textContent).toContain(
      "Type the password for this server",
    );
    expect(byTestId(root, "connect-test-error").dataset["code"]).toBe("invalid");
  });

  it("says the test uses the client certificate as saved when another is typed", async () => {
    const { root } = await guide(view(true));
    await type(guided(root, "smpp.tls_client_key_file"), "/etc/smsdesk/client.key");
    expect(byTestId(root, "connect-test-client").textContent).toContain("as saved");
  });
});
