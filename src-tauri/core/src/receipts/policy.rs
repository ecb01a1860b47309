//! How one connection's provider message ids are compared, and its other receipt rules.
//!
//! An id is normalised to a canonical key: `n:<decimal>` where the connection says that place
//! writes the id as a number (hex or decimal), `t:<text>` otherwise. An id appears in three places,
//! each with its declared format: the submit_sm_resp, a receipt's receipted_message_id TLV (by
//! default as the response writes it) and the receipt text (`id:...`). So "38601fa" (hex response)
//! and "0059113978" (decimal receipt text) meet as `n:59113978` only where the operator said that
//! is how the SMSC writes them. Nothing is guessed: an id that does not parse in the declared base
//! stays text and simply matches nothing.

use crate::config::{IdBase, ReceiptSettings, TlvIdBase};
use crate::domain::{IdSource, MessageKind};

/// The receipt rules of one connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiptPolicy {
    /// How the submit_sm_resp writes the id.
    pub response_id: IdBase,
    /// How the receipt text writes it (and an HTTP provider's id field).
    pub receipt_id: IdBase,
    /// How the receipted_message_id TLV writes it.
    pub tlv_id: IdBase,
    pub ignore_case: bool,
    pub ignore_leading_zeros: bool,
    pub accepted_is_final: bool,
    /// Milliseconds after acceptance by which a final receipt is expected, per kind (otp,
    /// transactional, bulk).
    pub deadline_ms: [i64; 3],
    /// The zone of the dates inside receipts, in minutes east of UTC.
    pub timezone_minutes: i32,
    /// How long a receipt that matches no message waits, at most, before it opens an exception.
    pub uncorrelated_grace_ms: i64,
    /// What is done with messages from handsets that arrive among the reports.
    pub inbox: std::sync::Arc<crate::inbox::InboxRules>,
    /// The rules of connections that set id rules of their own ([`ReceiptPolicy::on`]).
    pub connections: std::sync::Arc<Vec<(String, ReceiptPolicy)>>,
}

impl Default for ReceiptPolicy {
    fn default() -> Self {
        ReceiptPolicy::from(&ReceiptSettings::default())
    }
}

impl From<&ReceiptSettings> for ReceiptPolicy {
    fn from(s: &ReceiptSettings) -> Self {
        let minutes = |m: crate::config::AtLeastOne| i64::from(m.0) * 60_000;
        ReceiptPolicy {
            response_id: s.response_id,
            receipt_id: s.receipt_id,
            tlv_id: match s.tlv_id {
                TlvIdBase::SameAsResponse => s.response_id,
                TlvIdBase::Base(b) => b,
            },
            ignore_case: s.id_ignore_case,
            ignore_leading_zeros: s.id_ignore_leading_zeros,
            accepted_is_final: s.accepted_is_final,
            deadline_ms: [
                minutes(s.otp_deadline_minutes),
                minutes(s.transactional_deadline_minutes),
                minutes(s.bulk_deadline_minutes),
            ],
            timezone_minutes: s.timezone.minutes,
            uncorrelated_grace_ms: i64::from(s.uncorrelated_grace_seconds) * 1_000,
            inbox: std::sync::Arc::default(),
            connections: std::sync::Arc::default(),
        }
    }
}

impl ReceiptPolicy {
    /// The receipt rules of the configuration, with its rules for messages from handsets.
    /// Each connection's id rules are its own where it sets them (`[connections.<name>]`), the
    /// section's otherwise.
    pub fn for_config(c: &crate::config::Config) -> ReceiptPolicy {
        let inbox = std::sync::Arc::new(crate::inbox::InboxRules::from_config(c));
        let connections = c
            .connection_list()
            .into_iter()
            .filter_map(|link| {
                let own = c.for_connection(&link.name)?;
                let policy = ReceiptPolicy {
                    inbox: inbox.clone(),
                    ..ReceiptPolicy::from(&own.receipts)
                };
                (own.receipts != c.receipts).then_some((link.name, policy))
            })
            .collect();
        ReceiptPolicy {
            inbox,
            connections: std::sync::Arc::new(connections),
            ..ReceiptPolicy::from(&c.receipts)
        }
    }

    /// The rules on `connection`: its own, or these.
    pub fn on(&self, connection: &str) -> &ReceiptPolicy {
        self.connections
            .iter()
            .find(|(name, _)| name == connection)
            .map_or(self, |(_, p)| p)
    }
}

impl ReceiptPolicy {
    /// The settings the state rules depend on.
    pub fn rules(&self) -> crate::receipts::rules::RuleSettings {
        crate::receipts::rules::RuleSettings {
            accepted_is_final: self.accepted_is_final,
        }
    }

    /// The receipt deadline of a message kind, in milliseconds after acceptance.
    pub fn deadline_of(&self, kind: MessageKind) -> i64 {
        self.deadline_ms[kind.priority() as usize]
    }

    /// The key of an id as a submit_sm_resp gave it.
    pub fn response_key(&self, raw: &str) -> String {
        self.key(raw, self.response_id)
    }

    /// The key of an id as a receipt gave it, read from `source`.
    pub fn receipt_key(&self, raw: &str, source: IdSource) -> String {
        self.key(raw, self.base_of(source))
    }

    fn base_of(&self, source: IdSource) -> IdBase {
        match source {
            IdSource::Tlv => self.tlv_id,
            IdSource::Text | IdSource::Http => self.receipt_id,
        }
    }

    /// Whether a receipt's TLV id and its text id name the same message under these rules (each
    /// read in the format declared for its place).
    pub fn tlv_and_text_agree(&self, tlv: &str, text: &str) -> bool {
        self.receipt_key(tlv, IdSource::Tlv) == self.receipt_key(text, IdSource::Text)
    }

