//! The message list's phone-number filter, read as people type a number, into what the store
//! searches (`MessageFilter::destination`): the whole number in E.164, its beginning (`…*`), or
//! its end (`*…`).

use phonenumber::metadata::DATABASE;

use super::ViewError;
use crate::intake::{is_separator, known_region, normalize_destination};

/// The fewest digits an ending may have: three would match a thousandth of all numbers, and look
/// like a typing mistake more often than a search.
pub const MIN_SUFFIX_DIGITS: usize = 4;

/// Reads a number as typed in the list's filter, national numbers in `default_region`
/// (`intake.default_region`):
/// - `+33 6 12 34 56 00`, `0033 6 12 34 56 00`: that number (`+33612345600`);
/// - `06 12 34 56 00` (spaces, dots or dashes or none), when it is a valid number in the region:
///   that number; other digits alone (`33612345600`, `3456`), at least [`MIN_SUFFIX_DIGITS`] of
///   them: every number that ends so (`*3456`), which finds an international number written
///   without its `+` too; `*3456` says so explicitly;
/// - `+3361*`, `0612*` (the region's trunk prefix made its country code): every number that
///   starts so.
///
/// `None` for a blank filter; `InvalidFilter` for what is no number, or too short an ending.
pub fn search_number(raw: &str, default_region: Option<&str>) -> Result<Option<String>, ViewError> {
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
    if beginning {
        let start = match international {
            Some(rest) => format!("+{rest}"),
            None => national_beginning(digits, default_region).unwrap_or_else(|| format!("+{digits}")),
        };
        return Ok(Some(format!("{start}*")));
    }
    if let Some(rest) = international {
        let number = format!("+{rest}");
        return Ok(Some(normalize_destination(&number, None).unwrap_or(number)));
    }
    if default_region.is_some() {
        if let Ok(number) = normalize_destination(digits, default_region) {
            return Ok(Some(number));
        }
    }
    ending(written, digits)
}

/// The filter for the numbers that end with `digits`, if there are enough of them.
fn ending(written: &str, digits: &str) -> Result<Option<String>, ViewError> {
    if digits.len() < MIN_SUFFIX_DIGITS {
        return Err(ViewError::InvalidFilter(format!(
            "destination {written:?}: give at least {MIN_SUFFIX_DIGITS} digits to find the numbers that end with \
             them, or the whole number"
        )));
    }
    Ok(Some(format!("*{digits}")))
}

/// The beginning of a national number in E.164: its region's trunk prefix (the 0 of `06…` in
/// France) made the region's country code; `None` without a region, or when the digits do not
/// start with its trunk prefix.
fn national_beginning(digits: &str, default_region: Option<&str>) -> Option<String> {
    let region = known_region(default_region?)?;
    let metadata = DATABASE.by_id(region.as_ref())?;
    let rest = digits.strip_prefix(metadata.national_prefix()?)?;
    Some(format!("+{}{rest}", metadata.country_code()))
}

fn not_a_number(written: &str) -> ViewError {
    ViewError::InvalidFilter(format!(
        "destination {written:?} is not a phone number: write its digits (spaces, dots and dashes are fine), with \
         + in front for an international number, * at the end for every number that starts so, or its last \
         {MIN_SUFFIX_DIGITS} digits or more"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FR: Option<&str> = Some("FR");

    fn read(raw: &str, region: Option<&str>) -> Option<String> {
        search_number(raw, region).unwrap()
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
        }
    }

    #[test]
    fn digits_that_are_no_number_of_the_region_are_an_ending() {
        assert_eq!(read("3456", FR).as_deref(), Some("*3456"));
        assert_eq!(read("34 56", FR).as_deref(), Some("*3456"));
        assert_eq!(read("*3456", FR).as_deref(), Some("*3456"), "said explicitly");
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
        assert_eq!(
            read("0612345600", None).as_deref(),
            Some("*0612345600"),
            "without a default region, a national number can only be an ending"
        );
    }

    #[test]
    fn a_beginning_keeps_its_star_and_a_national_one_gets_its_country_code() {
        assert_eq!(read("+33 61*", FR).as_deref(), Some("+3361*"));
        assert_eq!(read("0033 61*", FR).as_deref(), Some("+3361*"));
        assert_eq!(read("06 12*", FR).as_deref(), Some("+33612*"));
        assert_eq!(
            read("3361*", FR).as_deref(),
            Some("+3361*"),
            "no trunk prefix: read as international"
        );
        assert_eq!(
            read("0612*", None).as_deref(),
            Some("+0612*"),
            "as the store reads it without a region"
        );
    }

    #[test]
    fn a_blank_filter_is_none_and_what_is_no_number_or_too_short_is_refused() {
        assert_eq!(read("  ", FR), None);
        for written in ["martin", "+33 6 12 34 56 0x", "*3456*", "3+456", "*", "+", "**3456"] {
            let e = search_number(written, FR).unwrap_err();
            assert!(e.to_string().contains("is not a phone number"), "{written}: {e}");
        }
        for written in ["345", "*12", "3 4 5"] {
            let e = search_number(written, FR).unwrap_err();
            assert!(e.to_string().contains("at least 4 digits"), "{written}: {e}");
        }
    }
}
