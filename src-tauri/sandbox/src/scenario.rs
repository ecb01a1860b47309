//! What the sandbox does with a message, chosen by the last two digits of its destination.

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
}

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
    }
}
