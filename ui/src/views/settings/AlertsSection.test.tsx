// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import type { SettingField } from "../../bindings/SettingField";
import type { SettingsUpdate } from "../../bindings/SettingsUpdate";
import type { SettingsView } from "../../bindings/SettingsView";
import { createI18n } from "../../i18n/i18n";
import { byTestId, queryTestId, render, settle, submit, type, type Rendered } from "../../test/dom";
import { FakeBackend } from "../../test/fakeBackend";
import { Settings } from "../Settings";
import { settingLabel } from "./labels";

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

const RECEIPT_REQUEST = ["none", "final", "failure", "final_and_intermediate"];

/** Every setting of [alerts] and [smtp], as the engine sends them (the password without its value). */
const ALERTS: SettingField[] = [
  field("alerts.enabled", "true", { kind: "bool" }),
  field("alerts.email_to", "office@example.org, it@example.org", { kind: "text", default: "" }),
  field("alerts.language", "auto", { kind: "choice", choices: ["auto", "en", "fr", "ru"] }),
  field("alerts.screen_url", "", { kind: "text" }),
  field("alerts.link_down_minutes", "5"),
  field("alerts.queue_stuck_minutes", "10"),
  field("alerts.failure_rate_percent", "20"),
  field("alerts.failure_window_minutes", "15"),
  field("alerts.receipts_silent_minutes", "30"),
  field("alerts.open_exceptions_over", "50"),
  field("alerts.disk_free_mib", "500"),
  field("alerts.backup_max_age_hours", "26"),
  field("alerts.webhook_failing_minutes", "30"),
  field("alerts.opt_out_spike", "20"),
  field("alerts.repeat_minutes", "60"),
  field("alerts.email_quiet_hours", "22:00-07:00", { kind: "text", default: "" }),
  field("alerts.webhook_quiet_hours", "", { kind: "text" }),
  field("alerts.daily_summary", "true", { kind: "bool" }),
  field("alerts.summary_hour", "8"),
  field("alerts.check_seconds", "15"),
  field("smtp.host", "mail.example.org", { kind: "text", default: "" }),
  field("smtp.port", "587"),
  field("smtp.security", "starttls", { kind: "choice", choices: ["starttls", "tls", "none"] }),
  field("smtp.from", "smsdesk@example.org", { kind: "text", default: "" }),
  field("smtp.username", "smsdesk", { kind: "text", default: "" }),
  field("smtp.password", "", { kind: "password", editable: false }),
  field("smtp.timeout_seconds", "20"),
];
const SMTP_PASSWORD = "smtp.password";

function view(fields: SettingField[] = ALERTS): SettingsView {
  return {
    config_file: "/data/smsdesk.toml",
    fields: [
      field("smpp.sandbox", "true", { kind: "bool", applies: "reconnect" }),
      field("smpp.tps", "10"),
      field("receipts.otp_request", "none", { kind: "choice", choices: RECEIPT_REQUEST }),
      field("callbacks.providers", "", { kind: "providers" }),
      ...fields,
      field("http.port", "8470", { applies: "restart" }),
    ],
    password_set: false,
    secret_store: "keyring",
    providers: [],
    presets: [],
  };
}

let rendered: Rendered | undefined;
afterEach(async () => {
  await rendered?.unmount();
  rendered = undefined;
});

async function open(v: SettingsView = view(), languages = ["en-US"], backend = new FakeBackend()): Promise<HTMLElement> {
  backend.settings = () => Promise.resolve(v);
  rendered = await render(<Settings backend={backend} />, languages);
  await settle();
  return rendered.container;
}

const optionsOf = (root: HTMLElement, key: string): string[] =>
  [...byTestId<HTMLSelectElement>(root, `setting-${key}`).options].map((o) => o.textContent ?? "");

