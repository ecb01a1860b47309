//! What the guardrails did and what was spent: the Guardrails screen, the dashboard's spend and
//! the spend report.

use serde::{Deserialize, Serialize};
use smsdesk_core::config::Money;
use ts_rs::TS;

use super::{Service, ServiceError};
use crate::domain::{ExceptionKind, ExceptionStatus};
use crate::guardrails::{spend, GuardrailRules};
use crate::store::tables::guardrail::{self, GuardrailCount, SpendLine};
use crate::store::{Reads, StoreError};
use crate::views::SpendNow;

const DAY_MS: i64 = 86_400_000;
const HOUR_MS: i64 = 3_600_000;

/// The guardrails in force, in the form the screen shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct GuardrailSettingsView {
    /// Countries one-time codes may go to; None: any.
    pub otp_countries: Option<Vec<String>>,
    /// Countries any message may go to; None: any.
    pub countries: Option<Vec<String>>,
    pub otp_per_number: u32,
    pub otp_window_minutes: u32,
    pub otp_per_prefix_hour: u32,
    pub otp_per_key_hour: u32,
    pub anomaly_factor: u32,
    pub anomaly_minimum: u32,
    pub otp_exempt: bool,
    /// The connections that have prices.
    pub priced_connections: Vec<String>,
}

/// The Guardrails screen: what was refused and held over the last day, by reason, country and
/// who asked; the codes held now; the spend.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct GuardrailsOverview {
    /// The counts start at this hour (a day ago).
    #[ts(type = "number")]
    pub since_ms: i64,
    pub counts: Vec<GuardrailCount>,
    /// One-time codes held for an unusual surge, waiting for a person (open `unusual_volume`
    /// exceptions).
    #[ts(type = "number")]
    pub held: i64,
    pub spend: SpendNow,
    pub settings: GuardrailSettingsView,
}

/// The spend report's period: `?from_ms=…&to_ms=…&utc_offset_minutes=60`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema, utoipa::IntoParams)]
#[serde(default, rename_all = "snake_case")]
#[into_params(parameter_in = Query)]
pub struct SpendQuery {
    /// The messages created at or after this time (ms; taken back to the hour).
    #[ts(type = "number")]
    pub from_ms: i64,
    /// …and before this one (taken forward to the hour); now when 0.
    #[ts(type = "number")]
    pub to_ms: i64,
    /// The office's offset from UTC in minutes: where its days start. 0 when not given.
    pub utc_offset_minutes: Option<i32>,
}

/// What was spent over a period, per day, sender, connection and country.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SpendReport {
    pub currency: String,
    #[ts(type = "number")]
    pub from_ms: i64,
    #[ts(type = "number")]
    pub to_ms: i64,
    /// Where its days start: midnight at this offset from UTC, in minutes.
    pub utc_offset_minutes: i32,
    /// The total, such as "12.50".
    pub total: String,
    pub lines: Vec<SpendLine>,
}

/// The spend now by `rules` (today and this month, in the office's time zone).
fn spend_now(c: &impl Reads, rules: &GuardrailRules, now: i64) -> Result<SpendNow, StoreError> {
    let (day, month) = spend::period_starts(now, &jiff::tz::TimeZone::system());
    let limit = |m: i64| (m > 0).then(|| Money(m).text());
    Ok(SpendNow {
        currency: rules.currency.clone(),
        today: Money(guardrail::spent_since(c, day, None)?).text(),
        month: Money(guardrail::spent_since(c, month, None)?).text(),
        day_limit: limit(rules.spend_day),
        month_limit: limit(rules.spend_month),
    })
}

impl Service {
    /// The spend now, when any connection has prices (for the dashboard).
    pub(super) fn dashboard_spend(&self, c: &impl Reads, now: i64) -> Result<Option<SpendNow>, StoreError> {
        let rules = self.live().rules.guardrails.clone();
        if rules.prices.is_empty() {
            return Ok(None);
        }
        spend_now(c, &rules, now).map(Some)
    }

