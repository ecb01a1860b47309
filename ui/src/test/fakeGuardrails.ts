import type { GuardrailsOverview } from "../bindings/GuardrailsOverview";
import type { SpendQuery } from "../bindings/SpendQuery";
import type { SpendReport } from "../bindings/SpendReport";
import { T0 } from "./fixtures";

const DAY = 86_400_000;

/**
 * The guardrails of an office that prices its sandbox connection in euros with a limit of 100 a
 * day: over the last day, one-time codes to Great Britain refused (3 from the website's key, 1
 * composed), a velocity refusal to France, and 2 codes held for a surge to Nigeria.
 */
export function guardrailsOverview(over: Partial<GuardrailsOverview> = {}): GuardrailsOverview {
  return {
    since_ms: T0 - DAY,
    counts: [
      { reason: "country_not_allowed", country: "GB", sender: "key:3", label: "website", n: 3 },
      { reason: "country_not_allowed", country: "GB", sender: "person:alice", label: "person:alice", n: 1 },
      { reason: "velocity_limit", country: "FR", sender: "key:3", label: "website", n: 2 },
      { reason: "unusual_volume", country: "NG", sender: "key:3", label: "website", n: 2 },
    ],
    held: 2,
    spend: { currency: "EUR", today: "12.50", month: "340.25", day_limit: "100.00", month_limit: null },
    settings: {
      otp_countries: ["FR", "BE"],
      countries: null,
      otp_per_number: 3,
      otp_window_minutes: 10,
      otp_per_prefix_hour: 30,
      otp_per_key_hour: 0,
      anomaly_factor: 5,
      anomaly_minimum: 20,
      otp_exempt: false,
      priced_connections: ["sandbox"],
    },
    ...over,
  };
}

/** The spend over `query`'s period: two lines on its first day. */
export function spendReportFor(query: SpendQuery): SpendReport {
  return {
    currency: "EUR",
    from_ms: query.from_ms,
    to_ms: query.to_ms,
    utc_offset_minutes: query.utc_offset_minutes ?? 0,
    total: "0.27",
    lines: [
      { day_ms: query.from_ms, sender: "key:3", label: "website", connection: "sandbox", country: "FR", messages: 2, parts: 2, cost: 100_000 },
      { day_ms: query.from_ms, sender: "csv", label: "csv", connection: "", country: "GB", messages: 1, parts: 2, cost: 170_000 },
    ],
  };
}
