import { Fragment, useId, type ReactNode } from "react";
import type { SettingField } from "../../bindings/SettingField";
import { useI18n } from "../../i18n/context";
import { settingLabel } from "./labels";
import { Section } from "./Section";
import { SettingKey } from "./SettingControl";

/** The manual's page on alerts, named in the section's introduction. */
export const ALERTS_DOC = "docs/admin/alerts.md";
/** The Alerts screen, where the alerts raised are listed and acknowledged. */
export const ALERTS_HREF = "#/alerts";
/** The command that sets the SMTP password, which this screen never shows nor takes. */
export const SMTP_PASSWORD_COMMAND = "smsdesk smtp-password";

const ENABLED = "alerts.enabled";
/** The thresholds, and how often the rules are looked at and an alert that lasts is told again. */
const RULES = [
  "alerts.link_down_minutes",
  "alerts.queue_stuck_minutes",
  "alerts.failure_rate_percent",
  "alerts.failure_window_minutes",
  "alerts.receipts_silent_minutes",
  "alerts.open_exceptions_over",
  "alerts.disk_free_mib",
  "alerts.backup_max_age_hours",
  "alerts.webhook_failing_minutes",
  "alerts.opt_out_spike",
  "alerts.repeat_minutes",
  "alerts.check_seconds",
];
/** Who is told and when: the addresses, the quiet hours, the language, the link, the daily summary. */
const CHANNELS = [
  "alerts.email_to",
  "alerts.email_quiet_hours",
  "alerts.webhook_quiet_hours",
  "alerts.language",
  "alerts.screen_url",
  "alerts.daily_summary",
  "alerts.summary_hour",
];
const SMTP_PASSWORD = "smtp.password";
const SMTP = ["smtp.host", "smtp.port", "smtp.security", "smtp.from", "smtp.username", SMTP_PASSWORD, "smtp.timeout_seconds"];
const LISTED: ReadonlySet<string> = new Set([ENABLED, ...RULES, ...CHANNELS, ...SMTP]);

/** Whether a setting is shown in this section: all of [alerts] and [smtp], those listed above and any new one. */
export function inAlertsSection(field: SettingField): boolean {
  return field.section === "alerts" || field.section === "smtp";
}

/**
 * Alerts and e-mail: whether alerts are on, the rules' thresholds, who is told and when, and the
 * SMTP server they are e-mailed through. Each field is drawn by `control`, as in the rest of the
 * form; a setting of [alerts] or [smtp] not listed here joins the rules or the server.
 */
export function AlertsSection({
  fields,
  control,
}: {
  fields: readonly SettingField[];
  control: (key: string) => ReactNode;
}) {
  const { t } = useI18n();
  const ours = fields.filter(inAlertsSection);
  if (ours.length === 0) return null;
  const present = (keys: readonly string[]) => keys.filter((k) => ours.some((f) => f.key === k));
  const unlisted = (section: string) => ours.filter((f) => f.section === section && !LISTED.has(f.key)).map((f) => f.key);
  const password = ours.find((f) => f.key === SMTP_PASSWORD);

  return (
    <Section
      id="alerts"
      title={t("settings.section.alerts")}
      intro={
        <>
          {withCode(t("settings.section.alerts.intro", { doc: ALERTS_DOC }), ALERTS_DOC)}{" "}
          <a href={ALERTS_HREF} data-testid="settings-alerts-link">
            {t("settings.section.alerts.open")}
          </a>
        </>
      }
    >
      <div className="form settings-fields">{control(ENABLED)}</div>
      <div className="settings-kinds">
        <Group id="rules" title={t("settings.alerts.rules")} intro={t("settings.alerts.rules.intro")}>
          {[...present(RULES), ...unlisted("alerts")].map((k) => control(k))}
        </Group>
        <Group id="channels" title={t("settings.alerts.channels")}>
          {present(CHANNELS).map((k) => control(k))}
        </Group>
        <Group id="smtp" title={t("settings.alerts.smtp")} intro={t("settings.alerts.smtp.intro")}>
          {[...present(SMTP), ...unlisted("smtp")].map((k) =>
            k === SMTP_PASSWORD && password !== undefined ? <SmtpPassword key={k} field={password} /> : control(k),
          )}
        </Group>
      </div>
    </Section>
  );
}

/** A part of the section under its own heading. */
function Group({ id, title, intro, children }: { id: string; title: string; intro?: string; children: ReactNode }) {
  const headingId = useId();
  return (
    <section className="settings-kind settings-group" aria-labelledby={headingId} data-testid={`settings-alerts-${id}`}>
      <h3 id={headingId}>{title}</h3>
      {intro !== undefined && <p className="hint">{intro}</p>}
      <div className="form settings-fields">{children}</div>
    </section>
  );
}

/**
 * The SMTP password: never shown and never taken here (the engine sends no value for it). Says
 * how it is set: by the command, by its environment variable, or in the file (better not).
 */
function SmtpPassword({ field }: { field: SettingField }) {
  const { t } = useI18n();
  const nameId = useId();
  const stateId = `${nameId}-state`;
  const how =
    field.source === "env"
      ? t("settings.alerts.smtpPassword.env", { name: field.env_var })
      : field.source === "file"
        ? t("settings.alerts.smtpPassword.file", { command: SMTP_PASSWORD_COMMAND })
        : t("settings.alerts.smtpPassword.unseen", { command: SMTP_PASSWORD_COMMAND, name: field.env_var });
  return (
    <div
      className="field setting"
      role="group"
      aria-labelledby={nameId}
      aria-describedby={stateId}
      data-key={field.key}
      data-source={field.source}
      data-testid={`setting-${field.key}`}
    >
      <span className="setting-name" id={nameId}>
        {settingLabel(t, field.key)}
      </span>
      <SettingKey name={field.key} />
      <p className="hint" id={stateId} data-testid="smtp-password-state">
        {withCode(how, SMTP_PASSWORD_COMMAND)}
      </p>
    </div>
  );
}

/** `text` with each `literal` in it (a command, a file's name) shown as code. */
function withCode(text: string, literal: string): ReactNode {
  return text.split(literal).map((part, i) => (
    <Fragment key={i}>
      {i > 0 && <code>{literal}</code>}
      {part}
    </Fragment>
  ));
}