    /// The Guardrails screen.
    pub async fn guardrails_overview(&self) -> Result<GuardrailsOverview, ServiceError> {
        let rules = self.live().rules.guardrails.clone();
        let now = self.clock().now_ms();
        let since = now - DAY_MS;
        let settings = GuardrailSettingsView {
            otp_countries: rules.otp_countries.clone(),
            countries: rules.countries.clone(),
            otp_per_number: rules.otp_per_number,
            otp_window_minutes: (rules.otp_window_ms / 60_000) as u32,
            otp_per_prefix_hour: rules.otp_per_prefix_hour,
            otp_per_key_hour: rules.otp_per_key_hour,
            anomaly_factor: rules.anomaly_factor,
            anomaly_minimum: rules.anomaly_minimum,
            otp_exempt: rules.otp_exempt,
            priced_connections: {
                let mut p: Vec<String> = rules.prices.keys().cloned().collect();
                p.sort();
                p
            },
        };
        Ok(self
            .store
            .reader()
            .read(move |c| {
                Ok::<_, StoreError>(GuardrailsOverview {
                    since_ms: since - since.rem_euclid(HOUR_MS),
                    counts: guardrail::counts_since(c, since)?,
                    held: crate::store::tables::exception::count_by(
                        c,
                        ExceptionStatus::Open,
                        ExceptionKind::UnusualVolume,
                    )?,
                    spend: spend_now(c, &rules, now)?,
                    settings,
                })
            })
            .await?)
    }

    /// The spend report over `q`'s period.
    pub async fn spend_report(&self, q: SpendQuery) -> Result<SpendReport, ServiceError> {
        let refuse = |why: String| Err(ServiceError::View(crate::views::ViewError::InvalidFilter(why)));
        let to = if q.to_ms == 0 { self.clock().now_ms() } else { q.to_ms };
        for (name, t) in [("from_ms", q.from_ms), ("to_ms", to)] {
            if !(0..=crate::views::LAST_MS).contains(&t) {
                return refuse(format!("{name} ({t}) is not a time between 1970 and 9999"));
            }
        }
        let (from, to) = (
            q.from_ms.div_euclid(HOUR_MS) * HOUR_MS,
            (to + HOUR_MS - 1).div_euclid(HOUR_MS) * HOUR_MS,
        );
        if from >= to {
            return refuse(format!("from_ms ({}) must be before to_ms ({to})", q.from_ms));
        }
        let offset = q.utc_offset_minutes.unwrap_or(0);
        if offset.unsigned_abs() > 14 * 60 {
            return refuse("utc_offset_minutes must be within ±840 (14 hours)".into());
        }
        let currency = self.live().rules.guardrails.currency.clone();
        let lines = self
            .store
            .reader()
            .read(move |c| guardrail::spend_lines(c, from, to, offset))
            .await?;
        let total = Money(lines.iter().map(|l| l.cost).sum()).text();
        Ok(SpendReport {
            currency,
            from_ms: from,
            to_ms: to,
            utc_offset_minutes: offset,
            total,
            lines,
        })
    }

    /// The spend report as CSV (a header line, one line per day, sender, connection and country).
    pub async fn spend_report_csv(&self, q: SpendQuery) -> Result<String, ServiceError> {
        let r = self.spend_report(q).await?;
        let mut out = String::from("day,sender,connection,country,messages,parts,cost,currency\n");
        for l in &r.lines {
            // The office's date: its day starts at local midnight.
            let day = crate::clock::format_rfc3339(l.day_ms + i64::from(r.utc_offset_minutes) * 60_000);
            let cells = [
                day[..10].to_owned(),
                l.label.clone(),
                l.connection.clone(),
                l.country.clone(),
                l.messages.to_string(),
                l.parts.to_string(),
                Money(l.cost).text(),
                r.currency.clone(),
            ];
            let cells: Vec<String> = cells.iter().map(|c| csv_cell(c)).collect();
            out.push_str(&cells.join(","));
            out.push('\n');
        }
        Ok(out)
    }
}

/// One CSV cell: quoted when it needs to be; a cell a spreadsheet would run as a formula starts
/// with `'`.
fn csv_cell(text: &str) -> String {
    let text = match text.starts_with(['=', '+', '-', '@']) {
        true => format!("'{text}"),
        false => text.to_owned(),
    };
    match text.contains([',', '"', '\n', '\r']) {
        true => format!("\"{}\"", text.replace('"', "\"\"")),
        false => text,
    }
}
