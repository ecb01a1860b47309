//! Messages from handsets (mobile-originated, MO): the replies, STOPs and opt-outs an SMSC hands
//! to its client as deliver_sm. The sandbox builds them the way a handset's SMS arrives: encoded
//! as the handset would (GSM 7-bit when every character has a place in it, UCS-2 otherwise), a
//! long text split into parts joined by a concatenation header or by SAR TLVs, and esm_class
//! never saying "receipt".

use std::fmt;

use rusmpp::pdus::DeliverSm;
use rusmpp::tlvs::MessageDeliveryRequestTlvValue;
use rusmpp::types::OctetString;
use rusmpp::values::{DataCoding, EsmClass, Npi, Ton};
use rusmpp::{Command, CommandStatus};
use smsdesk_core::sms::encoding::{concat_udh, split};

use crate::cstr::cstr;

/// esm_class of an MO whose short_message starts with a user data header (UDHI set).
const ESM_UDHI: u8 = 0x40;

/// The most parts one concatenated message can have (its header counts them in one octet).
const MAX_PARTS: usize = 255;

/// A message a handset sends to us.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mo {
    /// The handset, e.g. "+33612345626" or "33612345626" (the '+' is dropped on the wire).
    pub from: String,
    /// Our number or sender id, e.g. "SHOP" (an alphanumeric one goes out with TON 5).
    pub to: String,
    /// What the handset's user typed.
    pub text: String,
    /// How the SMSC shapes the deliver_sm.
    pub style: MoStyle,
}

/// How the sandbox shapes the deliver_sm of an MO, as different SMSCs do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum MoStyle {
    /// One deliver_sm per part; a long text's parts carry a concatenation UDH, in order.
    #[default]
    Plain,
    /// As `Plain`, and every part carries a receipted_message_id TLV with this ticket (as some
    /// SMSCs put a ticket id on incoming messages); esm_class still says it is no receipt.
    WithTicketTlv(String),
    /// A long text's parts are joined by SAR TLVs (sar_msg_ref_num, sar_total_segments,
    /// sar_segment_seqnum) instead of a UDH.
    Sar,
    /// As `Plain`, but a long text's parts arrive last first.
    Reversed,
}

/// The deliver_sm PDUs that carry `mo`, in the order they are to be sent. `reference` ties the
/// parts of a long text together. A text longer than 255 parts (the most a header can number)
/// is cut after the 255th.
pub(crate) fn deliver_sms(mo: &Mo, reference: u8) -> Vec<Command> {
    let (data_coding, mut parts) = encode(&mo.text);
    if parts.len() > MAX_PARTS {
        tracing::warn!(parts = parts.len(), "sandbox: MO text cut to its first 255 parts");
        parts.truncate(MAX_PARTS);
    }
    let total = parts.len() as u8;
    let mut commands: Vec<Command> = parts
        .into_iter()
        .zip(1..=total)
        .map(|(octets, index)| {
            let shaped = shape(
                &mo.style,
                octets,
                Joined {
                    reference,
                    index,
                    total,
                },
            );
            command(mo, data_coding, shaped)
        })
        .collect();
    if mo.style == MoStyle::Reversed {
        commands.reverse();
    }
    commands
}

/// The data_coding of a text as a handset sends it, and the octets of each of its parts.
fn encode(text: &str) -> (u8, Vec<Vec<u8>>) {
    let (encoding, parts) = split(text);
    (encoding.data_coding(), parts.into_iter().map(|p| p.octets).collect())
}

/// Where one part stands in its text.
#[derive(Clone, Copy)]
struct Joined {
    reference: u8,
    /// From 1.
    index: u8,
    total: u8,
}

/// What differs from one part to the next: esm_class, short_message and TLVs.
struct Shaped {
    esm_class: u8,
    short_message: Vec<u8>,
    tlvs: Vec<MessageDeliveryRequestTlvValue>,
}

