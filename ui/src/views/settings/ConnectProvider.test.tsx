// @vitest-environment happy-dom
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { Sections } from "../../App";
import { BackendError } from "../../backend";
import type { ConnectionStatus } from "../../bindings/ConnectionStatus";
import type { ConnectionTest } from "../../bindings/ConnectionTest";
import type { ConnectionTestResult } from "../../bindings/ConnectionTestResult";
import type { LinkState } from "../../bindings/LinkState";
import type { SettingField } from "../../bindings/SettingField";
import type { SettingsUpdate } from "../../bindings/SettingsUpdate";
import type { SettingsView } from "../../bindings/SettingsView";
import { byTestId, click, queryTestId, render, settle, type, type Rendered } from "../../test/dom";
import { FakeBackend } from "../../test/fakeBackend";
import { IDLE_CONNECTION, person } from "../../test/fixtures";
import { ConnectProvider } from "./ConnectProvider";

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
    applies: "reconnect",
    pending_restart: false,
    doc: "",
    ...more,
  };
}

const ID_BASES: Partial<SettingField> = { kind: "choice", choices: ["text", "hex", "decimal"], applies: "now" };

/** The saved settings: the sandbox is the connection, the provider's fields at their defaults. */
function view(sandbox: Partial<SettingField> = {}): SettingsView {
  return {
    config_file: "/data/smsdesk.toml",
    fields: [
      field("smpp.sandbox", "true", { kind: "bool", ...sandbox }),
      field("smpp.host", "127.0.0.1"),
      field("smpp.port", "2775", { kind: "integer" }),
      field("smpp.system_id", "smsdesk"),
      field("smpp.password", "", { kind: "password", source: "encrypted_file" }),
      field("smpp.system_type", ""),
      field("smpp.interface_version", "3.4", { kind: "choice", choices: ["3.4", "5.0"] }),
      field("smpp.address_range", ""),
      field("smpp.source_addr", "smsdesk", { applies: "now" }),
      field("receipts.response_id", "text", ID_BASES),
      field("receipts.receipt_id", "text", ID_BASES),
      field("receipts.id_ignore_case", "false", { kind: "bool", applies: "now" }),
      field("receipts.id_ignore_leading_zeros", "false", { kind: "bool", applies: "now" }),
      field("smpp.tps", "10", { kind: "integer", applies: "now" }),
    ],
    password_set: false,
    secret_store: "encrypted_file",
    providers: [],
    presets: [],
  };
}

/** The connection as the backend reports it: bound on its one transceiver. */
function boundTo(connection: string, sandbox: boolean, session_id: string): ConnectionStatus {
  const link: LinkState = { state: "bound", session_id, since_ms: Date.now() };
  return { connection, sandbox, link, binds: [{ role: "transceiver", link }], ...IDLE_CONNECTION };
}

function answer(outcome: ConnectionTestResult["outcome"], target = "smpp.acme.example:2776"): ConnectionTestResult {
  return {
    outcome,
    target,
    status: outcome === "refused" ? 14 : null,
    status_name: outcome === "refused" ? "ESME_RINVPASWD" : null,
    message: outcome === "bound" ? `bound to ${target} and unbound` : "connection refused (os error 111)",
    elapsed_ms: 40,
  };
}

async function choose(select: HTMLSelectElement, value: string): Promise<void> {
  await act(async () => {
    select.value = value;
    select.dispatchEvent(new Event("change", { bubbles: true }));
  });
}

let rendered: Rendered | undefined;
afterEach(async () => {
  await rendered?.unmount();
  rendered = undefined;
});

interface Scene {
  root: HTMLElement;
  /** The trial binds asked for. */
  readonly tests: ConnectionTest[];
  closed: number;
  switched: number;
}

/** The guide, over saved settings; each test answers the next of `results` (bound when none is left). */
async function open(backend: FakeBackend, results: ConnectionTestResult[] = [], saved = view()): Promise<Scene> {
  const scene: Scene = { root: document.body, tests: [], closed: 0, switched: 0 };
  backend.settings = () => Promise.resolve(saved);
  backend.testConnection = (test) => {
    scene.tests.push(test);
    return Promise.resolve(results[scene.tests.length - 1] ?? answer("bound"));
  };
  rendered = await render(
    <ConnectProvider backend={backend} onClose={() => (scene.closed += 1)} onSwitched={() => (scene.switched += 1)} />,
  );
  await settle();
  scene.root = rendered.container;
  return scene;
}

/** Types the provider's details as an admin would, step by step. */
async function fillIn(root: HTMLElement): Promise<void> {
  await type(byTestId<HTMLInputElement>(root, "connect-smpp.host"), "smpp.acme.example");
  await type(byTestId<HTMLInputElement>(root, "connect-smpp.port"), "2776");
  await type(byTestId<HTMLInputElement>(root, "connect-smpp.system_id"), "office");
  await type(byTestId<HTMLInputElement>(root, "connect-smpp.password"), "s3cret");
  await type(byTestId<HTMLInputElement>(root, "connect-smpp.source_addr"), "ACME");
  await choose(byTestId<HTMLSelectElement>(root, "connect-receipts.response_id"), "hex");
  await choose(byTestId<HTMLSelectElement>(root, "connect-receipts.receipt_id"), "decimal");
}