describe("Settings: alerts and e-mail", () => {
  it("has a section of its own between the callbacks and the rest, pointing at the Alerts screen and the manual", async () => {
    const root = await open();
    const form = byTestId(root, "settings-form");
    const order = [...form.querySelectorAll(":scope > section.settings-section")].map((s) => s.getAttribute("data-testid"));
    expect(order.slice(-3)).toEqual(["settings-callbacks", "settings-alerts", "settings-other"]);

    const section = byTestId(root, "settings-alerts");
    const heading = section.querySelector("h2");
    expect(heading?.textContent).toBe("Alerts and e-mail");
    expect(section.getAttribute("aria-labelledby")).toBe(heading?.id);
    expect(section.querySelector(".panel-intro code")?.textContent).toBe("docs/admin/alerts.md");
    expect(byTestId<HTMLAnchorElement>(root, "settings-alerts-link").getAttribute("href")).toBe("#/alerts");
    expect([...section.querySelectorAll("h3")].map((h) => h.textContent)).toEqual([
      "When to alert",
      "Who is told, and when",
      "E-mail server (SMTP)",
    ]);
  });

  it("shows every [alerts] and [smtp] setting there, by its name in words, and none of them under Other", async () => {
    const root = await open();
    const section = byTestId(root, "settings-alerts");
    const other = byTestId(root, "settings-other");
    const { t } = createI18n(["en-US"]);
    for (const { key } of ALERTS) {
      const shown = section.querySelector(`[data-key="${key}"]`);
      expect(shown, key).not.toBeNull();
      expect(other.querySelector(`[data-key="${key}"]`), `${key} is not under Other`).toBeNull();
      expect(settingLabel(t, key), `${key} has a name in words`).not.toBe(key);
      expect(shown?.textContent, key).toContain(settingLabel(t, key));
    }
    expect(other.querySelector('[data-key="http.port"]'), "the rest stays under Other").not.toBeNull();

    const label = (key: string) => section.querySelector(`[data-key="${key}"] label`)?.textContent;
    expect(label("alerts.link_down_minutes")).toBe("Connection down for (minutes)");
    expect(label("smtp.from")).toBe("Sender address");
    expect(byTestId(root, "settings-alerts-rules").querySelector('[data-key="alerts.disk_free_mib"]')).not.toBeNull();
    expect(byTestId(root, "settings-alerts-channels").querySelector('[data-key="alerts.email_quiet_hours"]')).not.toBeNull();
    expect(byTestId(root, "settings-alerts-smtp").querySelector('[data-key="smtp.security"]')).not.toBeNull();
    expect(section.querySelector('[data-key="alerts.email_quiet_hours"] .setting-help')?.textContent).toContain(
      "except those about one-time codes",
    );
  });

  it("words the language and the SMTP security, and leaves a receipt request's None as it was", async () => {
    const root = await open();
    expect(optionsOf(root, "alerts.language")).toEqual(["From the office’s country", "English", "Français", "Русский"]);
    expect(optionsOf(root, "smtp.security")).toEqual([
      "STARTTLS (port 587)",
      "TLS (port 465)",
      "None — a relay on this computer or a trusted network",
    ]);
    expect(optionsOf(root, "receipts.otp_request")[0]).toBe("None");
  });

  it("speaks French", async () => {
    const root = await open(view(), ["fr-FR"]);
    const section = byTestId(root, "settings-alerts");
    expect(section.querySelector("h2")?.textContent).toBe("Alertes et e-mail");
    expect(section.querySelector('[data-key="alerts.link_down_minutes"] label')?.textContent).toBe(
      "Connexion coupée depuis (minutes)",
    );
    expect(section.querySelector('[data-key="smtp.username"] label')?.textContent).toBe("Nom d’utilisateur");
    expect(optionsOf(root, "alerts.language")[0]).toBe("Selon le pays du bureau");
    expect(optionsOf(root, "smtp.security")[2]).toBe("Aucune — un relais sur cet ordinateur ou un réseau de confiance");
    expect(optionsOf(root, "receipts.otp_request")[0]).toBe("Aucun");
    expect(byTestId(root, "settings-other").querySelector('[data-key^="alerts."], [data-key^="smtp."]')).toBeNull();
  });

  it("never shows the SMTP password nor takes one: it says how it is set", async () => {
    // Even were a value sent, nothing of it is shown.
    const leaked = ALERTS.map((f) => (f.key === SMTP_PASSWORD ? { ...f, value: "hunter2", default: "hunter2" } : f));
    const root = await open(view(leaked));
    const password = byTestId(root, `setting-${SMTP_PASSWORD}`);
    expect(password.querySelector("input, textarea, select"), "nothing to type it into").toBeNull();
    expect(root.textContent).not.toContain("hunter2");
    expect(password.getAttribute("role")).toBe("group");
    expect(document.getElementById(password.getAttribute("aria-labelledby") ?? "")?.textContent).toBe("Password");
    const state = byTestId(root, "smtp-password-state");
    expect(state.querySelector("code")?.textContent).toBe("smsdesk smtp-password");
    expect(state.textContent).toContain("SMSDESK_SMTP_PASSWORD");
    expect(password.getAttribute("aria-describedby")).toBe(state.id);
  });

  it("says when the environment or the file sets the SMTP password", async () => {
    const sourced = (source: SettingField["source"]) =>
      view(ALERTS.map((f) => (f.key === SMTP_PASSWORD ? { ...f, source } : f)));
    let root = await open(sourced("env"));
    expect(byTestId(root, "smtp-password-state").textContent).toBe(
      "Set by the environment variable SMSDESK_SMTP_PASSWORD; never shown here.",
    );
    await rendered?.unmount();
    root = await open(sourced("file"));
    expect(byTestId(root, "smtp-password-state").textContent).toContain("Written in the configuration file");
  });

  it("saves a threshold as any other setting, without a password", async () => {
    const updates: SettingsUpdate[] = [];
    const backend = new FakeBackend();
    backend.updateSettings = (u) => {
      updates.push(u);
      return Promise.reject(new Error("not needed here"));
    };
    const root = await open(view(), ["en-US"], backend);
    await type(byTestId<HTMLInputElement>(root, "setting-alerts.link_down_minutes"), "7");
    await type(byTestId<HTMLInputElement>(root, "setting-alerts.email_quiet_hours"), "");
    await submit(byTestId<HTMLFormElement>(root, "settings-form"));
    await settle();
    expect(updates).toEqual([
      { values: { "alerts.link_down_minutes": "7", "alerts.email_quiet_hours": "" }, password: null, callback_providers: null },
    ]);
  });

  it("puts a setting of [alerts] or [smtp] it does not know yet in the section too, and is absent without any", async () => {
    let root = await open(view([...ALERTS, field("alerts.new_rule_minutes", "3"), field("smtp.new_option", "x", { kind: "text" })]));
    expect(byTestId(root, "settings-alerts-rules").querySelector('[data-key="alerts.new_rule_minutes"]')).not.toBeNull();
    expect(byTestId(root, "settings-alerts-smtp").querySelector('[data-key="smtp.new_option"]')).not.toBeNull();
    await rendered?.unmount();
    root = await open(view([]));
    expect(queryTestId(root, "settings-alerts"), "an engine without alerts").toBeNull();
    expect(queryTestId(root, "settings-other")).not.toBeNull();
  });
});
