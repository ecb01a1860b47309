//! A phone number typed in a search field (the message list's, the inbox's, the opt-out list's),
//! read into what the store searches: the whole number in E.164, its beginning (`…*`), or its
//! last digits (`*…`). A whole number is read by the one reading of intake
//! ([`normalize_destination`]), national numbers in the office's country
//! (`intake.default_region`), so that a number found by a search is the number a message to it
//! was sent to.

use phonenumber::metadata::DATABASE;

use super::ViewError;
use crate::intake::{country_needed, is_separator, known_region, normalize_destination, FieldError};

/// The fewest digits an ending may have: three would match a thousandth of all numbers, and look
/// like a typing mistake more often than a search.
pub const MIN_SUFFIX_DIGITS: usize = 4;

/// Why a typed number cannot be searched.
#[derive(Debug, thiserror::Error)]
pub enum NumberSearchError {
    /// What was typed is no number, or too short an ending.
    #[error(transparent)]
    Filter(#[from] ViewError),
    /// A national number, and no office country says which country it is in
    /// (`country_needed`).
    #[error("{0}")]
    Field(FieldError),
}

/// Whether `q` is written as a number (digits, with separators, a leading `+` or `*` and a
/// trailing `*`) rather than as words: the inbox's and the opt-out list's one search field takes
/// both.
pub fn looks_like_number(q: &str) -> bool {
    let q = q.trim();
    q.chars().any(|c| c.is_ascii_digit())
        && q.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '+' | '*') || is_separator(c))
}

/// Reads a number as typed in a search field (`field`, named in a refusal), national numbers in
/// `default_region` (`intake.default_region`):
/// - `+33 6 12 34 56 00`, `0033 6 12 34 56 00`: that number (`+33612345600`);
/// - `06 12 34 56 00` (spaces, dots or dashes or none), when it is a valid number in the region:
///   that number; the beginning of a national number (`06 12 34`, or `0612*`): every number
///   that starts so, its trunk prefix made the region's country code (`+3361234*`);
/// - other digits alone (`33612345600`, `3456`), at least [`MIN_SUFFIX_DIGITS`] of them: every
///   number that ends so (`*3456`), which finds an international number written without its `+`
///   too; `*3456` says so explicitly; `+3361*`: every number that starts so.
///
/// A national number (a leading 0, not 00) without a region the numbering data knows is refused
/// as `country_needed`, never searched as digits that match nothing. `None` for a blank field;
/// `Filter` for what is no number, or too short an ending.
pub fn search_number(
    raw: &str,
    default_region: Option<&str>,
    field: &str,
) -> Result<Option<String>, NumberSearchError> {
    let written = raw.trim();
    let bare: String = written.chars().filter(|&c| !is_separator(c)).collect();
    if bare.is_empty() {
        return Ok(None);
    }
    let digits_only = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    if let Some(end) = bare.strip_prefix('*') {
        return match digits_only(end) {
            true => ending(written, end),
            false => Err(not_a_number(written)),
        };
    }
    let (body, beginning) = match bare.strip_suffix('*') {
        Some(body) => (body, true),
        None => (bare.as_str(), false),
    };
    let (plus, digits) = match body.strip_prefix('+') {
        Some(digits) => (true, digits),
        None => (false, body),
    };
    if !digits_only(digits) {
        return Err(not_a_number(written));
    }
    let international = if plus { Some(digits) } else { digits.strip_prefix("00") };
    if let Some(rest) = international {
        let number = format!("+{rest}");
        return Ok(Some(match beginning {
            true => format!("{number}*"),
            false => normalize_destination(&number, None).unwrap_or(number),
        }));
    }
    match default_region.and_then(known_region) {
        Some(region) => {
            if !beginning {
                if let Ok(number) = normalize_destination(digits, Some(region.as_ref())) {
                    return Ok(Some(number));
                }
            }
            if let Some(start) = national_beginning(digits, region.as_ref()) {
                return Ok(Some(format!("{start}*")));
            }
        }
        None if digits.starts_with('0') => {
            return Err(NumberSearchError::Field(country_needed(field, written, default_region)));
        }
        None => {}
    }
    match beginning {
        true => Ok(Some(format!("+{digits}*"))),
        false => ending(written, digits),
    }
}

/// The filter for the numbers that end with `digits`, if there are enough of them.
fn ending(written: &str, digits: &str) -> Result<Option<String>, NumberSearchError> {
    if digits.len() < MIN_SUFFIX_DIGITS {
        return Err(ViewError::InvalidFilter(format!(
            "number {written:?}: give at least {MIN_SUFFIX_DIGITS} digits to find the numbers that end with \
             them, or the whole number"
        ))
        .into());
    }
    Ok(Some(format!("*{digits}")))
}

