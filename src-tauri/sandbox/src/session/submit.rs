//! What the sandbox does with a submit_sm: counts it, answers it (or not) as its scenario says,
//! and schedules the receipts that follow.

use std::sync::Arc;

use rusmpp::pdus::{SubmitSm, SubmitSmResp};
use rusmpp::{Command, CommandStatus};
use tokio::sync::mpsc;

use super::{respond, After};
use crate::cstr::cstr;
use crate::receipt::{self, Receipt};
use crate::{Mo, Scenario, Shared};
use smsdesk_core::time::Clock;

/// How a scenario turns a submit down before accepting it.
enum TurnDown {
    /// Answered with this error status.
    Refuse(CommandStatus),
    /// Never answered.
    Ignore,
    /// The connection is dropped instead of answering.
    Drop,
}

/// Counts the submit, answers it as its scenario says (after the configured response delay, when
/// it is accepted), and schedules its receipts; says whether the connection stays open.
pub(super) async fn submit_sm(
    shared: &Arc<Shared>,
    out: &mpsc::UnboundedSender<Command>,
    seq: u32,
    submit: &SubmitSm,
) -> Result<After, ()> {
    let destination = submit.destination_addr.to_string();
    let sender = submit.source_addr.to_string();
    let content = submit.short_message().as_ref().to_vec();
    let (part, text) = udh_part(u8::from(submit.esm_class), submit.short_message().as_ref());
    let scenario = Scenario::for_destination(&destination);
    let first_try = first_try(shared, &destination, &content);
    shared.count_submit(&destination, &content);

    match turned_down(scenario, first_try, part) {
        Some(TurnDown::Refuse(status)) => {
            return respond(out, status, seq, SubmitSmResp::builder().build()).map(|()| After::Continue)
        }
        Some(TurnDown::Ignore) => return Ok(After::Continue),
        Some(TurnDown::Drop) => return Ok(After::Close),
        None => {}
    }

    let n = shared.message_id();
    let (response_id, tlv_id, text_id) = ids(scenario, n);
    let receipts = Receipts {
        handset: &destination,
        sender: &sender,
        text,
        submitted: Clock::system().now_ms(),
        text_id,
        tlv_id,
    };
    let submitted = receipts.submitted;
    let resp = SubmitSmResp::builder().message_id(cstr(&response_id)).build();

    if !shared.config.response_delay.is_zero() {
        tokio::time::sleep(shared.config.response_delay).await;
    }
    if scenario == Scenario::ReceiptBeforeResponse {
        // Queued on this session ahead of the response, so it reaches the client first.
        shared.deliver(receipts.make("DELIVRD", "000", submitted));
    }
    if !shared.count_accepted(&destination, &content) {
        // Closing: an answer sent now would be an acceptance missing from the final totals.
        return Ok(After::Close);
    }
    if scenario == Scenario::GhostAccept {
        // Accepted, and the network will say so; the answer is lost on the way.
        let delay = shared.config.receipt_delay;
        shared.schedule(delay, receipts.make("DELIVRD", "000", submitted + 60_000));
        return Ok(After::Continue);
    }
    respond(out, CommandStatus::EsmeRok, seq, resp)?;
    Ok(schedule_receipts(shared, scenario, part, n, &receipts))
}

/// Whether the sandbox has not seen this destination and content before (the scenarios that
/// fail once fail only the first try).
fn first_try(shared: &Shared, destination: &str, content: &[u8]) -> bool {
    shared
        .counts
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&(destination.to_owned(), content.to_owned()))
        .is_none()
}

/// Whether, and how, the scenario turns this submit down (`part` is its part number, for a
/// part of a concatenated message).
fn turned_down(scenario: Scenario, first_try: bool, part: Option<u8>) -> Option<TurnDown> {
    Some(match scenario {
        Scenario::InvalidDestination => TurnDown::Refuse(CommandStatus::EsmeRinvdstadr),
        Scenario::ThrottledOnce if first_try => TurnDown::Refuse(CommandStatus::EsmeRthrottled),
        Scenario::QueueFullOnce if first_try => TurnDown::Refuse(CommandStatus::EsmeRmsgqful),
        Scenario::SystemErrorOnce if first_try => TurnDown::Refuse(CommandStatus::EsmeRsyserr),
        Scenario::MultipartPartRefused if part == Some(2) => TurnDown::Refuse(CommandStatus::EsmeRxPAppn),
        Scenario::NoResponse => TurnDown::Ignore,
        Scenario::DropBeforeResponse => TurnDown::Drop,
        _ => return None,
    })
}

/// The message id `n` as the response, the receipted_message_id TLV and the receipt text write it.
fn ids(scenario: Scenario, n: u64) -> (String, String, String) {
    match scenario {
        Scenario::HexResponseDecimalReceipt => (format!("{n:x}"), format!("{n:012}"), format!("{n:012}")),
        Scenario::HexTlvDecimalText => (format!("{n:x}"), format!("{n:x}"), format!("{n:010}")),
        _ => (format!("{n:x}"), format!("{n:x}"), format!("{n:x}")),
    }
}

/// What the receipts of one accepted submit say, whatever their status.
struct Receipts<'a> {
    handset: &'a str,
    sender: &'a str,
    text: &'a [u8],
    submitted: i64,
    /// The id in the receipt text.
    text_id: String,
    /// The id in the receipted_message_id TLV.
    tlv_id: String,
}

