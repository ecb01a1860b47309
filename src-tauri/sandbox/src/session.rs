//! One client connection to the sandbox: binds, keepalives, submits, and the receipts that follow.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use futures::{SinkExt, StreamExt};
use rusmpp::pdus::{BindReceiverResp, BindTransceiverResp, BindTransmitterResp, SubmitSm, SubmitSmResp};
use rusmpp::tokio_codec::CommandCodec;
use rusmpp::{Command, CommandId, CommandStatus, Pdu};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_util::codec::Framed;

use super::receipt::{self, Receipt};
use super::{Scenario, Shared};
use crate::cstr::cstr;
use smsdesk_core::time::Clock;

enum After {
    Continue,
    Close,
}

pub(crate) async fn run(stream: TcpStream, shared: Arc<Shared>, session_no: u64) {
    let (mut sink, mut source) = Framed::new(stream, CommandCodec::new()).split();
    let (out, mut outgoing) = mpsc::unbounded_channel::<Command>();
    let mut dropped = shared.drop_all.subscribe();
    let mut deliver_seq = 1u32;
    loop {
        tokio::select! {
            incoming = source.next() => {
                let Some(Ok(command)) = incoming else { break };
                match handle(&shared, &out, session_no, command).await {
                    Ok(After::Continue) => {}
                    Ok(After::Close) => {
                        // Answers already queued go out before the connection does.
                        while let Ok(c) = outgoing.try_recv() {
                            if sink.send(c).await.is_err() {
                                break;
                            }
                        }
                        break;
                    }
                    Err(()) => break,
                }
            }
            Some(mut command) = outgoing.recv() => {
                // deliver_sm built elsewhere carry a placeholder sequence number; number them here.
                if command.id() == CommandId::DeliverSm {
                    command = Command::new(command.status(), deliver_seq, command.pdu().cloned().unwrap_or(Pdu::EnquireLink));
                    deliver_seq += 1;
                }
                if sink.send(command).await.is_err() {
                    break;
                }
            }
            _ = dropped.changed() => break,
        }
    }
    shared
        .receivers
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&session_no);
    tracing::debug!(session_no, "sandbox: connection closed");
}

fn respond(
    out: &mpsc::UnboundedSender<Command>,
    status: CommandStatus,
    seq: u32,
    pdu: impl Into<Pdu>,
) -> Result<(), ()> {
    out.send(Command::new(status, seq, pdu)).map_err(|_| ())
}

async fn handle(
    shared: &Arc<Shared>,
    out: &mpsc::UnboundedSender<Command>,
    session_no: u64,
    command: Command,
) -> Result<After, ()> {
    let seq = command.sequence_number();
    match command.pdu() {
        Some(Pdu::BindTransceiver(_) | Pdu::BindReceiver(_) | Pdu::BindTransmitter(_)) => {
            let system_id = || cstr(&shared.config.system_id);
            shared.binds.fetch_add(1, Ordering::Relaxed);
            let password = match command.pdu() {
                Some(Pdu::BindTransceiver(b)) => b.password.to_string(),
                Some(Pdu::BindReceiver(b)) => b.password.to_string(),
                Some(Pdu::BindTransmitter(b)) => b.password.to_string(),
                _ => String::new(),
            };
            let status = if shared.config.password.as_ref().is_some_and(|p| *p != password) {
                CommandStatus::EsmeRinvpaswd
            } else if shared.refuse_binds.load(Ordering::Relaxed) {
                CommandStatus::EsmeRbindfail
            } else {
                CommandStatus::EsmeRok
            };
            let refused = status != CommandStatus::EsmeRok;
            let pdu = match command.id() {
                CommandId::BindReceiver => Pdu::BindReceiverResp(BindReceiverResp::new(system_id(), None)),
                CommandId::BindTransmitter => Pdu::BindTransmitterResp(BindTransmitterResp::new(system_id(), None)),
                _ => Pdu::BindTransceiverResp(BindTransceiverResp::new(system_id(), None)),
            };
            respond(out, status, seq, pdu)?;
            if refused {
                return Ok(After::Close);
            }
            if command.id() != CommandId::BindTransmitter {
                shared
                    .receivers
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(session_no, out.clone());
                let pending: Vec<Command> =
                    std::mem::take(&mut *shared.pending.lock().unwrap_or_else(|p| p.into_inner()));
                for c in pending {
                    out.send(c).map_err(|_| ())?;
                }
            }
            Ok(After::Continue)
        }
        Some(Pdu::EnquireLink) => {
            respond(out, CommandStatus::EsmeRok, seq, Pdu::EnquireLinkResp).map(|()| After::Continue)
        }
        Some(Pdu::Unbind) => {
            respond(out, CommandStatus::EsmeRok, seq, Pdu::UnbindResp)?;
            Ok(After::Close)
        }
        Some(Pdu::SubmitSm(submit)) => submit_sm(shared, out, seq, submit).await,
        Some(Pdu::DeliverSmResp(_)) => Ok(After::Continue),
        _ => respond(out, CommandStatus::EsmeRinvcmdid, seq, Pdu::GenericNack).map(|()| After::Continue),
    }
}

