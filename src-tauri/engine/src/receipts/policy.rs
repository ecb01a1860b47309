//! How one connection's provider message ids are compared, and its other receipt rules.
//!
//! An id is normalised to a canonical key: `n:<decimal>` when the connection says the id is a
//! number (hex or decimal), `t:<text>` otherwise. Both sides of a match (the id in the
//! submit_sm_resp and the id in a receipt) are normalised by the connection's declared rules, so
//! "38601fa" (hex response) and "0059113978" (decimal receipt) meet as `n:59113978` only where the
//! operator said that is how the SMSC writes them. Nothing is guessed: an id that does not parse in
//! the declared base stays text and simply matches nothing.

use crate::config::{IdBase, ReceiptSettings};

/// The receipt rules of one connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiptPolicy {
    pub response_id: IdBase,
    pub receipt_id: IdBase,
    pub ignore_case: bool,
    pub ignore_leading_zeros: bool,
    pub accepted_is_final: bool,
    /// Milliseconds after acceptance by which a final receipt is expected.
    pub deadline_ms: i64,
    /// The zone of the dates inside receipts, in minutes east of UTC.
    pub timezone_minutes: i32,
}

impl Default for ReceiptPolicy {
    fn default() -> Self {
        ReceiptPolicy::from(&ReceiptSettings::default())
    }
}

impl From<&ReceiptSettings> for ReceiptPolicy {
    fn from(s: &ReceiptSettings) -> Self {
        ReceiptPolicy {
            response_id: s.response_id,
            receipt_id: s.receipt_id,
            ignore_case: s.id_ignore_case,
            ignore_leading_zeros: s.id_ignore_leading_zeros,
            accepted_is_final: s.accepted_is_final,
            deadline_ms: i64::from(s.deadline_hours.0) * 3_600_000,
            timezone_minutes: s.timezone.minutes,
        }
    }
}

impl ReceiptPolicy {
    /// The settings the state rules depend on.
    pub fn rules(&self) -> crate::receipts::rules::RuleSettings {
        crate::receipts::rules::RuleSettings {
            accepted_is_final: self.accepted_is_final,
        }
    }

    /// The key of an id as a submit_sm_resp gave it.
    pub fn response_key(&self, raw: &str) -> String {
        self.key(raw, self.response_id)
    }

    /// The key of an id as a receipt gave it.
    pub fn receipt_key(&self, raw: &str) -> String {
        self.key(raw, self.receipt_id)
    }

    fn key(&self, raw: &str, base: IdBase) -> String {
        let id = raw.trim().trim_end_matches('\0');
        let number = match base {
            IdBase::Text => None,
            IdBase::Hex => u128::from_str_radix(id, 16).ok(),
            IdBase::Decimal => id.parse::<u128>().ok(),
        };
        if let Some(n) = number {
            return format!("n:{n}");
        }
        let mut text = if self.ignore_case {
            id.to_ascii_lowercase()
        } else {
            id.to_owned()
        };
        if self.ignore_leading_zeros {
            let trimmed = text.trim_start_matches('0');
            text = if trimmed.is_empty() && !text.is_empty() {
                "0".into()
            } else {
                trimmed.to_owned()
            };
        }
        format!("t:{text}")
    }
}

/// Whether the id in a receipt's text and the one in its receipted_message_id TLV name the same
/// message: equal as written, or equal as numbers when one is hex and the other decimal (the TLV
/// usually repeats the submit_sm_resp id, the text often gives it in decimal).
pub fn ids_agree(tlv: &str, text: &str) -> bool {
    let (a, b) = (tlv.trim(), text.trim());
    if a.eq_ignore_ascii_case(b)
        || a.trim_start_matches('0')
            .eq_ignore_ascii_case(b.trim_start_matches('0'))
    {
        return true;
    }
    let hex = |s: &str| u128::from_str_radix(s, 16).ok();
    let dec = |s: &str| s.parse::<u128>().ok();
    matches!((hex(a), dec(b)), (Some(x), Some(y)) if x == y) || matches!((dec(a), hex(b)), (Some(x), Some(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(response: IdBase, receipt: IdBase, case: bool, zeros: bool) -> ReceiptPolicy {
        ReceiptPolicy {
            response_id: response,
            receipt_id: receipt,
            ignore_case: case,
            ignore_leading_zeros: zeros,
            ..ReceiptPolicy::default()
        }
    }

    #[test]
    fn exact_by_default() {
        let p = ReceiptPolicy::default();
        assert_eq!(p.response_key("ABC123"), p.receipt_key("ABC123"));
        assert_ne!(
            p.response_key("ABC123"),
            p.receipt_key("abc123"),
            "case matters unless configured"
        );
        assert_ne!(
            p.response_key("0123"),
            p.receipt_key("123"),
            "leading zeros matter unless configured"
        );
    }

    #[test]
    fn hex_response_matches_decimal_receipt_only_when_declared() {
        let p = policy(IdBase::Hex, IdBase::Decimal, false, false);
        assert_eq!(p.response_key("38601fa"), p.receipt_key("0059113978"));
        assert_eq!(p.response_key("38601FA"), p.receipt_key("59113978"));
        let exact = ReceiptPolicy::default();
        assert_ne!(exact.response_key("38601fa"), exact.receipt_key("59113978"));
    }

    #[test]
    fn case_and_leading_zero_rules() {
        let p = policy(IdBase::Text, IdBase::Text, true, true);
        assert_eq!(p.response_key("00Ab-12"), p.receipt_key("ab-12"));
        assert_eq!(p.response_key("000"), p.receipt_key("0"));
    }

    #[test]
    fn an_id_that_is_not_a_number_in_the_declared_base_stays_text() {
        let p = policy(IdBase::Decimal, IdBase::Decimal, false, false);
        assert_eq!(p.receipt_key("9f2c-uuid"), "t:9f2c-uuid");
    }

    #[test]
    fn tlv_and_text_ids_agree_across_hex_and_decimal() {
        assert!(ids_agree("38601fa", "0059113978"));
        assert!(ids_agree("ABC", "abc"));
        assert!(!ids_agree("38601fa", "12345"));
    }
}
