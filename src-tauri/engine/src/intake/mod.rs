//! Intake: a message as a client hands it in (HTTP API, CSV row, compose form, command line), checked
//! and turned into a [`NewMessage`] ready for the queue.
//!
//! [`validate`] reports every field's problem at once, each as a [`FieldError`] naming the JSON field,
//! a stable code for programs and a sentence for people. The destination becomes E.164
//! ([`normalize_destination`]), the text gets the encoding and segment count it will be sent with,
//! and times written in RFC 3339 become milliseconds since the epoch. [`normalise`] reads a request
//! the same way (defaults filled in) and [`request_hash`] fingerprints it, so that an idempotency
//! key reused with a different request can be told from an equivalent repeat.
//!
//! Decisions worth knowing:
//! - Text may not hold control characters other than line feed, carriage return, tab and form feed
//!   (NUL included): SMS cannot carry them faithfully, and they are invisible to whoever checks the
//!   message. They are refused as `invalid_character`, not stripped.
//! - `scheduled_at` at or before now means "send now": the message is stored unscheduled. Except
//!   from the compose form (the window's, or a browser's single message), where a person picked
//!   the time: one already past is refused as `in_past`.
//! - `validity_seconds` counts from `scheduled_at` when the message is scheduled, otherwise from now.
//! - A message may stay valid at most [`MAX_AHEAD_DAYS`] after its send time, and be scheduled at most
//!   that far ahead (SMPP absolute times carry a two-digit year, so far-off times cannot be sent).
//! - A message may name one of the office's templates and give the value of each of its
//!   placeholders instead of its text: the template is filled (core's `template::fill`, the one
//!   reading of placeholders) and the text checked as any other. A placeholder without a value
//!   is refused as `template_value_missing` (one error each), an unknown name as
//!   `unknown_template`; a text beside a template, or values without one, conflict.
//! - An empty `ordering_key` or `client_ref` counts as absent (a CSV cell left blank). Neither may
//!   hold a control character (tab and line breaks included): they are repeated in logs, lists,
//!   exports and webhooks, where one would hide or forge what follows. Refused as
//!   `invalid_character`, naming the field.

mod destination;
mod normalise;
mod request_hash;
mod routing;
mod template;
mod validate;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::domain::{MessageKind, QueueStatus};
use crate::messages::NewMessage;
use crate::said::{FieldCode, Params};

pub(crate) use destination::country_needed;
pub(crate) use destination::is_separator;
pub use destination::{known_region, normalize_destination, numbering_ready, read_destination, warm_up};
pub use normalise::{normalise, Normalised};
pub use request_hash::request_hash;
pub use routing::{choose_route, route};
pub use template::{message_text, names_template, Templates};
pub use validate::{validate, validate_with};

/// Segments a message may take under the default rules.
pub const MAX_SEGMENTS: u32 = 10;
/// How far ahead a message may be scheduled, and how long after its send time it may stay valid.
pub const MAX_AHEAD_DAYS: i64 = 365;
/// Longest `ordering_key`, in characters.
pub const MAX_ORDERING_KEY_CHARS: usize = 128;
/// Longest `client_ref`, in characters.
pub const MAX_CLIENT_REF_CHARS: usize = 256;

/// The stable codes of [`FieldError`]: what programs branch on (the whole list is
/// [`FieldCode::ALL`]).
pub mod codes {
    use smsdesk_core::said::FieldCode;
    pub const REQUIRED: FieldCode = FieldCode::Required;
    pub const INVALID_NUMBER: FieldCode = FieldCode::InvalidNumber;
    pub const COUNTRY_NEEDED: FieldCode = FieldCode::CountryNeeded;
    pub const INVALID_CHARACTER: FieldCode = FieldCode::InvalidCharacter;
    pub const TOO_LONG: FieldCode = FieldCode::TooLong;
    pub const OUT_OF_RANGE: FieldCode = FieldCode::OutOfRange;
    pub const INVALID_TIME: FieldCode = FieldCode::InvalidTime;
    pub const IN_PAST: FieldCode = FieldCode::InPast;
    pub const CONFLICT: FieldCode = FieldCode::Conflict;
    pub const WEAK_PASSWORD: FieldCode = FieldCode::WeakPassword;
    pub const WRONG_PASSWORD: FieldCode = FieldCode::WrongPassword;
    pub const UNKNOWN_TEMPLATE: FieldCode = FieldCode::UnknownTemplate;
    pub const TEMPLATE_VALUE_MISSING: FieldCode = FieldCode::TemplateValueMissing;
}

