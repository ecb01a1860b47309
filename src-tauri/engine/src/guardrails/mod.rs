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

pub use crate::guardrail_rules::GuardrailRules;
pub use crate::store::tables::guardrail::{GuardrailCount, GuardrailReason, SpendLine};

#[cfg(test)]
mod tests;

use crate::intake::FieldError;
use crate::messages::NewMessage;
use crate::said::FieldCode;

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
    crate::store::reports::sender_of(n)
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
