//! How fast one-time codes may be asked for: per number within `otp_window_minutes`, per number
//! prefix (the first 7 digits after the country code) and per API key within an hour. Counted in
//! the writer's transaction, the request's own earlier codes included.

use std::collections::HashMap;

use smsdesk_core::domain::MessageKind;

use super::{error, field, GuardrailRules, Refusal};
use crate::messages::NewMessage;
use crate::said::FieldCode;
use crate::store::tables::guardrail::{self, GuardrailReason};
use crate::store::{StoreError, WriteTx};

const HOUR_MS: i64 = 3_600_000;

/// Digits after the country code that make a number's prefix.
pub const PREFIX_DIGITS: usize = 7;

/// The prefix of an E.164 number: `+`, its country code and the first [`PREFIX_DIGITS`] digits
/// after it; None for a number too short to have one (or not E.164).
pub fn prefix_of(e164: &str) -> Option<String> {
    let number = phonenumber::parse(None, e164).ok()?;
    let code = number.code().value().to_string();
    let national = e164.strip_prefix('+')?.strip_prefix(code.as_str())?;
    (national.len() > PREFIX_DIGITS).then(|| format!("+{code}{}", &national[..PREFIX_DIGITS]))
}

/// One limit: what it counts, how many, over how long.
struct Limit<'a> {
    what: &'static str,
    key: String,
    max: u32,
    window_ms: i64,
    count: &'a dyn Fn(&WriteTx<'_>, i64) -> Result<guardrail::Counted, StoreError>,
}

/// Refuses the request when one of its one-time codes would pass a limit; says when one more fits.
pub fn check(tx: &WriteTx<'_>, rules: &GuardrailRules, news: &[NewMessage]) -> Result<Result<(), Refusal>, StoreError> {
    let now = tx.now_ms();
    // Codes of this request counted so far, by limit and key.
    let mut earlier: HashMap<(&'static str, String), u64> = HashMap::new();
    for (i, n) in news.iter().enumerate().filter(|(_, n)| n.kind == MessageKind::Otp) {
        let destination = n.destination.clone();
        let prefix = prefix_of(&n.destination);
        let by_number = |tx: &WriteTx<'_>, since| guardrail::otp_to_number(tx, &destination, since);
        let by_prefix = |tx: &WriteTx<'_>, since| match &prefix {
            Some(p) => guardrail::otp_to_prefix(tx, p, since),
            None => Ok((0, None)),
        };
        let key = n.api_key_id;
        let by_key = |tx: &WriteTx<'_>, since| match key {
            Some(k) => guardrail::otp_by_key(tx, k, since),
            None => Ok((0, None)),
        };
        let limits = [
            Limit {
                what: "number",
                key: n.destination.clone(),
                max: rules.otp_per_number,
                window_ms: rules.otp_window_ms,
                count: &by_number,
            },
            Limit {
                what: "prefix",
                key: prefix.clone().unwrap_or_default(),
                max: rules.otp_per_prefix_hour,
                window_ms: HOUR_MS,
                count: &by_prefix,
            },
            Limit {
                what: "key",
                key: key.map(|k| k.to_string()).unwrap_or_default(),
                max: rules.otp_per_key_hour,
                window_ms: HOUR_MS,
                count: &by_key,
            },
        ];
        for l in limits {
            if l.max == 0 || l.key.is_empty() {
                continue;
            }
            let before = earlier.entry((l.what, l.key.clone())).or_default();
            let (stored, oldest) = (l.count)(tx, now - l.window_ms)?;
            if stored + *before < u64::from(l.max) {
                *before += 1;
                continue;
            }
            // One more fits once the oldest code counted leaves the window.
            let retry_ms = oldest.map_or(l.window_ms, |o| (o + l.window_ms - now).max(1_000));
            return Ok(Err(refusal(i, news.len(), n, &l, prefix.as_deref(), retry_ms)));
        }
    }
    Ok(Ok(()))
}

fn refusal(i: usize, len: usize, n: &NewMessage, l: &Limit<'_>, prefix: Option<&str>, retry_ms: i64) -> Refusal {
    let minutes = l.window_ms / 60_000;
    let whom = match l.what {
        "number" => format!(
            "{} may be sent {} one-time codes within {minutes} minutes",
            n.destination, l.max
        ),
        "prefix" => format!(
            "numbers starting with {} may be sent {} one-time codes an hour",
            prefix.unwrap_or_default(),
            l.max
        ),
        _ => format!("this API key may ask for {} one-time codes an hour", l.max),
    };
    let retry_after_secs = (retry_ms as u64).div_ceil(1000);
    let message =
        format!("{whom}, and that many were asked for: try again in {retry_after_secs} s (nothing was stored)");
    let country = n.country.clone().unwrap_or_default();
    let e = error(
        field(i, len, "destination"),
        FieldCode::VelocityLimit,
        message,
        &[
            ("limit", l.what.to_owned()),
            ("max", l.max.to_string()),
            ("minutes", minutes.to_string()),
            ("retry_after", retry_after_secs.to_string()),
        ],
    );
    let mut details = serde_json::json!({
        "reason": "velocity_limit", "limit": l.what, "max": l.max, "minutes": minutes, "country": country,
    });
    if l.what == "prefix" {
        details["prefix"] = prefix.unwrap_or_default().into();
    }
    Refusal {
        reason: GuardrailReason::VelocityLimit,
        errors: vec![e],
        retry_after_secs: Some(retry_after_secs),
        countries: vec![country],
        details,
    }
}

#[cfg(test)]
mod tests {
    use super::prefix_of;

    #[test]
    fn a_prefix_is_the_country_code_and_seven_digits() {
        assert_eq!(prefix_of("+33612345678").as_deref(), Some("+336123456"));
        assert_eq!(prefix_of("+447400123456").as_deref(), Some("+447400123"));
        assert_eq!(prefix_of("+79161234567").as_deref(), Some("+79161234"));
        assert_eq!(prefix_of("+3312345").as_deref(), None);
        assert_eq!(prefix_of("12345"), None);
    }
}