    /// The id rules in words, as kept with a connection's stored keys: when they change, the keys
    /// are made again.
    pub fn id_rules(&self) -> String {
        format!(
            "response={} tlv={} text={} ignore_case={} ignore_leading_zeros={}",
            self.response_id.as_str(),
            self.tlv_id.as_str(),
            self.receipt_id.as_str(),
            self.ignore_case,
            self.ignore_leading_zeros
        )
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

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(response: IdBase, receipt: IdBase, case: bool, zeros: bool) -> ReceiptPolicy {
        ReceiptPolicy {
            response_id: response,
            receipt_id: receipt,
            tlv_id: response,
            ignore_case: case,
            ignore_leading_zeros: zeros,
            ..ReceiptPolicy::default()
        }
    }

    #[test]
    fn exact_by_default() {
        let p = ReceiptPolicy::default();
        assert_eq!(p.response_key("ABC123"), p.text_key("ABC123"));
        assert_ne!(
            p.response_key("ABC123"),
            p.text_key("abc123"),
            "case matters unless configured"
        );
        assert_ne!(
            p.response_key("0123"),
            p.text_key("123"),
            "leading zeros matter unless configured"
        );
    }

    #[test]
    fn hex_response_matches_decimal_receipt_only_when_declared() {
        let p = policy(IdBase::Hex, IdBase::Decimal, false, false);
        assert_eq!(p.response_key("38601fa"), p.text_key("0059113978"));
        assert_eq!(p.response_key("38601FA"), p.text_key("59113978"));
        let exact = ReceiptPolicy::default();
        assert_ne!(exact.response_key("38601fa"), exact.text_key("59113978"));
    }

    #[test]
    fn case_and_leading_zero_rules() {
        let p = policy(IdBase::Text, IdBase::Text, true, true);
        assert_eq!(p.response_key("00Ab-12"), p.text_key("ab-12"));
        assert_eq!(p.response_key("000"), p.text_key("0"));
    }

    #[test]
    fn an_id_that_is_not_a_number_in_the_declared_base_stays_text() {
        let p = policy(IdBase::Decimal, IdBase::Decimal, false, false);
        assert_eq!(p.text_key("9f2c-uuid"), "t:9f2c-uuid");
    }

    impl ReceiptPolicy {
        fn text_key(&self, raw: &str) -> String {
            self.receipt_key(raw, IdSource::Text)
        }
    }

    /// Every combination of formats across the three places an id appears (the submit response,
    /// the receipted_message_id TLV, the receipt text), declared as the SMSC writes them: a place
    /// declared hex or decimal writes the number in that base (hex in either case), a place
    /// declared text writes the SMSC's own token, the same wherever it appears. Two places meet
    /// when both write the number, whatever the bases, or both write the token; a token never
    /// meets a number, since nothing is guessed.
    #[test]
    fn every_combination_of_formats_across_response_tlv_and_text_matches_as_declared() {
        const N: u128 = 0x038601FA;
        const TOKEN: &str = "0059113978";
        let bases = [IdBase::Text, IdBase::Hex, IdBase::Decimal];
        let write = |b: IdBase, upper: bool| match b {
            IdBase::Text => TOKEN.to_owned(),
            IdBase::Hex if upper => format!("{N:X}"),
            IdBase::Hex => format!("{N:x}"),
            IdBase::Decimal => format!("{N:012}"),
        };
        let numeric = |b: IdBase| b != IdBase::Text;
        let meet = |a: IdBase, b: IdBase| numeric(a) == numeric(b);
        let mut combinations = 0;
        for response in bases {
            for tlv in bases {
                for text in bases {
                    let p = ReceiptPolicy {
                        response_id: response,
                        tlv_id: tlv,
                        receipt_id: text,
                        ..ReceiptPolicy::default()
                    };
                    let r = p.response_key(&write(response, false));
                    let t = p.receipt_key(&write(tlv, true), IdSource::Tlv);
                    let x = p.receipt_key(&write(text, false), IdSource::Text);
                    let case = format!("response {response:?}, tlv {tlv:?}, text {text:?}");
                    assert_eq!(
                        r == t,
                        meet(response, tlv),
                        "{case}: the TLV's id against the response's"
                    );
                    assert_eq!(
                        r == x,
                        meet(response, text),
                        "{case}: the text's id (no TLV) against the response's"
                    );
                    assert_eq!(
                        p.tlv_and_text_agree(&write(tlv, true), &write(text, false)),
                        meet(tlv, text),
                        "{case}: the TLV and the text agree"
                    );
                    combinations += 1;
                }
            }
        }
        assert_eq!(combinations, 27);
    }

    #[test]
    fn the_tlv_reads_as_the_response_unless_told_otherwise() {
        let s = ReceiptSettings {
            response_id: IdBase::Hex,
            receipt_id: IdBase::Decimal,
            ..ReceiptSettings::default()
        };
        let p = ReceiptPolicy::from(&s);
        assert_eq!(p.tlv_id, IdBase::Hex);
        assert_eq!(p.receipt_key("38601fa", IdSource::Tlv), p.response_key("38601FA"));
        assert_eq!(p.receipt_key("0059113978", IdSource::Text), p.response_key("38601fa"));
        let own = ReceiptPolicy::from(&ReceiptSettings {
            tlv_id: TlvIdBase::Base(IdBase::Decimal),
            ..s
        });
        assert_eq!(own.receipt_key("59113978", IdSource::Tlv), own.response_key("38601fa"));
    }
}
