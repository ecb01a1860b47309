// @vitest-environment happy-dom
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../backend";
import type { ConnectionTest } from "../bindings/ConnectionTest";
import type { SettingField } from "../bindings/SettingField";
import type { SettingsSaved } from "../bindings/SettingsSaved";
import type { SettingsUpdate } from "../bindings/SettingsUpdate";
import type { SettingsView } from "../bindings/SettingsView";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { Settings } from "./Settings";

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
    applies: "now",
    pending_restart: false,
    doc: "",
    ...more,
  };
}

function view(more: Partial<SettingsView> = {}): SettingsView {
  return {
    config_file: "/data/smsdesk.toml",
    fields: [
      field("smpp.sandbox", "true", { kind: "bool", applies: "reconnect" }),
      field("smpp.host", "127.0.0.1", { kind: "text", applies: "reconnect" }),
      field("smpp.port", "2775", { applies: "reconnect" }),
      field("smpp.system_id", "smsdesk", { kind: "text", applies: "reconnect" }),
      field("smpp.password", "", { kind: "password", applies: "reconnect", source: "encrypted_file" }),
      field("smpp.interface_version", "3.4", { kind: "choice", choices: ["3.4", "5.0"], applies: "reconnect" }),
      field("smpp.tps", "10", { source: "file" }),
      field("smpp.window", "4", { source: "env", editable: false }),
      field("retry.otp_max_attempts", "2"),
      field("retry.otp_on_unknown_outcome", "exception", { kind: "choice", choices: ["exception", "resend"] }),
      field("receipts.otp_deadline_minutes", "15"),
      field("receipts.otp_request", "final", { kind: "choice", choices: ["none", "final", "failure", "final_and_intermediate"] }),
      field("callbacks.providers", "", { kind: "providers" }),
      field("http.port", "8470", { applies: "restart" }),
      field("store.database", "smsdesk.db", { kind: "text", applies: "restart", editable: false }),
    ],
    password_set: true,
    secret_store: "encrypted_file",
    providers: [{ name: "vonage", preset: null, connection: null, secret_hint: "…6789" }],
    presets: ["vonage", "twilio"],
    ...more,
  };
}

