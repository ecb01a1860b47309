//! What the sandbox does with a message, chosen by the last two digits of its destination.
//!
//! 00 to 24 play the good and bad days of a provider: refusals, silences, dropped connections and
//! receipts of every kind. 25 to 28 are delivered as usual and then the handset answers: a few
//! receipt delays after the receipt, so after it, the destination sends a reply (an MO) to the
//! message's sender: "STOP" (25), a plain French sentence (26), a Cyrillic text long enough for
//! two concatenated UCS-2 parts (27), or "Arrêt" in UCS-2 (28). A long message replies once, to
//! its first part.

/// One behaviour of the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// Accepted, then a DELIVRD receipt. Any destination not listed below.
    Delivered,
    Undeliverable,
    Expired,
    Rejected,
    /// An ENROUTE intermediate notification, then DELIVRD.
    EnrouteThenDelivered,
    /// The same DELIVRD receipt twice.
    DuplicateReceipts,
    /// DELIVRD, then an ENROUTE that arrives late.
    OutOfOrder,
    /// DELIVRD, then UNDELIV for the same message.
    IncompatibleFinals,
    /// A receipt for a message id the sandbox never gave out.
    UnknownIdReceipt,
    /// A receipt nothing can be read from.
    GarbageReceipt,
    /// The receipt is sent before the submit_sm_resp.
    ReceiptBeforeResponse,
    /// ESME_RTHROTTLED on the first submit, accepted after.
    ThrottledOnce,
    /// ESME_RMSGQFUL on the first submit, accepted after.
    QueueFullOnce,
    /// ESME_RINVDSTADR, always.
    InvalidDestination,
    /// ESME_RSYSERR on the first submit, accepted after.
    SystemErrorOnce,
    /// No submit_sm_resp at all.
    NoResponse,
    /// The connection drops before the submit_sm_resp.
    DropBeforeResponse,
    /// The connection drops right after the submit_sm_resp; the receipt comes on the next session.
    DropAfterResponse,
    /// The submit_sm_resp gives the id in hex, the receipt in decimal.
    HexResponseDecimalReceipt,
    /// Two incompatible finals one right after the other on the wire: DELIVRD then UNDELIV for an
    /// even message id, UNDELIV then DELIVRD for an odd one. The first to arrive is the state.
    FinalsBackToBack,
    /// The submit_sm_resp and the receipted_message_id TLV give the id in hex, the receipt text
    /// in decimal.
    HexTlvDecimalText,
    /// Part 2 of a long message is refused for good (ESME_RX_P_APPN); the other parts are
    /// accepted and delivered.
    MultipartPartRefused,
    /// Every part of a long message is accepted; part 2 is reported undeliverable, the others
    /// delivered.
    MultipartPartUndelivered,
    /// A receipt whose status nobody can read (`stat:??`, no message_state TLV), then DELIVRD.
    UnreadableStatus,
    /// The SMSC accepts the submit but its answer never comes; the receipt does.
    GhostAccept,
    /// Delivered, then the handset replies "STOP".
    ReplyStop,
    /// Delivered, then the handset replies with a sentence in GSM 7-bit.
    ReplyText,
    /// Delivered, then the handset replies with a Cyrillic text in two UCS-2 parts joined by a
    /// concatenation header.
    ReplyLong,
    /// Delivered, then the handset replies "Arrêt" (UCS-2: ê is not in the GSM alphabet).
    ReplyArret,
}

/// What the handset answers in [`Scenario::ReplyText`].
pub(crate) const REPLY_TEXT: &str = "Je ne pourrai pas venir demain, merci de rappeler.";

/// What the handset answers in [`Scenario::ReplyLong`]: 110 UCS-2 units, two parts of 67.
pub(crate) const REPLY_LONG: &str = "Спасибо за напоминание. К сожалению, я не смогу прийти завтра утром, \
                                     перезвоните мне, пожалуйста, после обеда.";

