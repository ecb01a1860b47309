import { useI18n } from "../../i18n/context";
import { aboutDuration, answerWithinMs, EXAMPLE_CAMPAIGN, formatRate, secondsFor, WINDOW_WARNING_MS } from "../pace";

/** The sandbox's own limits, as the engine reports them (its pace). */
export interface SandboxLimits {
  readonly tps: number;
  readonly window: number;
}

/** A whole number of at least 1, as smpp.tps and smpp.window must be; null otherwise. */
function positive(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return null;
  const n = Number(trimmed);
  return n >= 1 ? n : null;
}

/**
 * What the rate and window being edited allow: the most messages a second, how long a campaign
 * takes at that, whether the window asks for quick answers; and, while the sandbox is the
 * connection, that it runs at its own pace whatever these say.
 */
export function SendingPace({
  tps,
  window,
  sandbox,
  sandboxLimits,
}: {
  /** smpp.tps and smpp.window as being edited. */
  tps: string;
  window: string;
  /** smpp.sandbox as being edited. */
  sandbox: boolean;
  /** Unknown until the engine said them. */
  sandboxLimits: SandboxLimits | null;
}) {
  const { t, formatTag } = useI18n();
  const rate = positive(tps);
  const inFlight = positive(window);
  const withinMs = rate !== null && inFlight !== null ? answerWithinMs(inFlight, rate) : null;
  const duration = (perS: number): string => aboutDuration(secondsFor(EXAMPLE_CAMPAIGN, perS), formatTag);
  return (
    <div className="settings-pace" aria-live="polite" data-testid="settings-pace">
      {rate !== null && (
        <p data-testid="settings-pace-rate" data-rate={rate}>
          {t("settings.pace", { rate: formatRate(rate, formatTag), count: EXAMPLE_CAMPAIGN, duration: duration(rate) })}
        </p>
      )}
      {withinMs !== null && inFlight !== null && withinMs < WINDOW_WARNING_MS && (
        <p className="muted" data-testid="settings-pace-window">
          {t("settings.pace.window", { window: inFlight, ms: withinMs })}
        </p>
      )}
      {sandbox && (
        <p className="muted" data-testid="settings-pace-sandbox">
          {sandboxLimits === null
            ? t("settings.pace.sandbox.unknown")
            : t("settings.pace.sandbox", {
                rate: formatRate(sandboxLimits.tps, formatTag),
                count: EXAMPLE_CAMPAIGN,
                duration: duration(sandboxLimits.tps),
              })}
        </p>
      )}
    </div>
  );
}