function saved(update: SettingsUpdate, more: Partial<SettingsSaved> = {}): SettingsSaved {
  const v = view();
  return {
    settings: {
      ...v,
      fields: v.fields.map((f) => (update.values[f.key] === undefined ? f : { ...f, value: update.values[f.key] ?? "" })),
    },
    changes: Object.entries(update.values).map(([key, value]) => ({
      key,
      from: null,
      to: value,
      secret: false,
      applies: key.startsWith("http.") ? "restart" : "now",
    })),
    reconnected: false,
    generated_secrets: [],
    ...more,
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

async function open(backend: FakeBackend): Promise<HTMLElement> {
  rendered = await render(<Settings backend={backend} />);
  await settle();
  return rendered.container;
}

describe("Settings", () => {
  it("puts each kind's receipt request and deadline in the receipts section, in words", async () => {
    const backend = new FakeBackend();
    backend.settings = () => Promise.resolve(view());
    const root = await open(backend);
    const otp = byTestId(root, "receipts-otp");
    expect(otp.querySelector("legend")?.textContent).toBe("One-time codes");
    expect(otp.textContent).toContain("Receipt asked for");
    expect(otp.textContent).toContain("Deadline for a final receipt (minutes)");
    expect([...otp.querySelectorAll("option")].map((o) => o.textContent)).toContain("A receipt on failure only");
  });

  it("says where each value comes from and when it applies; an environment variable locks a field", async () => {
    const backend = new FakeBackend();
    backend.settings = () => Promise.resolve(view());
    const root = await open(backend);

    for (const section of ["connection", "sending", "retry", "receipts", "callbacks", "other"]) {
      expect(queryTestId(root, `settings-${section}`), section).not.toBeNull();
    }
    const window = byTestId<HTMLInputElement>(root, "setting-smpp.window");
    expect(window.disabled, "a setting an environment variable sets is read-only").toBe(true);
    expect(byTestId(root, "locked-smpp.window").textContent).toContain("SMSDESK_SMPP_WINDOW");
    expect(byTestId<HTMLInputElement>(root, "setting-store.database").disabled).toBe(true);

    const applies = (key: string): string | undefined =>
      root.querySelector(`[data-key="${key}"] [data-applies]`)?.getAttribute("data-applies") ?? undefined;
    expect(applies("smpp.tps")).toBe("now");
    expect(applies("smpp.host")).toBe("reconnect");
    expect(applies("http.port")).toBe("restart");
    expect(root.querySelector('[data-key="http.port"]')?.textContent).toContain("Applies at next start");
    expect(byTestId(root, "password-state").textContent).toContain("encrypted in the data folder");
    expect(byTestId<HTMLAnchorElement>(root, "settings-keys-link").getAttribute("href")).toBe("#/keys");
  });

  it("keeps Save disabled until something changed, then sends only what changed and says what applies when", async () => {
    const updates: SettingsUpdate[] = [];
    const backend = new FakeBackend();
    backend.settings = () => Promise.resolve(view());
    backend.updateSettings = (u) => {
      updates.push(u);
      return Promise.resolve(saved(u));
    };
    const root = await open(backend);
    const save = byTestId<HTMLButtonElement>(root, "settings-save");
    expect(save.disabled).toBe(true);

    const tps = byTestId<HTMLInputElement>(root, "setting-smpp.tps");
    await type(tps, "25");
    expect(save.disabled).toBe(false);
    await type(tps, "10");
    expect(save.disabled, "back to the saved value is no change").toBe(true);
    await type(tps, "25");
    await type(byTestId<HTMLInputElement>(root, "setting-http.port"), "8471");
    await choose(byTestId<HTMLSelectElement>(root, "setting-retry.otp_on_unknown_outcome"), "resend");
    await submit(byTestId<HTMLFormElement>(root, "settings-form"));
    await settle();

    expect(updates).toEqual([
      {
        values: { "smpp.tps": "25", "http.port": "8471", "retry.otp_on_unknown_outcome": "resend" },
        password: null,
        callback_providers: null,
      },
    ]);
    expect(byTestId(root, "saved-now").textContent).toContain("Submits per second (TPS)");
    expect(byTestId(root, "saved-restart").textContent).toContain("HTTP port");
    expect(byTestId<HTMLInputElement>(root, "setting-smpp.tps").value).toBe("25");
    expect(byTestId<HTMLButtonElement>(root, "settings-save").disabled).toBe(true);
  });

  it("says under the rate and window what they allow, from the values being edited", async () => {
    const backend = new FakeBackend();
    backend.settings = () => Promise.resolve(view());
    const root = await open(backend);
    const rate = () => queryTestId(root, "settings-pace-rate")?.textContent ?? null;
    expect(rate()).toBe("At most 10 messages/s with these settings: 20,000 messages take about 33 minutes.");
    expect(queryTestId(root, "settings-pace-window"), "a window of 4 at 10/s leaves 400 ms per answer").toBeNull();

    const tps = byTestId<HTMLInputElement>(root, "setting-smpp.tps");
    await type(tps, "1000");
    expect(rate()).toBe("At most 1,000 messages/s with these settings: 20,000 messages take about 20 seconds.");
    expect(byTestId(root, "settings-pace-window").textContent).toBe(
      "To keep that rate with a window of 4, your provider must answer each message within 4 ms; slower answers lower it.",
    );
    await type(tps, "0");
    expect(rate(), "nothing is promised of a value the engine would refuse").toBeNull();
    expect(queryTestId(root, "settings-pace-window")).toBeNull();
  });

  it("says the sandbox runs at its own pace while it is the connection being edited", async () => {
    const backend = new FakeBackend();
    backend.settings = () => Promise.resolve(view());
    backend.pace = () =>
      Promise.resolve({
        at_ms: 0,
        connection: "sandbox",
        tps_limit: 1_000,
        window: 64,
        max_rate_per_s: 1_000,
        queued: 0,
        scheduled: 0,
        next_scheduled_at_ms: null,
        sent_last_minute_per_s: 0,
        eta_seconds: 0,
        sandbox_tps_limit: 1_000,
        sandbox_window: 64,
      });
    const root = await open(backend);
    expect(byTestId(root, "settings-pace-sandbox").textContent).toBe(
      "With the sandbox as the connection, sending goes at the sandbox’s own pace: 1,000 messages/s, 20,000 messages in about 20 seconds. The limits above are your provider’s and apply once the sandbox is off.",
    );
    await click(byTestId<HTMLInputElement>(root, "setting-smpp.sandbox"));
    expect(queryTestId(root, "settings-pace-sandbox"), "the provider's limits are the pace now").toBeNull();
    expect(byTestId(root, "settings-pace-rate").textContent).toContain("At most 10 messages/s");
    await rendered?.unmount();

    // Without the engine's word on the sandbox's pace, it is still said that it has its own.
    const quiet = new FakeBackend();
    quiet.settings = () => Promise.resolve(view());
    const again = await open(quiet);
    expect(byTestId(again, "settings-pace-sandbox").textContent).toBe(
      "With the sandbox as the connection, sending goes at the sandbox’s own pace. The limits above are your provider’s and apply once the sandbox is off.",
    );
  });

  it("shows each field the engine refused next to that field, and keeps the edits", async () => {
    const backend = new FakeBackend();
    backend.settings = () => Promise.resolve(view());
    backend.updateSettings = () =>
      Promise.reject(
        new BackendError("invalid", "2 fields are invalid: smpp.tps, receipts.otp_deadline_minutes", {
          errors: [
            { field: "smpp.tps", code: "invalid", params: {}, message: "must be at least 1" },
            { field: "receipts.otp_deadline_minutes", code: "invalid", params: {}, message: "`soon` is not a valid integer here" },
          ],
        }),
      );
    const root = await open(backend);
    await type(byTestId<HTMLInputElement>(root, "setting-smpp.tps"), "0");
    await type(byTestId<HTMLInputElement>(root, "setting-receipts.otp_deadline_minutes"), "soon");
    await submit(byTestId<HTMLFormElement>(root, "settings-form"));
    await settle();

    const tps = byTestId<HTMLInputElement>(root, "setting-smpp.tps");
    expect(tps.getAttribute("aria-invalid")).toBe("true");
    expect(root.querySelector('[data-key="smpp.tps"] [data-testid="field-errors"]')?.textContent).toBe(
      "Not a value this accepts. (must be at least 1)",
    );
    expect(root.querySelector('[data-key="receipts.otp_deadline_minutes"] [data-testid="field-errors"]')?.textContent).toContain(
      "soon",
    );
    const describedBy = tps.getAttribute("aria-describedby") ?? "";
    expect(describedBy.split(" ").some((id) => document.getElementById(id)?.textContent === "Not a value this accepts. (must be at least 1)")).toBe(
      true,
    );
    expect(tps.value, "the operator's edit stays to be corrected").toBe("0");
    expect(queryTestId(root, "settings-save-error")?.getAttribute("data-code")).toBe("invalid");
  });

  it("tests the connection with the unsaved values and says how it went", async () => {
    const tests: ConnectionTest[] = [];
    const backend = new FakeBackend();
    backend.settings = () => Promise.resolve(view());
    backend.testConnection = (test) => {
      tests.push(test);
      return Promise.resolve(
        test.password === "wrong"
          ? {
              outcome: "refused",
              target: "smpp.example:2775",
              status: 14,
              status_name: "ESME_RINVPASWD",
              message: "the SMSC refused the bind",
              elapsed_ms: 12,
            }
          : { outcome: "bound", target: "smpp.example:2775", status: null, status_name: null, message: "", elapsed_ms: 40 },
      );
    };
    const root = await open(backend);
    await click(byTestId(root, "setting-smpp.sandbox"));
    await type(byTestId<HTMLInputElement>(root, "setting-smpp.host"), "smpp.example");
    await click(byTestId(root, "test-connection"));
    await settle();
    expect(tests[0]).toMatchObject({ sandbox: false, host: "smpp.example", port: 2775, password: null });
    expect(byTestId(root, "test-result").getAttribute("data-outcome")).toBe("bound");
    expect(byTestId(root, "test-result").textContent).toContain("Bound to smpp.example:2775");

    await type(byTestId<HTMLInputElement>(root, "setting-smpp.password"), "wrong");
    await click(byTestId(root, "test-connection"));
    await settle();
    expect(tests[1]?.password).toBe("wrong");
    expect(byTestId(root, "test-result-headline").textContent).toBe(
      "The provider refused the user name or password: check them with your provider",
    );
    expect(byTestId(root, "test-result-code").textContent).toContain("ESME_RINVPASWD");
  });

  it("keeps the provider's fields off while the sandbox is ticked, and wakes them as soon as it is unticked", async () => {
    const backend = new FakeBackend();
    backend.settings = () => Promise.resolve(view());
    const root = await open(backend);
    const provider = ["smpp.host", "smpp.port", "smpp.system_id", "smpp.password", "smpp.interface_version"];
    const disabled = (key: string) => byTestId<HTMLInputElement | HTMLSelectElement>(root, `setting-${key}`).disabled;

    for (const key of provider) expect(disabled(key), key).toBe(true);
    expect(disabled("smpp.tps"), "the rest of the form is not affected").toBe(false);
    const hint = byTestId(root, "settings-sandbox-hint");
    expect(hint.textContent).toContain("the provider’s fields below are not used");
    expect(byTestId<HTMLAnchorElement>(root, "settings-connect-link").getAttribute("href")).toBe("#/settings/connect");
    expect(byTestId(root, "setting-smpp.host").getAttribute("aria-describedby")?.split(" ")).toContain(hint.id);
    expect(byTestId(root, "test-connection-hint").textContent).toContain("Tries the sandbox");

    await click(byTestId(root, "setting-smpp.sandbox"));
    for (const key of provider) expect(disabled(key), `${key}, before any save`).toBe(false);
    expect(queryTestId(root, "settings-sandbox-hint")).toBeNull();
    expect(byTestId(root, "test-connection-hint").textContent).toBe("Tries the values in the form, saved or not.");

    await click(byTestId(root, "setting-smpp.sandbox"));
    for (const key of provider) expect(disabled(key), `${key}, ticked again`).toBe(true);
  });

  it("tests the sandbox while it is ticked in the form, even when a provider is saved", async () => {
    const tests: ConnectionTest[] = [];
    const backend = new FakeBackend();
    const saved = view();
    backend.settings = () =>
      Promise.resolve({
        ...saved,
        fields: saved.fields.map((f) => (f.key === "smpp.sandbox" ? { ...f, value: "false" } : f)),
      });
    backend.testConnection = (test) => {
      tests.push(test);
      return Promise.resolve({ outcome: "bound", target: "127.0.0.1:40001", status: null, status_name: null, message: "", elapsed_ms: 3 });
    };
    const root = await open(backend);
    expect(byTestId<HTMLInputElement>(root, "setting-smpp.host").disabled).toBe(false);
    await click(byTestId(root, "setting-smpp.sandbox"));
    expect(byTestId<HTMLInputElement>(root, "setting-smpp.host").disabled).toBe(true);
    await click(byTestId(root, "test-connection"));
    await settle();
    expect(tests.map((t) => t.sandbox)).toEqual([true]);
  });

  it("names each setting in plain words, with its key in small print and what it means where written", async () => {
    const backend = new FakeBackend();
    const v = view();
    backend.settings = () =>
      Promise.resolve({
        ...v,
        fields: [...v.fields, field("receipts.receipt_id", "text", { kind: "choice", choices: ["text", "hex", "decimal"] })],
      });
    const root = await open(backend);
    const receipt = root.querySelector('[data-key="receipts.receipt_id"]');
    expect(receipt?.querySelector("label")?.textContent).toBe("Ids in receipts");
    expect(receipt?.querySelector("code.setting-key")?.textContent).toBe("receipts.receipt_id");
    expect(receipt?.querySelector(".setting-help")?.textContent).toContain("“0A1B” and “2587” are the same number");
    const select = byTestId(root, "setting-receipts.receipt_id");
    const help = receipt?.querySelector(".setting-help");
    expect(select.getAttribute("aria-describedby")?.split(" ")).toContain(help?.id);
    expect(root.querySelector('[data-key="smpp.password"] code.setting-key')?.textContent).toBe("smpp.password");
  });

  it("adds a provider, sends the list without secrets, and shows the secret the engine made once", async () => {
    const updates: SettingsUpdate[] = [];
    const backend = new FakeBackend();
    backend.settings = () => Promise.resolve(view());
    backend.updateSettings = (u) => {
      updates.push(u);
      return Promise.resolve(
        saved(u, {
          changes: [{ key: "callbacks.providers.twilio", from: null, to: "preset twilio", secret: true, applies: "now" }],
          generated_secrets: [{ provider: "twilio", secret: "cb_made_once_0123456789" }],
        }),
      );
    };
    const root = await open(backend);
    expect(root.textContent, "a secret is never shown, only its end").toContain("…6789");
    await type(byTestId<HTMLInputElement>(root, "provider-add-name"), "twilio");
    await click(byTestId(root, "provider-add-button"));
    expect(root.querySelectorAll('[data-testid="provider-row"]')).toHaveLength(2);
    await submit(byTestId<HTMLFormElement>(root, "settings-form"));
    await settle();

    expect(updates[0]?.callback_providers).toEqual([
      { name: "vonage", secret: null, preset: null, connection: null },
      { name: "twilio", secret: null, preset: null, connection: null },
    ]);
    expect(byTestId(root, "generated-secret").textContent).toContain(
      "/api/v1/callbacks/twilio?token=cb_made_once_0123456789",
    );
  });

  it("removes a provider and sends a new password, never showing a password", async () => {
    const updates: SettingsUpdate[] = [];
    const backend = new FakeBackend();
    backend.settings = () => Promise.resolve(view());
    backend.updateSettings = (u) => {
      updates.push(u);
      return Promise.resolve(saved(u, { reconnected: true }));
    };
    const root = await open(backend);
    const password = byTestId<HTMLInputElement>(root, "setting-smpp.password");
    expect(password.type).toBe("password");
    expect(password.value, "the saved password is never in the form").toBe("");
    await type(password, "n3w");
    await click(byTestId(root, "provider-remove"));
    await submit(byTestId<HTMLFormElement>(root, "settings-form"));
    await settle();
    expect(updates[0]).toEqual({ values: {}, password: "n3w", callback_providers: [] });
    expect(byTestId(root, "saved-reconnected").textContent).toContain("bound again");
  });

  it("a refusal by the engine (a role changed meanwhile) is shown as what it is, with no form", async () => {
    const backend = new FakeBackend();
    backend.settings = () => Promise.reject(new BackendError("forbidden", "`settings` needs the admin role; Olga does not have it"));
    const root = await open(backend);
    const error = byTestId(root, "settings-error");
    expect(error.dataset["code"]).toBe("forbidden");
    expect(error.textContent).toContain("Your role does not allow this.");
    expect(queryTestId(root, "settings-form")).toBeNull();
  });

  it("speaks French and Russian", async () => {
    for (const [lang, title, applies] of [
      ["fr-FR", "Réglages", "S’applique au prochain démarrage"],
      ["ru-RU", "Настройки", "Действует после перезапуска"],
    ] as const) {
      const backend = new FakeBackend();
      backend.settings = () => Promise.resolve(view());
      rendered = await render(<Settings backend={backend} />, [lang]);
      await settle();
      expect(rendered.container.querySelector("h2")?.textContent).toBe(title);
      expect(rendered.container.querySelector('[data-key="http.port"]')?.textContent).toContain(applies);
      await rendered.unmount();
      rendered = undefined;
    }
  });
});
