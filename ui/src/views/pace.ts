import type { LinkState } from "../bindings/LinkState";
import type { Pace } from "../bindings/Pace";
import type { PaceConnection } from "../bindings/PaceConnection";
import type { I18n } from "../i18n/i18n";

/** The campaign the settings screen times: the size that took 33 minutes at the defaults. */
export const EXAMPLE_CAMPAIGN = 20_000;

/**
 * Below this answer time the window, not the rate, may be what holds sending back: with `window`
 * submits awaiting their answer at most, `tps` per second needs each answered within
 * `window / tps` seconds. Providers over the internet answer in tens of milliseconds.
 */
export const WINDOW_WARNING_MS = 100;

/** Seconds `count` messages take at `ratePerS` (one submit each), rounded up. */
export function secondsFor(count: number, ratePerS: number): number {
  if (count <= 0) return 0;
  return Math.ceil(count / Math.max(ratePerS, Number.MIN_VALUE));
}

/** The longest a provider may take to answer each submit for `window` in flight to keep `tps`, in ms. */
export function answerWithinMs(window: number, tps: number): number {
  return Math.floor((window / tps) * 1_000);
}

/** A duration as a person rounds it: "40 seconds", "8 minutes", "2.5 hours", "3 days". */
export function aboutDuration(seconds: number, locale: string): string {
  const s = Math.max(1, Math.ceil(seconds));
  const [value, unit, digits]: [number, string, number] =
    s < 60
      ? [s, "second", 0]
      : s < 3_570
        ? [Math.round(s / 60), "minute", 0]
        : s < 48 * 3_600
          ? [s / 3_600, "hour", s < 10 * 3_600 ? 1 : 0]
          : [s / 86_400, "day", s < 10 * 86_400 ? 1 : 0];
  return new Intl.NumberFormat(locale, { style: "unit", unit, unitDisplay: "long", maximumFractionDigits: digits }).format(
    value,
  );
}

/** A rate in messages per second: whole from 10 up, to a tenth below ("0.4", "2.5", "1,000"). */
export function formatRate(ratePerS: number, locale: string): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: ratePerS < 10 ? 1 : 0 }).format(ratePerS);
}

/** Whose limit it is, in words: "the account’s limit" or "the sandbox’s own pace". */
export function limitWords(connection: PaceConnection, i18n: I18n): string {
  return connection === "sandbox" ? i18n.t("pace.limit.sandbox") : i18n.t("pace.limit.provider");
}

/** Measured within a tenth of the limit: sending as fast as it is allowed to. */
const AT_LIMIT = 0.9;

/** Where sending stands: nothing to send, sending, about to, or held by the link. */
export type PaceStatus = "idle" | "sending" | "waiting" | "paused";

/** The link holds sending back unless it is bound; a first connection is said apart from a loss. */
function pausedBy(link: LinkState | null, i18n: I18n): string | null {
  if (link === null || link.state === "bound") return null;
  return link.state === "connecting" && link.attempt <= 1 ? i18n.t("pace.paused.connecting") : i18n.t("pace.paused.down");
}

export function paceStatus(pace: Pace, link: LinkState | null = null): PaceStatus {
  if (pace.queued <= 0) return "idle";
  if (link !== null && link.state !== "bound") return "paused";
  return pace.sent_last_minute_per_s > 0 ? "sending" : "waiting";
}

/**
 * The pace in plain words, as the dashboard shows it: "4,738 due now · sending at 10/s (the
 * account’s limit) · about 8 minutes left"; "4,738 due now · paused: link down" while the link
 * (when known) is not up, with no time left to promise; "—" when nothing is due (see [`paceNote`]).
 * Only what is due counts, and the time left is for it: messages scheduled for later are said
 * apart (see [`scheduledWords`]).
 */
export function paceWords(pace: Pace, i18n: I18n, link: LinkState | null = null): string {
  const { t, formatTag } = i18n;
  if (pace.queued <= 0) return "—";
  const queued = t("pace.due", { count: pace.queued });
  const paused = pausedBy(link, i18n);
  if (paused !== null) return [queued, paused].join(" · ");
  const limit = limitWords(pace.connection, i18n);
  const max = formatRate(pace.max_rate_per_s, formatTag);
  const measured = pace.sent_last_minute_per_s;
  const rate =
    measured <= 0
      ? t("pace.waiting", { rate: max, limit })
      : measured >= pace.max_rate_per_s * AT_LIMIT
        ? t("pace.sending.atLimit", { rate: formatRate(measured, formatTag), limit })
        : t("pace.sending", { rate: formatRate(measured, formatTag) });
  const left = t("pace.left", { duration: aboutDuration(pace.eta_seconds, formatTag) });
  return [queued, rate, left].join(" · ");
}

/** Under the "—" of an idle queue: that nothing waits (or nothing is due yet), and how fast sending would go. */
export function paceNote(pace: Pace, i18n: I18n): string | null {
  if (pace.queued > 0) return null;
  const params = { rate: formatRate(pace.max_rate_per_s, i18n.formatTag), limit: limitWords(pace.connection, i18n) };
  return pace.scheduled > 0 ? i18n.t("pace.idle.due", params) : i18n.t("pace.idle", params);
}

/**
 * The messages scheduled for later, apart from the pace: "3 scheduled, next at 2 Dec 2026, 09:30
 * GMT+1" (in the app's one date format); null when none is.
 */
export function scheduledWords(pace: Pace, i18n: I18n): string | null {
  if (pace.scheduled <= 0) return null;
  const time = pace.next_scheduled_at_ms === null ? "—" : i18n.formatDateTime(pace.next_scheduled_at_ms);
  return i18n.t(`pace.scheduled.${i18n.plural(pace.scheduled)}`, { count: pace.scheduled, time });
}