/// A message as a client hands it in.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
#[ts(optional_fields = nullable)]
pub struct SubmitMessage {
    /// The phone number to send to, in any common format; international (+33…, 0033…) unless
    /// `intake.default_region` says which country national numbers are in.
    pub destination: String,
    /// The text; not empty, and at most the allowed number of SMS segments once encoded. Left
    /// out (or empty) when the message names a `template`.
    #[serde(default)]
    #[ts(as = "Option<String>", optional)]
    pub text: String,
    /// Instead of `text`: the name of one of the office's templates (`GET /api/v1/templates`), whose
    /// text is filled with `values` and sent. The filled text is checked as a text is.
    #[serde(default)]
    pub template: Option<String>,
    /// With `template`: the value of each of its `{placeholders}`, by name. A placeholder
    /// without a value (or with an empty one) is refused as `template_value_missing`; values
    /// its text does not name are left aside.
    #[serde(default)]
    #[ts(type = "Record<string, string> | null", optional = nullable)]
    pub values: Option<BTreeMap<String, String>>,
    /// What the message is for; transactional when absent.
    #[serde(default)]
    pub kind: Option<MessageKind>,
    /// Urgency within its kind, 0 (first) to 9; 5 when absent.
    #[serde(default)]
    pub priority: Option<u8>,
    /// When the message stops being worth sending, RFC 3339 with an offset
    /// ("2026-12-01T10:00:00Z"). Not with `validity_seconds`.
    #[serde(default)]
    pub valid_until: Option<String>,
    /// How long the message stays worth sending, from its send time. Not with `valid_until`.
    #[serde(default)]
    pub validity_seconds: Option<u32>,
    /// When to send it, RFC 3339 with an offset; now when absent or past. At most 365 days ahead.
    #[serde(default)]
    pub scheduled_at: Option<String>,
    /// Messages sharing it are sent in the order they were handed in. At most 128 characters, no
    /// control characters.
    #[serde(default)]
    pub ordering_key: Option<String>,
    /// The client's own reference, echoed back. At most 256 characters, no control characters.
    #[serde(default)]
    pub client_ref: Option<String>,
    /// Whether typographic characters with a GSM 7-bit look-alike (’ « » – …) are replaced
    /// before the text is split: `off`, `typography` or `always`; `intake.smart_encoding` when
    /// absent. Accented letters are never replaced.
    #[serde(default)]
    pub smart_encoding: Option<crate::sms::smart::SmartEncoding>,
}

/// One field's problem: which field, a stable code to branch on with its parameters (what the
/// UI words in the operator's language), and a sentence in English.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct FieldError {
    /// The JSON field name, such as "destination".
    pub field: String,
    /// What is wrong, such as "invalid_number".
    pub code: FieldCode,
    /// The code's parameters, such as `{"max": "10"}` for too_long; empty when it has none.
    #[serde(default)]
    #[ts(type = "Record<string, string>")]
    pub params: Params,
    /// What is wrong with the value, in plain English.
    pub message: String,
}

impl FieldError {
    pub fn new(field: &str, code: FieldCode, message: impl Into<String>) -> FieldError {
        FieldError {
            field: field.into(),
            code,
            params: Params::new(),
            message: message.into(),
        }
    }

