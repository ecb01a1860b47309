//! Reading a handset's address as a phone number in E.164, by its type of number (TON). The number
//! is what threads replies and what the opt-out list holds, so it is read only where the address
//! says how: a reading that needs a guess gives none, and the address stays as received.

use crate::intake::normalize_destination;

/// TON values of SMPP 3.4 §5.2.5.
const TON_UNKNOWN: u8 = 0;
const TON_INTERNATIONAL: u8 = 1;
const TON_NATIONAL: u8 = 2;

/// The sender's number in E.164, when its address reads as one:
/// - written with `+` or `00`: international, whatever the TON;
/// - TON international: the digits are the international number;
/// - TON national, or TON unknown with a leading 0: a national number of `region`;
/// - TON unknown without a leading 0: an international number written without `+` (what SMSCs
///   that leave the TON unknown send), when it is a valid number; otherwise none;
/// - anything else (alphanumeric senders, short codes, abbreviated numbers): none.
pub fn phone_of(address: &str, ton: Option<u8>, region: Option<&str>) -> Option<String> {
    let written = address.trim();
    if written.is_empty() || !written.chars().all(|c| c.is_ascii_digit() || c == '+') {
        return None;
    }
    let digits: String = written.chars().filter(char::is_ascii_digit).collect();
    if written.starts_with('+') || digits.starts_with("00") {
        return normalize_destination(written, None).ok();
    }
    match ton.unwrap_or(TON_UNKNOWN) {
        TON_INTERNATIONAL => normalize_destination(&format!("+{digits}"), None).ok(),
        TON_NATIONAL => normalize_destination(&digits, region).ok(),
        TON_UNKNOWN if digits.starts_with('0') => normalize_destination(&digits, region).ok(),
        TON_UNKNOWN => normalize_destination(&format!("+{digits}"), None).ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::phone_of;

    #[test]
    fn each_type_of_number_reads_as_it_says() {
        assert_eq!(phone_of("33612345678", Some(1), None).as_deref(), Some("+33612345678"));
        assert_eq!(phone_of("+33612345678", Some(0), None).as_deref(), Some("+33612345678"));
        assert_eq!(
            phone_of("0033612345678", Some(2), Some("GB")).as_deref(),
            Some("+33612345678")
        );
        assert_eq!(
            phone_of("0612345678", Some(2), Some("FR")).as_deref(),
            Some("+33612345678")
        );
        assert_eq!(
            phone_of("0612345678", Some(0), Some("FR")).as_deref(),
            Some("+33612345678")
        );
        assert_eq!(phone_of("79161234567", None, None).as_deref(), Some("+79161234567"));
    }

    #[test]
    fn what_needs_a_guess_reads_as_no_number() {
        // National without a region, alphanumeric senders, short codes, abbreviated numbers.
        assert_eq!(phone_of("0612345678", Some(2), None), None);
        assert_eq!(phone_of("0612345678", Some(0), None), None);
        assert_eq!(phone_of("SHOP", Some(5), None), None);
        assert_eq!(phone_of("36180", Some(3), None), None);
        assert_eq!(phone_of("12", Some(0), None), None);
        assert_eq!(phone_of("", Some(1), None), None);
    }
}
