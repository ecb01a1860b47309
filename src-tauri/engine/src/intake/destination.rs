//! Phone numbers as people write them, to E.164.

use crate::said::FieldCode;
use phonenumber::country::Id;
use phonenumber::metadata::DATABASE;
use phonenumber::{Mode, ParseError};

use super::{codes, quote, FieldError};

/// National numbers this short are service short codes, which smsdesk does not send to.
const SHORT_CODE_MAX_DIGITS: usize = 6;

/// Characters a written phone number may hold besides digits: a leading +, and separators (dashes
/// pasted from word processors included).
pub(crate) fn is_separator(c: char) -> bool {
    matches!(c, '-' | '.' | '(' | ')' | '/' | '\u{2010}'..='\u{2015}' | '\u{2212}') || c.is_whitespace()
}

/// The phone-number region for a two-letter code (any case), when the numbering data has one.
/// Checked before parsing, because the parser assumes its region has data.
pub fn known_region(code: &str) -> Option<Id> {
    let upper = code.trim().to_ascii_uppercase();
    let id: Id = upper.parse().ok()?;
    DATABASE.by_id(id.as_ref()).map(|_| id)
}

/// Set once [`warm_up`] has loaded the numbering data.
static NUMBERING_READY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Loads the numbering data, on a thread of its own, and reads one number as the office writes
/// them (national to `region`, when set) and one in international form. The phone-number crate
/// reads its numbering data on first use: some 80 ms on the reference machine, which the first
/// message handed in after each start waited for (the slowest request of an intake run, and,
/// as wrk corrects for requests it could not send meanwhile, its p99 too). The engine starts
/// this first and waits for it before it listens. `None` when no thread could be started (the
/// first number read then loads the data).
pub fn warm_up(region: Option<String>) -> Option<std::thread::JoinHandle<()>> {
    let spawned = std::thread::Builder::new()
        .name("smsdesk-numbering".into())
        .spawn(move || {
            let _ = read_destination("+33612345678", None);
            if let Some(region) = region.as_deref() {
                let _ = read_destination("0612345678", Some(region));
            }
            NUMBERING_READY.store(true, std::sync::atomic::Ordering::Release);
        });
    spawned
        .inspect_err(|e| tracing::debug!(error = %e, "cannot load the numbering data ahead of the first request"))
        .ok()
}

/// Whether [`warm_up`] has loaded the numbering data.
pub fn numbering_ready() -> bool {
    NUMBERING_READY.load(std::sync::atomic::Ordering::Acquire)
}

fn error(code: FieldCode, message: String) -> FieldError {
    FieldError::new("destination", code, message)
}

/// Reads a phone number written in any common way ("+33 6 12 34 56 78", "0033612345678",
/// "(06) 12-34-56-78" with region FR) and returns it in E.164 ("+33612345678").
///
/// This is the one reading of a whole number: intake (the API, compose, batches, the CSV
/// preview), the opt-out list, the inbox's thread lookup and senders, and the searches
/// ([`crate::views::search_number`]) all go through it, with `intake.default_region`.
///
/// A number with neither + nor 00 in front is read as national to `default_region`; without one
/// it is refused as `country_needed`. A leading 00 is read as the international prefix whatever the
/// region. Short codes and alphanumeric addresses are refused as `invalid_number`, as is any
/// number the numbering plan of its country does not allow.
pub fn normalize_destination(raw: &str, default_region: Option<&str>) -> Result<String, FieldError> {
    read_destination(raw, default_region).map(|(e164, _)| e164)
}

/// [`normalize_destination`], with the number's country (two letters) when the numbering data
/// tells it: read from the same parse, for the message to keep (the delivery report groups by it).
pub fn read_destination(raw: &str, default_region: Option<&str>) -> Result<(String, Option<String>), FieldError> {
    let written = raw.trim();
    let digits = digits_of(raw, written)?;
    let international = if written.starts_with('+') {
        Some(format!("+{digits}"))
    } else {
        digits.strip_prefix("00").map(|rest| format!("+{rest}"))
    };
    let national = international.is_none();
    let parsed = match international {
        Some(number) => phonenumber::parse(None, number),
        None => phonenumber::parse(Some(national_region(raw, &digits, default_region)?), &digits),
    };
    let invalid = |why: String| {
        if national && digits.len() <= SHORT_CODE_MAX_DIGITS {
            short_code(raw)
        } else {
            error(
                codes::INVALID_NUMBER,
                format!("destination {} is not a valid phone number: {why}", quote(raw)),
            )
        }
    };
    let number = parsed.map_err(|e| invalid(parse_failure(e)))?;
    if !number.is_valid() {
        let country = number
            .country()
            .id()
            .map(|id| format!(" ({})", id.as_ref()))
            .unwrap_or_default();
        return Err(invalid(format!(
            "it has the wrong length, or is in a range not in use, for country code +{}{country}",
            number.code().value()
        )));
    }
    let country = number.country().id().map(|id| id.as_ref().to_owned());
    Ok((number.format().mode(Mode::E164).to_string(), country))
}