async fn submit_sm(
    shared: &Arc<Shared>,
    out: &mpsc::UnboundedSender<Command>,
    seq: u32,
    submit: &SubmitSm,
) -> Result<After, ()> {
    let destination = submit.destination_addr.to_string();
    let sender = submit.source_addr.to_string();
    let content = submit.short_message().as_ref().to_vec();
    let (part, text) = udh_part(u8::from(submit.esm_class), &content);
    let scenario = Scenario::for_destination(&destination);
    let first_try = shared
        .counts
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&(destination.clone(), content.clone()))
        .is_none();
    shared.count(&destination, &content, false);

    let refuse = |status| respond(out, status, seq, SubmitSmResp::builder().build()).map(|()| After::Continue);
    match scenario {
        Scenario::InvalidDestination => return refuse(CommandStatus::EsmeRinvdstadr),
        Scenario::ThrottledOnce if first_try => return refuse(CommandStatus::EsmeRthrottled),
        Scenario::QueueFullOnce if first_try => return refuse(CommandStatus::EsmeRmsgqful),
        Scenario::SystemErrorOnce if first_try => return refuse(CommandStatus::EsmeRsyserr),
        Scenario::MultipartPartRefused if part == Some(2) => return refuse(CommandStatus::EsmeRxPAppn),
        Scenario::NoResponse => return Ok(After::Continue),
        Scenario::DropBeforeResponse => return Ok(After::Close),
        _ => {}
    }

    let n = shared.message_id();
    // The id as the response, the receipted_message_id TLV and the receipt text write it.
    let (response_id, tlv_id, text_id) = match scenario {
        Scenario::HexResponseDecimalReceipt => (format!("{n:x}"), format!("{n:012}"), format!("{n:012}")),
        Scenario::HexTlvDecimalText => (format!("{n:x}"), format!("{n:x}"), format!("{n:010}")),
        _ => (format!("{n:x}"), format!("{n:x}"), format!("{n:x}")),
    };
    let submitted = Clock::system().now_ms();
    let delay = shared.config.receipt_delay;
    let make_for = |stat: &str, err: &str, text_id: &str, tlv_id: &str, done: i64| {
        receipt::deliver_sm(
            &Receipt {
                id: text_id,
                tlv_id,
                stat,
                err,
                handset: &destination,
                sender: &sender,
                text,
                submitted_at: submitted,
                done_at: done,
            },
            0,
        )
    };
    let make = |stat: &str, err: &str, done: i64| make_for(stat, err, &text_id, &tlv_id, done);
    let resp = SubmitSmResp::builder().message_id(cstr(&response_id)).build();

    if !shared.config.response_delay.is_zero() {
        tokio::time::sleep(shared.config.response_delay).await;
    }
    if scenario == Scenario::ReceiptBeforeResponse {
        // Queued on this session ahead of the response, so it reaches the client first.
        shared.deliver(make("DELIVRD", "000", submitted));
    }
    shared.count(&destination, &content, true);
    if scenario == Scenario::GhostAccept {
        // Accepted, and the network will say so; the answer is lost on the way.
        shared.schedule(delay, make("DELIVRD", "000", submitted + 60_000));
        return Ok(After::Continue);
    }
    respond(out, CommandStatus::EsmeRok, seq, resp)?;

    let later = |k: u32| delay * k;
    match scenario {
        Scenario::Undeliverable => shared.schedule(later(1), make("UNDELIV", "001", submitted + 1)),
        Scenario::Expired => shared.schedule(later(1), make("EXPIRED", "000", submitted + 1)),
        Scenario::Rejected => shared.schedule(later(1), make("REJECTD", "000", submitted + 1)),
        Scenario::EnrouteThenDelivered => {
            shared.schedule(later(1), make("ENROUTE", "000", submitted));
            shared.schedule(later(3), make("DELIVRD", "000", submitted + 60_000));
        }
        Scenario::DuplicateReceipts => {
            shared.schedule(later(1), make("DELIVRD", "000", submitted + 60_000));
            shared.schedule(later(3), make("DELIVRD", "000", submitted + 60_000));
        }
        Scenario::OutOfOrder => {
            shared.schedule(later(1), make("DELIVRD", "000", submitted + 60_000));
            shared.schedule(later(3), make("ENROUTE", "000", submitted));
        }
        Scenario::IncompatibleFinals => {
            shared.schedule(later(1), make("DELIVRD", "000", submitted + 60_000));
            shared.schedule(later(3), make("UNDELIV", "001", submitted + 120_000));
        }
        Scenario::UnknownIdReceipt => {
            let unknown = "DEADBEEF0000";
            shared.schedule(
                later(1),
                make_for("DELIVRD", "000", unknown, unknown, submitted + 60_000),
            );
        }
        Scenario::MultipartPartUndelivered if part == Some(2) => {
            shared.schedule(later(1), make("UNDELIV", "001", submitted + 60_000));
        }
        Scenario::UnreadableStatus => {
            shared.schedule(later(1), make("??", "000", submitted + 60_000));
            shared.schedule(later(3), make("DELIVRD", "000", submitted + 60_000));
        }
        Scenario::GarbageReceipt => {
            let garbage =
                receipt::raw_deliver_sm(&destination, &sender, 0x04, b"\x01\x02 garbage %%%".to_vec(), vec![], 0);
            shared.schedule(later(1), garbage);
        }
        Scenario::FinalsBackToBack => {
            let delivered = make("DELIVRD", "000", submitted + 60_000);
            let undeliverable = make("UNDELIV", "001", submitted + 60_000);
            let both = if n.is_multiple_of(2) {
                vec![delivered, undeliverable]
            } else {
                vec![undeliverable, delivered]
            };
            shared.schedule_all(later(1), both);
        }
        Scenario::ReceiptBeforeResponse => {}
        Scenario::DropAfterResponse => {
            shared.schedule(later(1), make("DELIVRD", "000", submitted + 60_000));
            return Ok(After::Close);
        }
        _ => shared.schedule(later(1), make("DELIVRD", "000", submitted + 60_000)),
    }
    Ok(After::Continue)
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