/// Shapes one part's octets as the style says: alone as they are, or joined to the others by a
/// UDH or by SAR TLVs; with the ticket TLV when there is one.
fn shape(style: &MoStyle, octets: Vec<u8>, joined: Joined) -> Shaped {
    let mut shaped = Shaped {
        esm_class: 0x00,
        short_message: octets,
        tlvs: Vec::new(),
    };
    if joined.total > 1 {
        if *style == MoStyle::Sar {
            shaped.tlvs.extend(sar_tlvs(joined));
        } else {
            let udh = concat_udh(joined.reference, joined.index, joined.total);
            shaped.short_message.splice(0..0, udh);
            shaped.esm_class = ESM_UDHI;
        }
    }
    if let MoStyle::WithTicketTlv(ticket) = style {
        shaped
            .tlvs
            .push(MessageDeliveryRequestTlvValue::ReceiptedMessageId(cstr(ticket)));
    }
    shaped
}

/// The three SAR TLVs of one part.
fn sar_tlvs(joined: Joined) -> [MessageDeliveryRequestTlvValue; 3] {
    [
        MessageDeliveryRequestTlvValue::SarMsgRefNum(u16::from(joined.reference)),
        MessageDeliveryRequestTlvValue::SarTotalSegments(joined.total),
        MessageDeliveryRequestTlvValue::SarSegmentSeqnum(joined.index),
    ]
}

/// One deliver_sm of `mo` (its sequence number is a placeholder the session replaces).
fn command(mo: &Mo, data_coding: u8, shaped: Shaped) -> Command {
    let (dest_ton, dest_npi, destination) = destination(&mo.to);
    let pdu = DeliverSm::builder()
        .source_addr_ton(Ton::International)
        .source_addr_npi(Npi::Isdn)
        .source_addr(cstr(&handset_address(&mo.from)))
        .dest_addr_ton(dest_ton)
        .dest_addr_npi(dest_npi)
        .destination_addr(cstr(&destination))
        .esm_class(EsmClass::from(shaped.esm_class))
        .data_coding(DataCoding::from(data_coding))
        .short_message(OctetString::from_vec(shaped.short_message).unwrap_or_default())
        .tlvs(shaped.tlvs)
        .build();
    Command::new(CommandStatus::EsmeRok, 0, pdu)
}

/// The handset's number as SMPP writes it with TON 1: no '+', no spaces or dashes.
fn handset_address(number: &str) -> String {
    number.chars().filter(char::is_ascii_alphanumeric).collect()
}

/// TON, NPI and address of our side: a phone number (optionally with '+') is international, a
/// short code of up to 6 digits has an unknown TON, anything else is an alphanumeric sender id.
fn destination(to: &str) -> (Ton, Npi, String) {
    let number = to.strip_prefix('+').unwrap_or(to);
    if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit()) {
        (Ton::Alphanumeric, Npi::Unknown, to.to_owned())
    } else if number.len() <= 6 && !to.starts_with('+') {
        (Ton::Unknown, Npi::Isdn, number.to_owned())
    } else {
        (Ton::International, Npi::Isdn, number.to_owned())
    }
}

/// The destination of MOs typed on the standalone sandbox's standard input.
pub(crate) const STDIN_TO: &str = "smsdesk";

/// The commands the standalone sandbox reads on standard input, for its usage line.
pub(crate) const USAGE: &str = "usage: mo FROM TEXT... | mo-ticket FROM TICKET TEXT... | mo-sar FROM TEXT...";

/// Why a line of standard input is no command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LineError {
    /// The first word names no command.
    UnknownCommand(String),
    /// The command lacks this argument.
    Missing(&'static str),
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::UnknownCommand(word) => write!(f, "unknown command {word:?}; {USAGE}"),
            LineError::Missing(what) => write!(f, "missing {what}; {USAGE}"),
        }
    }
}

impl std::error::Error for LineError {}