const TABLE: &[(&str, Scenario)] = &[
    ("00", Scenario::Delivered),
    ("01", Scenario::Undeliverable),
    ("02", Scenario::Expired),
    ("03", Scenario::Rejected),
    ("04", Scenario::EnrouteThenDelivered),
    ("05", Scenario::DuplicateReceipts),
    ("06", Scenario::OutOfOrder),
    ("07", Scenario::IncompatibleFinals),
    ("08", Scenario::UnknownIdReceipt),
    ("09", Scenario::GarbageReceipt),
    ("10", Scenario::ReceiptBeforeResponse),
    ("11", Scenario::ThrottledOnce),
    ("12", Scenario::QueueFullOnce),
    ("13", Scenario::InvalidDestination),
    ("14", Scenario::SystemErrorOnce),
    ("15", Scenario::NoResponse),
    ("16", Scenario::DropBeforeResponse),
    ("17", Scenario::DropAfterResponse),
    ("18", Scenario::HexResponseDecimalReceipt),
    ("19", Scenario::FinalsBackToBack),
    ("20", Scenario::HexTlvDecimalText),
    ("21", Scenario::MultipartPartRefused),
    ("22", Scenario::MultipartPartUndelivered),
    ("23", Scenario::UnreadableStatus),
    ("24", Scenario::GhostAccept),
    ("25", Scenario::ReplyStop),
    ("26", Scenario::ReplyText),
    ("27", Scenario::ReplyLong),
    ("28", Scenario::ReplyArret),
];

impl Scenario {
    /// The scenario for a destination: its last two digits, else [`Scenario::Delivered`].
    pub fn for_destination(destination: &str) -> Scenario {
        let digits: String = destination.chars().filter(char::is_ascii_digit).collect();
        let tail = digits.get(digits.len().saturating_sub(2)..).unwrap_or("");
        TABLE
            .iter()
            .find(|(suffix, _)| *suffix == tail)
            .map_or(Scenario::Delivered, |(_, s)| *s)
    }

    /// What the handset replies after the receipt, for the scenarios where it replies.
    pub fn reply(self) -> Option<&'static str> {
        Some(match self {
            Scenario::ReplyStop => "STOP",
            Scenario::ReplyText => REPLY_TEXT,
            Scenario::ReplyLong => REPLY_LONG,
            Scenario::ReplyArret => "Arrêt",
            _ => return None,
        })
    }

    /// "00 delivered, 01 undeliverable, ..." for help texts.
    pub fn legend() -> String {
        TABLE
            .iter()
            .map(|(suffix, s)| format!("{suffix} {}", format!("{s:?}").to_lowercase()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_two_digits_choose_the_scenario() {
        assert_eq!(Scenario::for_destination("+33612345601"), Scenario::Undeliverable);
        assert_eq!(
            Scenario::for_destination("33612345618"),
            Scenario::HexResponseDecimalReceipt
        );
        assert_eq!(Scenario::for_destination("+33612345699"), Scenario::Delivered);
        assert_eq!(Scenario::for_destination(""), Scenario::Delivered);
        assert!(Scenario::legend().starts_with("00 delivered, 01 undeliverable"));
        assert!(Scenario::legend().ends_with("25 replystop, 26 replytext, 27 replylong, 28 replyarret"));
    }

    #[test]
    fn the_replies_are_encoded_as_their_scenarios_say() {
        use smsdesk_core::sms::encoding::{plan, Encoding};
        let encoding = |s: Scenario| plan(s.reply().unwrap()).encoding;
        let segments = |s: Scenario| plan(s.reply().unwrap()).segments;
        assert_eq!(
            (encoding(Scenario::ReplyStop), segments(Scenario::ReplyStop)),
            (Encoding::Gsm7, 1)
        );
        assert_eq!(
            (encoding(Scenario::ReplyText), segments(Scenario::ReplyText)),
            (Encoding::Gsm7, 1)
        );
        assert_eq!(
            (encoding(Scenario::ReplyLong), segments(Scenario::ReplyLong)),
            (Encoding::Ucs2, 2)
        );
        assert_eq!(
            (encoding(Scenario::ReplyArret), segments(Scenario::ReplyArret)),
            (Encoding::Ucs2, 1)
        );
        assert_eq!(Scenario::Delivered.reply(), None);
    }
}
