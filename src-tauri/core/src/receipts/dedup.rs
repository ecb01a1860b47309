//! The de-duplication key of a report: which logical event it carries.
//!
//! - When the provider gives an id for the callback event itself (Twilio Event Streams), the key is
//!   that id: `ev:<event id>`.
//! - Otherwise the key is a fingerprint of the report's stable facts, version 1:
//!   `fp1|<receipted id key>|<stat>|<err>|<done date>|<message_state>|<receipt kind>`, within the
//!   connection. The id is normalised by the connection's id rules (so the same receipt written
//!   with another case or leading zeros is still a repeat where those rules say so); the other
//!   components are taken as written. Local facts (receive time, session, sequence number) are
//!   deliberately left out: a provider that resends a receipt after a reconnect sends the same
//!   facts in a new PDU.
//!
//! Known limit, by design: two genuinely distinct receipts with identical facts (same id, status,
//! error and done date to the minute) are one logical event. That merges nothing that could change
//! a computed state, since they say the same thing.

use crate::domain::ReceiptKind;

/// The components of a key, stored beside it so the decision can be explained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DedupKey {
    pub key: String,
    pub source: KeySource,
    pub receipted_id: Option<String>,
    pub stat: Option<String>,
    pub err: Option<String>,
    pub done_date: Option<String>,
    pub message_state: Option<u8>,
    pub kind: ReceiptKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySource {
    ProviderEventId,
    Fingerprint,
}

impl KeySource {
    pub const fn as_str(self) -> &'static str {
        match self {
            KeySource::ProviderEventId => "provider_event_id",
            KeySource::Fingerprint => "fingerprint",
        }
    }
}

/// Builds the key from the report's facts (`receipted_id` already normalised).
pub fn key(
    event_id: Option<&str>,
    receipted_id: Option<&str>,
    stat: Option<&str>,
    err: Option<&str>,
    done_date: Option<&str>,
    message_state: Option<u8>,
    kind: ReceiptKind,
) -> DedupKey {
    let owned = |s: Option<&str>| s.map(str::to_owned);
    let (key, source) = match event_id.filter(|e| !e.is_empty()) {
        Some(e) => (format!("ev:{e}"), KeySource::ProviderEventId),
        None => {
            let part = |s: Option<&str>| s.unwrap_or("").replace('|', "||");
            let state = message_state.map(|m| m.to_string()).unwrap_or_default();
            (
                format!(
                    "fp1|{}|{}|{}|{}|{}|{}",
                    part(receipted_id),
                    part(stat),
                    part(err),
                    part(done_date),
                    state,
                    kind.as_str()
                ),
                KeySource::Fingerprint,
            )
        }
    };
    DedupKey {
        key,
        source,
        receipted_id: owned(receipted_id),
        stat: owned(stat),
        err: owned(err),
        done_date: owned(done_date),
        message_state,
        kind,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_provider_event_id_wins_when_present() {
        let k = key(
            Some("EV1"),
            Some("t:1"),
            Some("DELIVRD"),
            None,
            None,
            None,
            ReceiptKind::Receipt,
        );
        assert_eq!((k.key.as_str(), k.source), ("ev:EV1", KeySource::ProviderEventId));
    }

    #[test]
    fn the_fingerprint_covers_every_documented_component() {
        let base = key(
            None,
            Some("t:1"),
            Some("DELIVRD"),
            Some("000"),
            Some("2511291201"),
            Some(2),
            ReceiptKind::Receipt,
        );
        let variants = [
            key(
                None,
                Some("t:2"),
                Some("DELIVRD"),
                Some("000"),
                Some("2511291201"),
                Some(2),
                ReceiptKind::Receipt,
            ),
            key(
                None,
                Some("t:1"),
                Some("UNDELIV"),
                Some("000"),
                Some("2511291201"),
                Some(2),
                ReceiptKind::Receipt,
            ),
            key(
                None,
                Some("t:1"),
                Some("DELIVRD"),
                Some("001"),
                Some("2511291201"),
                Some(2),
                ReceiptKind::Receipt,
            ),
            key(
                None,
                Some("t:1"),
                Some("DELIVRD"),
                Some("000"),
                Some("2511291202"),
                Some(2),
                ReceiptKind::Receipt,
            ),
            key(
                None,
                Some("t:1"),
                Some("DELIVRD"),
                Some("000"),
                Some("2511291201"),
                Some(5),
                ReceiptKind::Receipt,
            ),
            key(
                None,
                Some("t:1"),
                Some("DELIVRD"),
                Some("000"),
                Some("2511291201"),
                Some(2),
                ReceiptKind::Intermediate,
            ),
        ];
        for v in &variants {
            assert_ne!(
                v.key, base.key,
                "a differing component must give another logical event: {v:?}"
            );
        }
        let again = key(
            None,
            Some("t:1"),
            Some("DELIVRD"),
            Some("000"),
            Some("2511291201"),
            Some(2),
            ReceiptKind::Receipt,
        );
        assert_eq!(again.key, base.key, "the same facts are the same logical event");
    }

    #[test]
    fn separators_inside_values_cannot_forge_another_key() {
        let a = key(None, Some("t:a|b"), Some("X"), None, None, None, ReceiptKind::Receipt);
        let b = key(None, Some("t:a"), Some("b|X"), None, None, None, ReceiptKind::Receipt);
        assert_ne!(a.key, b.key);
    }
}