/// The digits of a number as written (`written` is `raw` trimmed): refused when it is empty,
/// holds anything but digits, separators and a leading +, or has too few or too many digits.
fn digits_of(raw: &str, written: &str) -> Result<String, FieldError> {
    if written.is_empty() {
        return Err(error(
            codes::REQUIRED,
            "destination is required: give the phone number to send to".into(),
        ));
    }
    if let Some(bad) = written
        .chars()
        .enumerate()
        .find(|&(i, c)| !(c.is_ascii_digit() || is_separator(c) || (c == '+' && i == 0)))
        .map(|(_, c)| c)
    {
        let why = if bad == '+' {
            "a + may only come first".to_string()
        } else {
            format!("it contains {}", quote(&bad.to_string()))
        };
        return Err(error(
            codes::INVALID_NUMBER,
            format!(
                "destination {} is not a phone number: {why}; write digits, with + or 00 and the country code in \
                 front (short codes and sender names cannot be sent to)",
                quote(raw)
            ),
        ));
    }
    let digits: String = written.chars().filter(char::is_ascii_digit).collect();
    if digits.len() < 3 {
        return Err(error(
            codes::INVALID_NUMBER,
            format!("destination {} has too few digits to be a phone number", quote(raw)),
        ));
    }
    // E.164 allows 15 digits; a few more leave room for the 00 prefix and a national 0.
    if digits.len() > 18 {
        return Err(error(
            codes::INVALID_NUMBER,
            format!(
                "destination {} has {} digits, more than any phone number has",
                quote(raw),
                digits.len()
            ),
        ));
    }
    Ok(digits)
}

/// The region a national number (no + nor 00) is read in: `default_region`, when it is one the
/// numbering data knows. Without one, a number as short as a short code is refused as such, and
/// any other as `country_needed`.
fn national_region(raw: &str, digits: &str, default_region: Option<&str>) -> Result<Id, FieldError> {
    let region = default_region.filter(|r| !r.trim().is_empty());
    if let Some(id) = region.and_then(known_region) {
        return Ok(id);
    }
    if digits.len() <= SHORT_CODE_MAX_DIGITS {
        return Err(short_code(raw));
    }
    Err(country_needed("destination", raw, default_region))
}

/// The refusal of a national number (`raw`, in `field`) where no office country says which
/// country it is in: `default_region` is not set, or is no country the numbering data knows.
pub(crate) fn country_needed(field: &str, raw: &str, default_region: Option<&str>) -> FieldError {
    let setting = match default_region.filter(|r| !r.trim().is_empty()) {
        Some(r) => format!(
            "`intake.default_region` ({}) is not a country code numbers are known for",
            quote(r)
        ),
        None => "no `intake.default_region` is set".to_string(),
    };
    FieldError::new(
        field,
        codes::COUNTRY_NEEDED,
        format!(
            "{field} {} has no country code and {setting}: write it internationally (+33 6 12 34 56 78 \
             or 0033 6 12 34 56 78), or set `intake.default_region` to the country of national numbers",
            quote(raw)
        ),
    )
}

/// A national number as short as a short code.
fn short_code(raw: &str) -> FieldError {
    error(
        codes::INVALID_NUMBER,
        format!(
            "destination {} looks like a short code, which cannot be sent to: give a full phone number",
            quote(raw)
        ),
    )
}

/// Why the parser refused a number, in words.
fn parse_failure(e: ParseError) -> String {
    match e {
        ParseError::InvalidCountryCode => "its country code is not one in use".to_string(),
        ParseError::TooShortAfterIdd | ParseError::TooShortNsn | ParseError::NoNumber => "it is too short".to_string(),
        ParseError::TooLong => "it is too long".to_string(),
        other => other.to_string(),
    }
}
