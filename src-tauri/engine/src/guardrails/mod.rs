//! Guarding the office's money (`[guardrails]`, docs/admin/guardrails.md): SMS pumping and
//! spending.
//!
//! Every message handed in (API, CSV import, compose form, command line) meets, in order:
//! 1. [`countries`]: where messages, and one-time codes, may go (the office's lists, narrowed by
//!    the API key's): refused as `country_not_allowed`. Read before the writer is asked.
//! 2. In the writer's transaction, so that two requests at once cannot both slip under a limit:
//!    [`velocity`] (one-time codes per number, per number prefix, per API key: 429
//!    `velocity_limit` with when to try again) and [`spend`] (the office's and the key's spend
//!    per day and month: `spend_limit`).
//! 3. Once written, [`anomaly`]: a one-time code to a country whose codes in the last hour exceed
//!    `anomaly_factor` times its hourly average of the last 7 days is held for a person
//!    (exception `unusual_volume`), who releases or cancels it.
//!
//! A refusal stores no message: it is counted (`guardrail_count`, the Guardrails screen) and
//! audited with the key that asked, in a transaction of its own ([`record`]). Each message is
//! priced at intake ([`pricing`]) on every connection its route may take.

pub mod anomaly;
pub mod countries;
pub mod pricing;
pub mod record;
pub mod spend;
pub mod velocity;

pub use crate::store::tables::guardrail::{GuardrailCount, GuardrailReason, SpendLine};

#[cfg(test)]
mod tests;

use std::collections::HashMap;

use smsdesk_core::config::{Config, Prices};
use smsdesk_core::domain::IntakeChannel;

use crate::intake::FieldError;
use crate::messages::NewMessage;
use crate::said::FieldCode;

/// What the guardrails need from the configuration (replaced whole when the settings change).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GuardrailRules {
    /// Countries one-time codes may go to; None: any.
    pub otp_countries: Option<Vec<String>>,
    /// Countries any message may go to; None: any.
    pub countries: Option<Vec<String>>,
    /// One-time codes per number within `otp_window_ms` (0: no limit).
    pub otp_per_number: u32,
    pub otp_window_ms: i64,
    /// One-time codes per hour to numbers sharing their first 7 digits after the country code.
    pub otp_per_prefix_hour: u32,
    /// One-time codes per hour per API key.
    pub otp_per_key_hour: u32,
    /// 0: no hold.
    pub anomaly_factor: u32,
    pub anomaly_minimum: u32,
    pub currency: String,
    /// Millionths; 0: none.
    pub spend_day: i64,
    pub spend_month: i64,
    pub otp_exempt: bool,
    /// Each connection's prices.
    pub prices: HashMap<String, Prices>,
}

impl GuardrailRules {
    /// The rules `[guardrails]` and the connections' prices set.
    pub fn from_config(config: &Config) -> GuardrailRules {
        let g = &config.guardrails;
        let list = |c: &smsdesk_core::config::Countries| (!c.0.is_empty() && !c.is_any()).then(|| c.0.clone());
        let otp_countries = match (&g.otp_countries, &config.intake.default_region.0) {
            (c, _) if !c.0.is_empty() => list(c),
            // By default, codes go to the office's own country only.
            (_, Some(home)) => Some(vec![home.clone()]),
            (_, None) => None,
        };
        GuardrailRules {
            otp_countries,
            countries: list(&g.countries),
            otp_per_number: g.otp_per_number,
            otp_window_ms: i64::from(g.otp_window_minutes.0) * 60_000,
            otp_per_prefix_hour: g.otp_per_prefix_hour,
            otp_per_key_hour: g.otp_per_key_hour,
            anomaly_factor: g.anomaly_factor,
            anomaly_minimum: g.anomaly_minimum.0,
            currency: g.currency.0.clone(),
            spend_day: g.spend_day.0,
            spend_month: g.spend_month.0,
            otp_exempt: g.otp_exempt,
            prices: config
                .connection_list()
                .into_iter()
                .filter(|c| !c.smpp.prices.0.is_empty())
                .map(|c| (c.name, c.smpp.prices))
                .collect(),
        }
    }

    /// No guardrail at all (what intake had before them): for tests of other things.
    pub fn off() -> GuardrailRules {
        GuardrailRules {
            currency: "EUR".into(),
            otp_window_ms: 600_000,
            ..GuardrailRules::default()
        }
    }
}

/// A request a guardrail refused: why, each message's error (by its index in a batch), what to
/// count, and when to try again (velocity).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub reason: GuardrailReason,
    pub errors: Vec<FieldError>,
    pub retry_after_secs: Option<u64>,
    /// The countries of the messages refused ("" when unknown), one per message, and the
    /// facts to audit (no number).
    pub countries: Vec<String>,
    pub details: serde_json::Value,
}

impl Refusal {
    /// The sentence the API answers with: the first message's, and how many more.
    pub fn message(&self) -> String {
        match self.errors.as_slice() {
            [] => "refused by a guardrail".into(),
            [one] => one.message.clone(),
            [first, rest @ ..] => format!("{} (and {} more)", first.message, rest.len()),
        }
    }
}

/// Who handed a message in, as the delivery report (and the guardrail counts) name them.
pub fn sender_of(n: &NewMessage) -> String {
    match (n.api_key_id, n.channel) {
        (Some(key), _) => format!("key:{key}"),
        (None, IntakeChannel::Csv) => "csv".to_owned(),
        (None, IntakeChannel::Cli) => "cli".to_owned(),
        (None, _) => format!("person:{}", n.submitted_by.as_deref().unwrap_or("")),
    }
}

/// The field of message `i` of `len` (a batch's errors name the message's index).
pub(crate) fn field(i: usize, len: usize, name: &str) -> String {
    match len {
        1 => name.to_owned(),
        _ => format!("messages[{i}].{name}"),
    }
}

/// A field error with `code` and its parameters.
pub(crate) fn error(field: String, code: FieldCode, message: String, params: &[(&str, String)]) -> FieldError {
    params
        .iter()
        .fold(FieldError::new(&field, code, message), |e, (k, v)| e.with(k, v))
}
