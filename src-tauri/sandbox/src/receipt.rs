//! The receipts the sandbox sends: SMPP 3.4 Appendix B text with the receipt TLVs.

use rusmpp::pdus::DeliverSm;
use rusmpp::tlvs::MessageDeliveryRequestTlvValue;
use rusmpp::types::{COctetString, OctetString};
use rusmpp::values::{EsmClass, MessageState};
use rusmpp::{Command, CommandStatus};

use crate::cstr::cstr;

/// One receipt to send.
pub(crate) struct Receipt<'a> {
    /// The id in the receipt text.
    pub id: &'a str,
    /// The id in the receipted_message_id TLV.
    pub tlv_id: &'a str,
    pub stat: &'a str,
    pub err: &'a str,
    /// The handset (becomes the deliver_sm source_addr).
    pub handset: &'a str,
    pub sender: &'a str,
    pub text: &'a [u8],
    pub submitted_at: i64,
    pub done_at: i64,
}

fn yymmddhhmm(ms: i64) -> String {
    let (y, mo, d, h, m, _) = smsdesk_core::time::civil(ms);
    format!("{:02}{mo:02}{d:02}{h:02}{m:02}", y % 100)
}

/// The message_state TLV for a status word; None for a word that names no state.
fn state(stat: &str) -> Option<MessageState> {
    Some(match stat {
        "DELIVRD" => MessageState::Delivered,
        "EXPIRED" => MessageState::Expired,
        "DELETED" => MessageState::Deleted,
        "UNDELIV" => MessageState::Undeliverable,
        "ACCEPTD" => MessageState::Accepted,
        "REJECTD" => MessageState::Rejected,
        "ENROUTE" => MessageState::Enroute,
        "UNKNOWN" => MessageState::Unknown,
        _ => return None,
    })
}

fn address(s: &str) -> COctetString<1, 21> {
    cstr(&s.chars().filter(char::is_ascii_alphanumeric).collect::<String>())
}

/// The Appendix B text of a receipt.
pub(crate) fn text(r: &Receipt<'_>) -> Vec<u8> {
    let delivered = if r.stat == "DELIVRD" { "001" } else { "000" };
    let mut t = format!(
        "id:{} sub:001 dlvrd:{delivered} submit date:{} done date:{} stat:{} err:{} text:",
        r.id,
        yymmddhhmm(r.submitted_at),
        yymmddhhmm(r.done_at),
        r.stat,
        r.err
    )
    .into_bytes();
    t.extend(r.text.iter().take(20));
    t
}

/// A deliver_sm carrying a receipt (esm_class 0x04) or an intermediate notification (0x20).
pub(crate) fn deliver_sm(r: &Receipt<'_>, sequence_number: u32) -> Command {
    let esm = if r.stat == "ENROUTE" { 0x20 } else { 0x04 };
    raw_deliver_sm(
        r.handset,
        r.sender,
        esm,
        text(r),
        std::iter::once(MessageDeliveryRequestTlvValue::ReceiptedMessageId(cstr(r.tlv_id)))
            .chain(state(r.stat).map(MessageDeliveryRequestTlvValue::MessageState))
            .collect(),
        sequence_number,
    )
}

/// A deliver_sm with any content (for garbage receipts).
pub(crate) fn raw_deliver_sm(
    handset: &str,
    sender: &str,
    esm: u8,
    short_message: Vec<u8>,
    tlvs: Vec<MessageDeliveryRequestTlvValue>,
    sequence_number: u32,
) -> Command {
    let pdu = DeliverSm::builder()
        .source_addr(address(handset))
        .destination_addr(address(sender))
        .esm_class(EsmClass::from(esm))
        .short_message(OctetString::from_vec(short_message).unwrap_or_default())
        .tlvs(tlvs)
        .build();
    Command::new(CommandStatus::EsmeRok, sequence_number, pdu)
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_are_written_as_yymmddhhmm_in_utc() {
        assert_eq!(super::yymmddhhmm(0), "7001010000");
        assert_eq!(super::yymmddhhmm(1_795_979_115_800), "2611291905");
    }
}
