//! Where messages, and one-time codes, may go: the office's lists (`guardrails.countries`,
//! `guardrails.otp_countries`), narrowed by the API key's.

use smsdesk_core::domain::MessageKind;

use super::{error, field, GuardrailRules, Refusal};
use crate::access::{Caller, KeyLimits};
use crate::messages::NewMessage;
use crate::said::FieldCode;
use crate::store::tables::guardrail::GuardrailReason;

/// The key's limits, when the caller is an API key.
pub(crate) fn key_limits(caller: &Caller) -> Option<&KeyLimits> {
    match caller {
        Caller::Key { limits, .. } => Some(limits),
        _ => None,
    }
}

/// Why a message of `kind` may not go to `country` ("" when the numbering data does not tell),
/// if it may not: whose list refuses it.
pub fn refused_by(
    rules: &GuardrailRules,
    key: Option<&KeyLimits>,
    kind: MessageKind,
    country: &str,
) -> Option<&'static str> {
    let allows = |list: &[String]| list.iter().any(|c| c == country);
    let office_otp = rules.otp_countries.as_deref();
    let key_otp = key.map(|k| k.otp_countries.as_slice()).filter(|l| !l.is_empty());
    let key_any = key.map(|k| k.countries.as_slice()).filter(|l| !l.is_empty());
    if rules.countries.as_deref().is_some_and(|l| !allows(l)) {
        return Some("office");
    }
    if key_any.is_some_and(|l| !allows(l)) {
        return Some("key");
    }
    if kind == MessageKind::Otp {
        if office_otp.is_some_and(|l| !allows(l)) {
            return Some("office");
        }
        if key_otp.is_some_and(|l| !allows(l)) {
            return Some("key");
        }
    }
    None
}

/// The error for message `i` of `len`, refused by `whose` list.
pub fn not_allowed(i: usize, len: usize, n: &NewMessage, whose: &str) -> crate::intake::FieldError {
    let country = n.country.as_deref().unwrap_or("");
    let list = match (n.kind, whose) {
        (MessageKind::Otp, "office") => "the office's countries for one-time codes (guardrails.otp_countries)",
        (_, "office") => "the office's countries (guardrails.countries)",
        (MessageKind::Otp, _) => "this API key's countries for one-time codes",
        _ => "this API key's countries",
    };
    let which = match country {
        "" => "a number whose country is not known".to_owned(),
        c => format!("a number in {c}"),
    };
    error(
        field(i, len, "destination"),
        FieldCode::CountryNotAllowed,
        format!(
            "{} is {which}, which is not among {list}: nothing was stored",
            n.destination
        ),
        &[
            ("country", country.to_owned()),
            ("kind", n.kind.as_str().to_owned()),
            ("whose", whose.to_owned()),
        ],
    )
}

/// Refuses the request when any of its messages goes to a country it may not.
pub fn check(rules: &GuardrailRules, caller: &Caller, news: &[NewMessage]) -> Result<(), Refusal> {
    let key = key_limits(caller);
    let mut errors = Vec::new();
    let mut countries = Vec::new();
    for (i, n) in news.iter().enumerate() {
        let country = n.country.as_deref().unwrap_or("");
        if let Some(whose) = refused_by(rules, key, n.kind, country) {
            errors.push(not_allowed(i, news.len(), n, whose));
            countries.push(country.to_owned());
        }
    }
    if errors.is_empty() {
        return Ok(());
    }
    let details = serde_json::json!({
        "reason": "country_not_allowed",
        "countries": countries,
        "kinds": news.iter().map(|n| n.kind.as_str()).collect::<std::collections::BTreeSet<_>>(),
        "refused": errors.len(),
    });
    Err(Refusal {
        reason: GuardrailReason::CountryNotAllowed,
        errors,
        retry_after_secs: None,
        countries,
        details,
    })
}
