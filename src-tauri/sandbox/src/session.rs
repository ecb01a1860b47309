//! One client connection to the sandbox: binds, keepalives, submits, and the receipts that follow.

mod submit;

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use futures::{SinkExt, StreamExt};
use rusmpp::pdus::{BindReceiverResp, BindTransceiverResp, BindTransmitterResp};
use rusmpp::tokio_codec::CommandCodec;
use rusmpp::{Command, CommandId, CommandStatus, Pdu};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tokio_util::codec::Framed;

use super::Shared;
use crate::cstr::cstr;

/// How long a deliver_sm the client refused for now waits before it is delivered again.
const REDELIVER_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// Whether the connection stays open after a PDU was handled.
enum After {
    Continue,
    Close,
}

/// Serves one connection until the client or the sandbox drops it: reads and answers PDUs, and
/// writes the deliver_sm handed to it, numbering them. A deliver_sm not acknowledged when the
/// connection ends (the client died with it unread, or before its answer) is delivered again, on
/// another bound session or to the next that binds, as an SMSC does with a receipt it could not
/// hand over; one answered with an error (the client could not store it) is delivered again
/// after [`REDELIVER_AFTER`].
pub(crate) async fn run<S>(stream: S, shared: Arc<Shared>, session_no: u64)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sink, mut source) = Framed::new(stream, CommandCodec::new()).split();
    let (out, mut outgoing) = mpsc::unbounded_channel::<Command>();
    let mut dropped = shared.drop_all.subscribe();
    let mut deliver_seq = 1u32;
    let mut unacked: HashMap<u32, Command> = HashMap::new();
    loop {
        tokio::select! {
            incoming = source.next() => {
                let Some(Ok(command)) = incoming else { break };
                if command.id() == CommandId::DeliverSmResp {
                    let given = unacked.remove(&command.sequence_number());
                    // Refused for now (ESME_RX_T_APPN: the client could not store it): again later.
                    if let (Some(given), false) = (given, command.status() == CommandStatus::EsmeRok) {
                        shared.schedule(REDELIVER_AFTER, given);
                    }
                }
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
                    unacked.insert(deliver_seq, command.clone());
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
    // What this connection was given and never acknowledged goes out again elsewhere, in order.
    let mut again: Vec<(u32, Command)> = unacked.into_iter().collect();
    again.sort_by_key(|(seq, _)| *seq);
    let unread = std::iter::from_fn(|| outgoing.try_recv().ok()).filter(|c| c.id() == CommandId::DeliverSm);
    let again: Vec<Command> = again.into_iter().map(|(_, c)| c).chain(unread).collect();
    if !again.is_empty() {
        tracing::debug!(
            session_no,
            count = again.len(),
            "sandbox: deliver_sm not acknowledged, to deliver again"
        );
    }
    for command in again {
        shared.deliver(command);
    }
    tracing::debug!(session_no, "sandbox: connection closed");
}

/// Queues an answer on the connection (`Err` once its writer is gone).
fn respond(
    out: &mpsc::UnboundedSender<Command>,
    status: CommandStatus,
    seq: u32,
    pdu: impl Into<Pdu>,
) -> Result<(), ()> {
    out.send(Command::new(status, seq, pdu)).map_err(|_| ())
}

/// Handles one PDU from the client: answers it, and says whether the connection stays open
/// (`Err` once the connection's writer is gone).
async fn handle(
    shared: &Arc<Shared>,
    out: &mpsc::UnboundedSender<Command>,
    session_no: u64,
    command: Command,
) -> Result<After, ()> {
    let seq = command.sequence_number();
    match command.pdu() {
        Some(Pdu::BindTransceiver(_) | Pdu::BindReceiver(_) | Pdu::BindTransmitter(_)) => {
            bind(shared, out, session_no, &command)
        }
        Some(Pdu::EnquireLink) => {
            respond(out, CommandStatus::EsmeRok, seq, Pdu::EnquireLinkResp).map(|()| After::Continue)
        }
        Some(Pdu::Unbind) => {
            respond(out, CommandStatus::EsmeRok, seq, Pdu::UnbindResp)?;
            Ok(After::Close)
        }
        Some(Pdu::SubmitSm(submit)) => submit::submit_sm(shared, out, seq, submit).await,
        Some(Pdu::DeliverSmResp(_)) => Ok(After::Continue),
        _ => respond(out, CommandStatus::EsmeRinvcmdid, seq, Pdu::GenericNack).map(|()| After::Continue),
    }
}

/// A bind of any kind: refused (and the connection closed) for a wrong password or while binds
/// are refused; otherwise accepted, and a session that takes deliver_sm gets the receipts that
/// waited for one.
fn bind(
    shared: &Arc<Shared>,
    out: &mpsc::UnboundedSender<Command>,
    session_no: u64,
    command: &Command,
) -> Result<After, ()> {
    let seq = command.sequence_number();
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
        let pending: Vec<Command> = std::mem::take(&mut *shared.pending.lock().unwrap_or_else(|p| p.into_inner()));
        for c in pending {
            out.send(c).map_err(|_| ())?;
        }
    }
    Ok(After::Continue)
}
