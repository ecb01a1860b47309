import type { AlertRule } from "../../bindings/AlertRule";
import type { AlertView } from "../../bindings/AlertView";
import type { I18n } from "../i18n";

/** Every rule, in the engine's order (`AlertRule::ALL`): the type check refuses a list that misses one. */
const RULES: Readonly<Record<AlertRule, true>> = {
  link_down: true,
  all_links_down: true,
  queue_stuck: true,
  failure_rate: true,
  receipts_silent: true,
  otp_unknown: true,
  otp_held: true,
  open_exceptions: true,
  disk_low: true,
  writer_failing: true,
  backup_late: true,
  webhook_failing: true,
  opt_out_spike: true,
};

/** Whether a rule named in an audit line is one this version knows (a newer engine may have others). */
export function isAlertRule(value: unknown): value is AlertRule {
  return typeof value === "string" && Object.hasOwn(RULES, value);
}

/** An alert's title in plain words, with what it is about: "Connection primary is down". */
export function alertTitle(rule: AlertRule, subject: string, t: I18n["t"]): string {
  // A rule of a newer engine: its code, rather than no screen at all.
  if (!isAlertRule(rule)) return subject === "" ? String(rule) : `${String(rule)}: ${subject}`;
  switch (rule) {
    case "link_down":
    case "webhook_failing":
      return t(`alerts.rule.${rule}.title`, { subject });
    default:
      return t(`alerts.rule.${rule}.title`);
  }
}

/** A rule's name, about no subject in particular ("A connection down"). */
export function ruleName(rule: AlertRule, t: I18n["t"]): string {
  if (!isAlertRule(rule)) return String(rule);
  switch (rule) {
    case "link_down":
    case "webhook_failing":
      return t(`alerts.rule.${rule}.name`);
    default:
      return t(`alerts.rule.${rule}.title`);
  }
}

/** When a rule fires, with its threshold's value where it has one. */
export function ruleWhen(rule: AlertRule, value: string | null, t: I18n["t"]): string {
  if (!isAlertRule(rule)) return value ?? "";
  switch (rule) {
    case "otp_unknown":
    case "otp_held":
    case "writer_failing":
      return t(`alerts.rule.${rule}.when`);
    default:
      return t(`alerts.rule.${rule}.when`, { value: value ?? "" });
  }
}

/** How a figure is shown, by the name the engine gives it in an alert's facts. */
const FIGURES = {
  waiting: "count",
  connections: "list",
  oldest_minutes: "minutes",
  percent: "percent",
  submits: "count",
  refused: "count",
  unanswered: "count",
  window_minutes: "minutes",
  silent_minutes: "minutes",
  last_receipt_ms: "moment",
  codes: "count",
  open: "count",
  free_mib: "mib",
  last_backup_ms: "moment",
  max_age_hours: "hours",
  numbers: "count",
  over: "count",
  under_mib: "mib",
  error: "text",
} as const;

type FigureName = keyof typeof FIGURES;

/** One figure of an alert, labelled and worded. */
export interface Figure {
  readonly name: FigureName;
  readonly label: string;
  readonly value: string;
  /** The engine's own words (an error as the system gave it), in English. */
  readonly english: boolean;
}

function worded(kind: (typeof FIGURES)[FigureName], value: unknown, i18n: I18n): string | null {
  const { t, formatNumber, formatDateTime } = i18n;
  if (kind === "moment") return typeof value === "number" ? formatDateTime(value) : t("alerts.value.never");
  if (kind === "text") return typeof value === "string" && value !== "" ? value : null;
  if (kind === "list") return Array.isArray(value) ? value.map(String).join(", ") : null;
  if (typeof value !== "number") return null;
  if (kind === "count") return formatNumber(value);
  return t(`alerts.value.${kind}`, { count: value });
}

/** The figures that made an alert fire, in a fixed order; those it does not have are left out. */
export function alertFigures(alert: AlertView, i18n: I18n): Figure[] {
  const out: Figure[] = [];
  for (const [name, kind] of Object.entries(FIGURES) as [FigureName, (typeof FIGURES)[FigureName]][]) {
    if (!Object.hasOwn(alert.facts, name)) continue;
    const value = worded(kind, alert.facts[name], i18n);
    if (value !== null) out.push({ name, label: i18n.t(`alerts.fact.${name}`), value, english: kind === "text" });
  }
  return out;
}

/** Since when the rule holds, where the engine tells (else since it fired). */
export function alertSince(alert: AlertView): number {
  const since = alert.facts["since_ms"];
  return typeof since === "number" ? since : alert.firedAtMs;
}

const MINUTE = 60_000;

/** How long an alert lasted: "under a minute", "42 min", "3 h 5 min", "2 d 4 h". */
export function durationWords(ms: number, t: I18n["t"]): string {
  const minutes = Math.floor(Math.max(0, ms) / MINUTE);
  if (minutes < 1) return t("alerts.duration.underMinute");
  if (minutes < 60) return t("alerts.duration.minutes", { minutes });
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return t("alerts.duration.hours", { hours, minutes: minutes % 60 });
  return t("alerts.duration.days", { days: Math.floor(hours / 24), hours: hours % 24 });
}
