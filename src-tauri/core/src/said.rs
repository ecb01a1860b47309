//! What the engine says to people, as codes with parameters: the UI words each code in the
//! operator's language, and API clients branch on it. The English sentence the engine also writes
//! stays beside it, for logs and for clients that show text as it comes.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::domain::{TextForm, UnknownVariant};

text_enum! {
    /// What is wrong with one field of a request: the code of a field error.
    FieldCode, "field error code" {
        /// The field is missing or empty.
        Required = "required",
        /// The destination is not a phone number we can send to.
        InvalidNumber = "invalid_number",
        /// A national number (no + nor 00 in front) where no office country
        /// (`intake.default_region`) says which country it is in.
        CountryNeeded = "country_needed",
        /// Not a country the numbering data knows: two letters of ISO 3166 (`FR`) are wanted.
        UnknownCountry = "unknown_country",
        /// The text holds a character SMS cannot carry, or a key a control character.
        InvalidCharacter = "invalid_character",
        /// Longer than allowed (text parts, key lengths).
        TooLong = "too_long",
        /// Shorter than allowed (a provider's secret).
        TooShort = "too_short",
        /// More lines or items than one request takes.
        TooMany = "too_many",
        /// A number or time outside its allowed range.
        OutOfRange = "out_of_range",
        /// Not an RFC 3339 timestamp with an offset.
        InvalidTime = "invalid_time",
        /// A time that has already passed.
        InPast = "in_past",
        /// Two fields that cannot go together.
        Conflict = "conflict",
        /// A password too short, too long, or the account's own name.
        WeakPassword = "weak_password",
        /// An SMPP password longer than the bind carries (`params.max`: 8 characters).
        PasswordTooLong = "password_too_long",
        /// An SMPP system_id longer than the bind carries (`params.max`: 15 characters).
        SystemIdTooLong = "system_id_too_long",
        /// The current password given is not the account's.
        WrongPassword = "wrong_password",
        /// No route of the settings takes the message (or its route's connections are all
        /// disabled).
        NoRoute = "no_route",
        /// The number is on the opt-out list for this kind of message.
        DestinationOptedOut = "destination_opted_out",
        /// The number is in a country the office (or the API key) does not send to, or to
        /// which it sends no one-time code (`country`, `kind`).
        CountryNotAllowed = "country_not_allowed",
        /// A one-time code limit is reached (`limit`: `number`, `prefix` or `key`; `max`,
        /// `minutes`; `retry_after`, seconds).
        VelocityLimit = "velocity_limit",
        /// A spend limit is reached (`limit`: `day` or `month`; `whose`: `office` or `key`;
        /// `max`, `spent`, `cost`, `currency`).
        SpendLimit = "spend_limit",
        /// A field the request does not take.
        UnknownField = "unknown_field",
        /// A value of the wrong type (a number where text is expected, and so on).
        InvalidType = "invalid_type",
        /// A value its setting does not accept; the message says why.
        Invalid = "invalid",
        /// A name given twice.
        Duplicate = "duplicate",
        /// No setting of that name.
        UnknownSetting = "unknown_setting",
        /// A setting changed through a field of its own (the password, the callback providers).
        NotAValue = "not_a_value",
        /// A setting only the config file changes.
        ReadOnly = "read_only",
        /// A setting an environment variable sets.
        LockedByEnvironment = "locked_by_environment",
        /// Listening beyond this machine needs `http.allow_network`.
        NeedsAllowNetwork = "needs_allow_network",
        /// A callback provider preset this version does not know.
        UnknownPreset = "unknown_preset",
        /// No template has the name a message gives (`params.name`).
        UnknownTemplate = "unknown_template",
        /// A placeholder of the message's template has no value (`params.placeholder`).
        TemplateValueMissing = "template_value_missing",
    }
}

text_enum! {
    /// Why an exception was opened: the code of its summary.
    SummaryCode, "exception summary code" {
        /// A receipt names a provider id no message sent on its connection has.
        Uncorrelated = "uncorrelated",
        /// A receipt carries no message id at all.
        UncorrelatedNoId = "uncorrelated_no_id",
        /// Several messages sent on the connection have the receipt's provider id.
        Ambiguous = "ambiguous",
        /// A report could not be read.
        Unparseable = "unparseable",
        /// No final receipt by the kind's deadline.
        NoReceipt = "no_receipt",
        /// Final receipts that disagree.
        ConflictingFinal = "conflicting_final",
        /// A submit written whose answer never came.
        OutcomeUnknown = "outcome_unknown",
        /// A long message of which only some parts went out.
        PartlySent = "partly_sent",
        /// A receipt whose status word nobody can read.
        StatusUnreadable = "status_unreadable",
        /// The number opted out while the message waited.
        OptedOut = "opted_out",
        /// One-time codes to a country surged (`country`, `count` in the last hour, `average` an
        /// hour over 7 days): the code is held.
        UnusualVolume = "unusual_volume",
    }
}

/// A code compares equal to its text form, so that a test or a client reads as the API does.
impl PartialEq<&str> for FieldCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// The parameters of a code: names to values, all text (numbers as digits).
pub type Params = BTreeMap<String, String>;

/// Builds [`Params`] from pairs.
pub fn params<const N: usize>(pairs: [(&str, String); N]) -> Params {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

/// An exception's summary: its code and parameters for people's words, and the English sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub code: SummaryCode,
    pub params: Params,
    pub english: String,
}

impl Summary {
    pub fn new(code: SummaryCode, params: Params, english: String) -> Summary {
        Summary { code, params, english }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_read_back_from_their_text() {
        for c in FieldCode::ALL {
            assert_eq!(c.as_str().parse::<FieldCode>().unwrap(), *c);
        }
        for c in SummaryCode::ALL {
            assert_eq!(c.as_str().parse::<SummaryCode>().unwrap(), *c);
        }
        assert!("nonsense".parse::<FieldCode>().is_err());
    }

    #[test]
    fn params_keep_every_pair() {
        let p = params([("max", "10".to_owned()), ("field", "text".to_owned())]);
        assert_eq!(p.get("max").map(String::as_str), Some("10"));
        assert_eq!(p.len(), 2);
    }
}
