import type { AlertsOverview } from "../bindings/AlertsOverview";
import type { AlertView } from "../bindings/AlertView";
import type { NoticeView } from "../bindings/NoticeView";
import { T0 } from "./fixtures";

const MINUTE = 60_000;

export function notice(over: Partial<NoticeView> = {}): NoticeView {
  return { atMs: T0, kind: "fired", channel: "email", outcome: "sent", detail: "ops@example.org", ...over };
}

/** An alert open since T0, acknowledged by nobody, unless a test says otherwise. */
export function alert(id: number, over: Partial<AlertView> = {}): AlertView {
  return {
    id,
    rule: "open_exceptions",
    subject: "",
    facts: { open: 57, over: 50 },
    firedAtMs: T0,
    repeatedAtMs: null,
    resolvedAtMs: null,
    acknowledgedAtMs: null,
    acknowledgedBy: null,
    acknowledgementNote: null,
    notices: [notice()],
    ...over,
  };
}

/** The link of `primary` down for ten minutes, told by e-mail, then held back from the webhooks by quiet hours. */
export function linkDown(id: number, over: Partial<AlertView> = {}): AlertView {
  return alert(id, {
    rule: "link_down",
    subject: "primary",
    facts: { error: "connection refused (os error 111)", waiting: 12, since_ms: T0 - 5 * MINUTE },
    notices: [
      notice({ atMs: T0 }),
      notice({ atMs: T0 + 1_000, channel: "webhook", outcome: "quiet", detail: null }),
      notice({ atMs: T0 + 60 * MINUTE, kind: "repeated", outcome: "failed", detail: "the SMTP server smtp.example.org:587 did not take it" }),
    ],
    repeatedAtMs: T0 + 60 * MINUTE,
    ...over,
  });
}

/** A disk alert that lasted 2 h 5 min and was acknowledged on the way. */
export function resolvedDiskLow(id: number): AlertView {
  return alert(id, {
    rule: "disk_low",
    facts: { free_mib: 310, under_mib: 500 },
    firedAtMs: T0 - 4 * 60 * MINUTE,
    resolvedAtMs: T0 - 4 * 60 * MINUTE + 125 * MINUTE,
    acknowledgedAtMs: T0 - 3 * 60 * MINUTE,
    acknowledgedBy: "Olga",
    acknowledgementNote: "old backups moved to the NAS",
    notices: [notice({ atMs: T0 - 4 * 60 * MINUTE }), notice({ atMs: T0 - 2 * 60 * MINUTE, kind: "resolved" })],
  });
}

/** The overview with `alerts`, e-mail set up, no webhook yet, and the defaults' thresholds. */
export function alertsOverview(alerts: AlertView[] = [], over: Partial<AlertsOverview> = {}): AlertsOverview {
  return {
    enabled: true,
    alerts,
    otherNotices: [notice({ atMs: T0 - MINUTE, kind: "test", channel: "email", detail: "ops@example.org" })],
    rules: [
      { rule: "link_down", setting: "alerts.link_down_minutes", value: "5" },
      { rule: "otp_unknown", setting: null, value: null },
      { rule: "open_exceptions", setting: "alerts.open_exceptions_over", value: "50" },
    ],
    email: { ready: true, missing: null, detail: "ops@example.org", quietHours: "22:00-07:00" },
    webhook: {
      ready: false,
      missing: "alerts_key",
      detail: "no API key with the scope `alerts` has a webhook",
      quietHours: "",
    },
    ...over,
  };
}