describe("Connect your provider", () => {
  it("asks step by step in plain words, with each config key in small print", async () => {
    const scene = await open(new FakeBackend());
    const { root } = scene;
    const steps = [...root.querySelectorAll<HTMLElement>(".connect-steps > li")].map((li) => li.dataset["testid"]);
    expect(steps).toEqual([
      "connect-step-address",
      "connect-step-account",
      "connect-step-sender",
      "connect-step-ids",
      "connect-step-test",
    ]);
    const host = root.querySelector('[data-key="smpp.host"]');
    expect(host?.querySelector("label")?.textContent).toBe("Host");
    expect(host?.querySelector("code.setting-key")?.textContent).toBe("smpp.host");
    const ids = byTestId(root, "connect-step-ids").textContent;
    expect(ids).toContain("answers with an id for it, and later names that id in the delivery receipt");
    expect(ids).toContain("“0A1B” in the answer and “2587” in the receipt are the same number");
    expect(byTestId(root, "connect-ids-default").textContent).toContain("keep the defaults");
    expect(queryTestId(root, "connect-switch"), "nothing to switch to before a test").toBeNull();
    expect(byTestId(root, "connect-switch-waits").textContent).toContain("once the test has bound");
  });

  it("tests exactly what is typed, with the sandbox off, while the saved connection is the sandbox", async () => {
    const scene = await open(new FakeBackend());
    await fillIn(scene.root);
    await click(byTestId(scene.root, "connect-test"));
    await settle();
    expect(scene.tests).toEqual([
      {
        connection: null,
        sandbox: false,
        host: "smpp.acme.example",
        port: 2776,
        system_id: "office",
        password: "s3cret",
        system_type: "",
        interface_version: "3.4",
        address_range: "",
        // No TLS setting in these settings: the test leaves it as saved.
        tls: null,
        tls_server_name: null,
        tls_ca_file: null,
        tls_pin_sha256: null,
      },
    ]);
    const result = byTestId(scene.root, "connect-test-result");
    expect(result.dataset["outcome"]).toBe("bound");
    expect(result.textContent).toContain("Bound to smpp.acme.example:2776");
  });

  it("explains a failed test in plain words and offers no switch", async () => {
    const scene = await open(new FakeBackend(), [answer("refused"), answer("unreachable"), answer("timeout")]);
    const { root } = scene;
    await fillIn(root);
    // A refusal's headline says what to do; the others say what to check below it.
    const expectations = [
      ["refused", "connect-test-result-headline", "The provider refused the user name or password: check them with your provider"],
      ["unreachable", "connect-test-result-check", "Nothing answered at this address: check the host and the port"],
      ["timeout", "connect-test-result-check", "did not answer the bind in time: check the port"],
    ] as const;
    for (const [outcome, where, words] of expectations) {
      await click(byTestId(root, "connect-test"));
      await settle();
      expect(byTestId(root, "connect-test-result").dataset["outcome"]).toBe(outcome);
      expect(byTestId(root, where).textContent).toContain(words);
      expect(queryTestId(root, "connect-switch"), outcome).toBeNull();
    }
    expect(byTestId(root, "connect-test-result").textContent).toContain("connection refused (os error 111)");
  });

  it("offers the switch only after a bound test of these values, and saves them with the sandbox off", async () => {
    const backend = new FakeBackend();
    const updates: SettingsUpdate[] = [];
    backend.updateSettings = (u) => {
      updates.push(u);
      const v = view();
      return Promise.resolve({
        settings: { ...v, fields: v.fields.map((f) => ({ ...f, value: u.values[f.key] ?? f.value })) },
        changes: Object.entries(u.values).map(([key, to]) => ({ key, from: null, to, secret: false, applies: "reconnect" as const })),
        reconnected: true,
        generated_secrets: [],
      });
    };
    backend.connection = () =>
      Promise.resolve(boundTo("smpp", false, "s1"));
    const scene = await open(backend);
    const { root } = scene;
    await fillIn(root);
    await click(byTestId(root, "connect-test"));
    await settle();
    expect(byTestId(root, "connect-switch").textContent).toBe("Switch to this provider");

    await type(byTestId<HTMLInputElement>(root, "connect-smpp.host"), "smpp2.acme.example");
    expect(queryTestId(root, "connect-switch"), "an edit after the test takes the switch away").toBeNull();
    expect(queryTestId(root, "connect-test-result")).toBeNull();
    await click(byTestId(root, "connect-test"));
    await settle();
    expect(scene.tests[1]?.host).toBe("smpp2.acme.example");

    await click(byTestId(root, "connect-switch"));
    await settle();
    expect(updates).toEqual([
      {
        values: {
          "smpp.sandbox": "false",
          "smpp.host": "smpp2.acme.example",
          "smpp.port": "2776",
          "smpp.system_id": "office",
          "smpp.source_addr": "ACME",
          "receipts.response_id": "hex",
          "receipts.receipt_id": "decimal",
        },
        password: "s3cret",
        callback_providers: null,
      },
    ]);
    const outcome = byTestId(root, "connect-outcome");
    expect(outcome.textContent).toContain("smsdesk now sends through your provider");
    expect(root.textContent, "once switched, nothing says the messages keep going to the sandbox").not.toContain("keep going");
    expect(queryTestId(root, "connect-intro")).toBeNull();
    expect(byTestId(root, "saved-reconnected").textContent).toContain("bound again");
    expect(byTestId(root, "connect-link-state").dataset["state"]).toBe("bound");
    expect(byTestId(root, "connect-link-state").textContent).toContain("Connection now: Connected");
    expect(scene.switched, "the banner is told to ask again").toBe(1);
    expect(byTestId<HTMLAnchorElement>(root, "connect-dashboard-link").getAttribute("href")).toBe("#/dashboard");
  });

  it("says the messages keep going to the sandbox only while the sandbox is the connection", async () => {
    const onSandbox = await open(new FakeBackend());
    expect(byTestId(onSandbox.root, "connect-intro").textContent).toContain("until then, messages keep going to the sandbox");
    await rendered?.unmount();
    const onProvider = await open(new FakeBackend(), [], view({ value: "false" }));
    const intro = byTestId(onProvider.root, "connect-intro").textContent;
    expect(intro).not.toContain("sandbox");
    expect(intro).toContain("messages keep going through the connection saved now");
  });

  it("shows a refused switch next to the field and keeps what was typed", async () => {
    const backend = new FakeBackend();
    backend.updateSettings = () =>
      Promise.reject(
        new BackendError("invalid", "1 field is invalid: smpp.source_addr", {
          errors: [{ field: "smpp.source_addr", code: "invalid", params: {}, message: "at most 11 characters" }],
        }),
      );
    const scene = await open(backend);
    const { root } = scene;
    await fillIn(root);
    await click(byTestId(root, "connect-test"));
    await settle();
    await click(byTestId(root, "connect-switch"));
    await settle();
    expect(byTestId(root, "connect-switch-error").dataset["code"]).toBe("invalid");
    expect(root.querySelector('[data-key="smpp.source_addr"] [data-testid="field-errors"]')?.textContent).toBe(
      "Not a value this accepts. (at most 11 characters)",
    );
    expect(byTestId<HTMLInputElement>(root, "connect-smpp.host").value).toBe("smpp.acme.example");
    expect(queryTestId(root, "connect-outcome")).toBeNull();
  });

  it("cancels without saving anything", async () => {
    const backend = new FakeBackend();
    const scene = await open(backend);
    await fillIn(scene.root);
    await click(byTestId(scene.root, "connect-test"));
    await settle();
    await click(byTestId(scene.root, "connect-cancel"));
    expect(scene.closed).toBe(1);
    expect(backend.calls, "no save was asked for").not.toContain("updateSettings");
  });

  it("says where the switch is made when an environment variable sets the sandbox", async () => {
    const backend = new FakeBackend();
    const scene = await open(backend, [], view({ source: "env", editable: false }));
    expect(byTestId(scene.root, "connect-locked").textContent).toContain("SMSDESK_SMPP_SANDBOX");
    await click(byTestId(scene.root, "connect-test"));
    await settle();
    expect(byTestId<HTMLButtonElement>(scene.root, "connect-switch").disabled).toBe(true);
  });

  it("points to Connections and routes once the connections are named in the file", async () => {
    const scene = await open(new FakeBackend(), [], view({ source: "file", editable: false }));
    expect(byTestId(scene.root, "connect-named").textContent).toContain("Connections and routes");
    expect(queryTestId(scene.root, "connect-locked"), "no environment variable to name").toBeNull();
  });

  it("is the admin's, at #/settings/connect, and Cancel goes back to the settings", async () => {
    const backend = new FakeBackend();
    backend.settings = () => Promise.resolve(view());
    backend.pace = () => new Promise(() => {});
    backend.connection = () =>
      Promise.resolve(boundTo("sandbox", true, "s"));
    window.location.hash = "#/settings/connect";
    rendered = await render(<Sections backend={backend} />);
    await settle();
    expect(byTestId(rendered.container, "nav-settings").getAttribute("aria-current")).toBe("page");
    expect(queryTestId(rendered.container, "connect-guide")).not.toBeNull();
    await click(byTestId(rendered.container, "connect-cancel"));
    await settle(() => window.dispatchEvent(new HashChangeEvent("hashchange")));
    expect(window.location.hash).toBe("#/settings");
    expect(queryTestId(rendered.container, "connect-guide")).toBeNull();
    expect(queryTestId(rendered.container, "settings-form")).not.toBeNull();
    await rendered.unmount();

    window.location.hash = "#/settings/connect";
    rendered = await render(<Sections backend={backend} />, ["en-US"], person("operator"));
    await settle();
    expect(queryTestId(rendered.container, "connect-guide")).toBeNull();
    expect(byTestId(rendered.container, "not-for-you").dataset["section"]).toBe("settings");
  });
});