/// The beginning of a national number in E.164: its region's trunk prefix (the 0 of `06…` in
/// France) made the region's country code; `None` when the digits do not start with the region's
/// trunk prefix (or it has none).
fn national_beginning(digits: &str, region: &str) -> Option<String> {
    let metadata = DATABASE.by_id(region)?;
    let rest = digits.strip_prefix(metadata.national_prefix()?)?;
    Some(format!("+{}{rest}", metadata.country_code()))
}

fn not_a_number(written: &str) -> NumberSearchError {
    ViewError::InvalidFilter(format!(
        "{written:?} is not a phone number: write its digits (spaces, dots and dashes are fine), with + in \
         front for an international number, * at the end for every number that starts so, or its last \
         {MIN_SUFFIX_DIGITS} digits or more"
    ))
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FR: Option<&str> = Some("FR");

    fn read(raw: &str, region: Option<&str>) -> Option<String> {
        search_number(raw, region, "destination").unwrap()
    }

    #[test]
    fn a_whole_number_is_read_as_people_write_it_national_ones_in_the_default_region() {
        for written in [
            "06 12 34 56 00",
            "06.12.34.56.00",
            "06-12-34-56-00",
            "0612345600",
            "+33 6 12 34 56 00",
            "+33612345600",
            "0033 6 12 34 56 00",
            " (06) 12 34 56 00 ",
        ] {
            assert_eq!(read(written, FR).as_deref(), Some("+33612345600"), "{written}");
            assert_eq!(read(written, Some("fr")).as_deref(), Some("+33612345600"), "{written}");
        }
    }

    #[test]
    fn digits_that_are_no_number_of_the_region_are_an_ending() {
        assert_eq!(read("3456", FR).as_deref(), Some("*3456"));
        assert_eq!(read("34 56", FR).as_deref(), Some("*3456"));
        assert_eq!(read("*3456", FR).as_deref(), Some("*3456"), "said explicitly");
        assert_eq!(read("*0612", None).as_deref(), Some("*0612"), "said explicitly");
        assert_eq!(
            read("12345600", FR).as_deref(),
            Some("*12345600"),
            "8 digits: no French number"
        );
        assert_eq!(
            read("447911123456", FR).as_deref(),
            Some("*447911123456"),
            "an international number without its + is found as the end of itself"
        );
        assert_eq!(read("33612345600", None).as_deref(), Some("*33612345600"));
    }

    #[test]
    fn a_beginning_keeps_its_star_and_a_national_one_gets_its_country_code() {
        assert_eq!(read("+33 61*", FR).as_deref(), Some("+3361*"));
        assert_eq!(read("0033 61*", FR).as_deref(), Some("+3361*"));
        assert_eq!(read("06 12*", FR).as_deref(), Some("+33612*"));
        assert_eq!(
            read("06 12 34", FR).as_deref(),
            Some("+3361234*"),
            "a national number cut short is its beginning"
        );
        assert_eq!(
            read("3361*", FR).as_deref(),
            Some("+3361*"),
            "no trunk prefix: read as international"
        );
    }

    #[test]
    fn a_national_number_without_a_country_is_refused_as_country_needed() {
        for (written, region) in [
            ("06 12 34 56 00", None),
            ("0612345600", Some("")),
            ("06 12 34 56 00", Some("XX")),
            ("0612*", None),
            ("06 12 34", None),
        ] {
            match search_number(written, region, "q") {
                Err(NumberSearchError::Field(e)) => {
                    assert_eq!(
                        (e.field.as_str(), e.code.as_str()),
                        ("q", "country_needed"),
                        "{written}"
                    );
                }
                other => panic!("{written:?} in {region:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_blank_filter_is_none_and_what_is_no_number_or_too_short_is_refused() {
        assert_eq!(read("  ", FR), None);
        for written in ["martin", "+33 6 12 34 56 0x", "*3456*", "3+456", "*", "+", "**3456"] {
            let e = search_number(written, FR, "destination").unwrap_err();
            assert!(e.to_string().contains("is not a phone number"), "{written}: {e}");
        }
        for written in ["345", "*12", "3 4 5"] {
            let e = search_number(written, FR, "destination").unwrap_err();
            assert!(e.to_string().contains("at least 4 digits"), "{written}: {e}");
        }
    }

    #[test]
    fn numbers_and_words_are_told_apart() {
        for q in ["06 12 34", "+33 6*", "*3456", "(06) 12-34"] {
            assert!(looks_like_number(q), "{q}");
        }
        for q in ["arret", "stop 2", "", "+", "Arrêt"] {
            assert!(!looks_like_number(q), "{q}");
        }
    }
}