/// Reads one line of the standalone sandbox's standard input: `mo FROM TEXT...`,
/// `mo-ticket FROM TICKET TEXT...` or `mo-sar FROM TEXT...`, each sent to [`STDIN_TO`]. A blank
/// line is no command (`Ok(None)`).
pub(crate) fn parse_line(line: &str) -> Result<Option<Mo>, LineError> {
    let Some((command, rest)) = word(line) else {
        return Ok(None);
    };
    if !["mo", "mo-ticket", "mo-sar"].contains(&command) {
        return Err(LineError::UnknownCommand(command.to_owned()));
    }
    let (from, mut rest) = word(rest).ok_or(LineError::Missing("FROM"))?;
    let style = match command {
        "mo-sar" => MoStyle::Sar,
        "mo-ticket" => {
            let (ticket, after) = word(rest).ok_or(LineError::Missing("TICKET"))?;
            rest = after;
            MoStyle::WithTicketTlv(ticket.to_owned())
        }
        _ => MoStyle::Plain,
    };
    text(from, rest, style).map(Some)
}

/// The MO of a command line, once its words before the text are read.
fn text(from: &str, rest: &str, style: MoStyle) -> Result<Mo, LineError> {
    let text = rest.trim();
    if text.is_empty() {
        return Err(LineError::Missing("TEXT"));
    }
    Ok(Mo {
        from: from.to_owned(),
        to: STDIN_TO.to_owned(),
        text: text.to_owned(),
        style,
    })
}

/// The first word of `s` and what follows it, or None when `s` is blank.
fn word(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_start();
    if s.is_empty() {
        return None;
    }
    Some(s.split_once(char::is_whitespace).unwrap_or((s, "")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mo(from: &str, text: &str, style: MoStyle) -> Mo {
        Mo {
            from: from.into(),
            to: STDIN_TO.into(),
            text: text.into(),
            style,
        }
    }

    #[test]
    fn stdin_lines_become_mos() {
        assert_eq!(
            parse_line("mo +33612345626  Je ne  viendrai pas\n"),
            Ok(Some(mo("+33612345626", "Je ne  viendrai pas", MoStyle::Plain)))
        );
        assert_eq!(
            parse_line("mo-ticket 33612345626 T-42 STOP"),
            Ok(Some(mo("33612345626", "STOP", MoStyle::WithTicketTlv("T-42".into()))))
        );
        assert_eq!(
            parse_line("mo-sar 33612345626 Arrêt"),
            Ok(Some(mo("33612345626", "Arrêt", MoStyle::Sar)))
        );
        assert_eq!(parse_line("   \n"), Ok(None));
    }

    #[test]
    fn other_lines_are_refused_with_the_usage() {
        assert_eq!(parse_line("help"), Err(LineError::UnknownCommand("help".into())));
        assert_eq!(parse_line("mo"), Err(LineError::Missing("FROM")));
        assert_eq!(parse_line("mo +336"), Err(LineError::Missing("TEXT")));
        assert_eq!(parse_line("mo-ticket +336"), Err(LineError::Missing("TICKET")));
        assert_eq!(parse_line("mo-ticket +336 T1"), Err(LineError::Missing("TEXT")));
        let said = LineError::UnknownCommand("help".into()).to_string();
        assert!(said.ends_with(USAGE) && !said.contains('\n'), "{said}");
    }

    #[test]
    fn our_side_is_a_number_a_short_code_or_a_sender_id() {
        assert_eq!(
            destination("+33612345600"),
            (Ton::International, Npi::Isdn, "33612345600".into())
        );
        assert_eq!(destination("36111"), (Ton::Unknown, Npi::Isdn, "36111".into()));
        assert_eq!(destination("SHOP"), (Ton::Alphanumeric, Npi::Unknown, "SHOP".into()));
        assert_eq!(destination(""), (Ton::Alphanumeric, Npi::Unknown, String::new()));
    }

    #[test]
    fn a_text_past_255_parts_is_cut_there() {
        let long = "a".repeat(153 * 256);
        assert_eq!(deliver_sms(&mo("1", &long, MoStyle::Plain), 1).len(), 255);
    }
}