impl Receipts<'_> {
    /// A receipt with this status word and error code, done at `done`.
    fn make(&self, stat: &str, err: &str, done: i64) -> Command {
        self.make_for(stat, err, &self.text_id, &self.tlv_id, done)
    }

    /// A receipt naming other ids than the submit's.
    fn make_for(&self, stat: &str, err: &str, text_id: &str, tlv_id: &str, done: i64) -> Command {
        receipt::deliver_sm(
            &Receipt {
                id: text_id,
                tlv_id,
                stat,
                err,
                handset: self.handset,
                sender: self.sender,
                text: self.text,
                submitted_at: self.submitted,
                done_at: done,
            },
            0,
        )
    }
}

/// Schedules the receipts the scenario sends after accepting message `n` (`part` is its part
/// number, for a part of a concatenated message), and says whether the connection stays open.
fn schedule_receipts(shared: &Arc<Shared>, scenario: Scenario, part: Option<u8>, n: u64, r: &Receipts) -> After {
    let later = |k: u32| shared.config.receipt_delay * k;
    let submitted = r.submitted;
    schedule_reply(shared, scenario, part, r);
    match scenario {
        Scenario::Undeliverable => shared.schedule(later(1), r.make("UNDELIV", "001", submitted + 1)),
        Scenario::Expired => shared.schedule(later(1), r.make("EXPIRED", "000", submitted + 1)),
        Scenario::Rejected => shared.schedule(later(1), r.make("REJECTD", "000", submitted + 1)),
        Scenario::EnrouteThenDelivered => {
            shared.schedule(later(1), r.make("ENROUTE", "000", submitted));
            shared.schedule(later(3), r.make("DELIVRD", "000", submitted + 60_000));
        }
        Scenario::DuplicateReceipts => {
            shared.schedule(later(1), r.make("DELIVRD", "000", submitted + 60_000));
            shared.schedule(later(3), r.make("DELIVRD", "000", submitted + 60_000));
        }
        Scenario::OutOfOrder => {
            shared.schedule(later(1), r.make("DELIVRD", "000", submitted + 60_000));
            shared.schedule(later(3), r.make("ENROUTE", "000", submitted));
        }
        Scenario::IncompatibleFinals => {
            shared.schedule(later(1), r.make("DELIVRD", "000", submitted + 60_000));
            shared.schedule(later(3), r.make("UNDELIV", "001", submitted + 120_000));
        }
        Scenario::UnknownIdReceipt => {
            let unknown = "DEADBEEF0000";
            shared.schedule(
                later(1),
                r.make_for("DELIVRD", "000", unknown, unknown, submitted + 60_000),
            );
        }
        Scenario::MultipartPartUndelivered if part == Some(2) => {
            shared.schedule(later(1), r.make("UNDELIV", "001", submitted + 60_000));
        }
        Scenario::UnreadableStatus => {
            shared.schedule(later(1), r.make("??", "000", submitted + 60_000));
            shared.schedule(later(3), r.make("DELIVRD", "000", submitted + 60_000));
        }
        Scenario::GarbageReceipt => {
            let garbage =
                receipt::raw_deliver_sm(r.handset, r.sender, 0x04, b"\x01\x02 garbage %%%".to_vec(), vec![], 0);
            shared.schedule(later(1), garbage);
        }
        Scenario::FinalsBackToBack => shared.schedule_all(later(1), back_to_back(r, n)),
        Scenario::ReceiptBeforeResponse => {}
        Scenario::DropAfterResponse => {
            shared.schedule(later(1), r.make("DELIVRD", "000", submitted + 60_000));
            return After::Close;
        }
        _ => shared.schedule(later(1), r.make("DELIVRD", "000", submitted + 60_000)),
    }
    After::Continue
}

/// The handset's reply in the reply scenarios: from the message's destination to its sender,
/// a few receipt delays after the receipt so that it arrives after it. A long message gets one
/// reply, for its first part.
fn schedule_reply(shared: &Arc<Shared>, scenario: Scenario, part: Option<u8>, r: &Receipts) {
    let Some(text) = scenario.reply() else { return };
    if !matches!(part, None | Some(1)) {
        return;
    }
    let mo = Mo {
        from: r.handset.to_owned(),
        to: r.sender.to_owned(),
        text: text.to_owned(),
        style: Default::default(),
    };
    shared.schedule_all(shared.config.receipt_delay * 4, shared.mo_pdus(&mo));
}

/// Two incompatible finals sent together, in an order that alternates with the message id.
fn back_to_back(r: &Receipts, n: u64) -> Vec<Command> {
    let delivered = r.make("DELIVRD", "000", r.submitted + 60_000);
    let undeliverable = r.make("UNDELIV", "001", r.submitted + 60_000);
    if n.is_multiple_of(2) {
        vec![delivered, undeliverable]
    } else {
        vec![undeliverable, delivered]
    }
}

/// The part number a concatenation header (UDHI set, 8- or 16-bit reference) gives, and the text
/// after the header.
fn udh_part(esm_class: u8, content: &[u8]) -> (Option<u8>, &[u8]) {
    if esm_class & 0x40 == 0 {
        return (None, content);
    }
    let Some(&len) = content.first() else {
        return (None, content);
    };
    let header = content.get(1..=usize::from(len)).unwrap_or_default();
    let text = content.get(usize::from(len) + 1..).unwrap_or_default();
    let part = match header {
        [0x00, 0x03, _, _, seq, ..] => Some(*seq),
        [0x08, 0x04, _, _, _, seq, ..] => Some(*seq),
        _ => None,
    };
    (part, text)
}