    /// The same error with one more parameter.
    pub fn with(mut self, name: &str, value: impl ToString) -> FieldError {
        self.params.insert(name.to_owned(), value.to_string());
        self
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

/// What intake needs from the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntakeRules {
    /// ISO 3166 alpha-2 code ("FR") of the country national numbers are in.
    pub default_region: Option<String>,
    /// The connection messages are queued for when there are no routes.
    pub connection: String,
    /// The routes, in order, each with its enabled connections only (none: every message is
    /// queued for `connection`, without a route).
    pub routes: std::sync::Arc<Vec<crate::config::Route>>,
    /// Segments a message may take at most.
    pub max_segments: u32,
    /// The registered_delivery each kind asks for (otp, transactional, bulk).
    pub registered_delivery: [u8; 3],
    /// How long a one-time code given no validity stays valid after its send time.
    pub otp_validity_ms: i64,
    /// When typographic characters are replaced, unless a message says otherwise.
    pub smart_encoding: crate::sms::smart::SmartEncoding,
    /// Where messages may go, how fast codes may, what may be spent, and the prices.
    pub guardrails: std::sync::Arc<crate::guardrail_rules::GuardrailRules>,
}

impl IntakeRules {
    /// Rules with the default segment limit, a final receipt asked for every kind, and five
    /// minutes for a one-time code.
    pub fn new(connection: &str, default_region: Option<&str>) -> IntakeRules {
        IntakeRules {
            default_region: default_region.map(str::to_owned),
            connection: connection.into(),
            routes: std::sync::Arc::default(),
            max_segments: MAX_SEGMENTS,
            registered_delivery: [1; 3],
            otp_validity_ms: DEFAULT_OTP_VALIDITY_MS,
            smart_encoding: crate::sms::smart::SmartEncoding::Off,
            guardrails: std::sync::Arc::new(crate::guardrail_rules::GuardrailRules::off()),
        }
    }
}

/// How long a one-time code stays valid when nothing says otherwise (`retry.otp_max_age_minutes`).
pub const DEFAULT_OTP_VALIDITY_MS: i64 = 5 * 60_000;

/// What the API answers once a message is committed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct SubmittedMessage {
    #[ts(type = "number")]
    pub id: i64,
    /// `queued` at creation; `held` for a one-time code held for an unusual surge to its country
    /// (exception `unusual_volume`: a person releases or cancels it).
    pub status: QueueStatus,
    /// E.164.
    pub destination: String,
    /// The destination exactly as handed in.
    pub destination_raw: String,
    /// "gsm7" or "ucs2".
    pub encoding: String,
    pub segments: u32,
    pub kind: MessageKind,
    pub priority: u8,
    #[ts(type = "number | null")]
    pub valid_until_ms: Option<i64>,
    #[ts(type = "number | null")]
    pub scheduled_at_ms: Option<i64>,
    pub ordering_key: Option<String>,
    pub client_ref: Option<String>,
    #[ts(type = "number")]
    pub created_at_ms: i64,
}

impl SubmittedMessage {
    pub fn new(id: i64, m: &NewMessage, created_at_ms: i64) -> SubmittedMessage {
        SubmittedMessage {
            id,
            status: QueueStatus::Queued,
            destination: m.destination.clone(),
            destination_raw: m.destination_raw.clone(),
            encoding: m.encoding.clone(),
            segments: m.segments,
            kind: m.kind,
            priority: m.priority,
            valid_until_ms: m.valid_until,
            scheduled_at_ms: m.scheduled_at,
            ordering_key: m.ordering_key.clone(),
            client_ref: m.client_ref.clone(),
            created_at_ms,
        }
    }
}

/// A client's value for an error message: quoted, escaped, and cut short when long.
fn quote(value: &str) -> String {
    const KEEP: usize = 40;
    if value.chars().count() <= KEEP {
        format!("{value:?}")
    } else {
        let head: String = value.chars().take(KEEP).collect();
        format!("{head:?}…")
    }
}
