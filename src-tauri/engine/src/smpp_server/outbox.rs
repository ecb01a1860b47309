//! The receipts owed to a bound client, sent as deliver_sm in SMPP's receipt format (`id:… sub:…
//! dlvrd:… submit date:… done date:… stat:… err:… text:…`, with the receipted_message_id and
//! message_state TLVs), at most a window at a time, each until the client answers it. What is
//! not answered when the session ends stays owed, and goes at its next bind: at least once.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use rusmpp::pdus::DeliverSm;
use rusmpp::tlvs::MessageDeliveryRequestTlvValue;
use rusmpp::types::OctetString;
use rusmpp::values::{EsmClass, MessageState, Npi, Ton};
use rusmpp::{Command, CommandStatus};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::{Ctx, Stats};
use crate::domain::{DeliveryState, QueueStatus};
use crate::smpp::cstr;
use crate::store::tables::smpp::{self as table, Owed};
use crate::views::MessageDetail;

/// How long a deliver_sm waits for its answer before it is sent again.
const ANSWER_WAIT: Duration = Duration::from_secs(30);
/// How often the outbox is read while nothing is in flight.
const POLL: Duration = Duration::from_millis(200);

/// The client's answer to deliver_sm `sequence_number`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ack {
    pub sequence_number: u32,
    pub ok: bool,
}

/// Sends account `key`'s owed receipts on `out` until aborted (the session ended).
pub(super) async fn push(
    ctx: Arc<Ctx>,
    key: i64,
    out: mpsc::UnboundedSender<Command>,
    mut acks: mpsc::UnboundedReceiver<Ack>,
    window: usize,
    stats: Arc<Stats>,
) {
    // Sequence numbers of our own requests, apart from the client's.
    let mut seq: u32 = 0x4000_0000;
    let mut in_flight: BTreeMap<u32, (i64, Instant)> = BTreeMap::new();
    let mut after = 0i64;
    loop {
        if in_flight.len() < window {
            let sending: HashSet<i64> = in_flight.values().map(|(id, _)| *id).collect();
            let room = window - in_flight.len();
            let owed = ctx
                .store
                .reader()
                .read(move |c| table::owed(c, key, after, room))
                .await
                .unwrap_or_default();
            for o in owed.into_iter().filter(|o| !sending.contains(&o.id)) {
                after = after.max(o.id);
                seq = seq.wrapping_add(1);
                in_flight.insert(seq, (o.id, Instant::now()));
                if out.send(deliver_sm(&o, seq)).is_err() {
                    return;
                }
            }
        }
        let mut answered = Vec::new();
        let wait = tokio::time::sleep(POLL);
        tokio::pin!(wait);
        loop {
            tokio::select! {
                ack = acks.recv() => match ack {
                    None => return,
                    Some(a) => match in_flight.remove(&a.sequence_number) {
                        Some((id, _)) if a.ok => answered.push(id),
                        // Refused for now: sent again from the outbox later.
                        Some((id, _)) => after = after.min(id - 1),
                        None => {}
                    },
                },
                _ = &mut wait => break,
            }
            if in_flight.is_empty() {
                break;
            }
        }
        // Unanswered too long: owed still, sent again.
        let now = Instant::now();
        let late: Vec<u32> = in_flight
            .iter()
            .filter(|(_, (_, at))| now.duration_since(*at) > ANSWER_WAIT)
            .map(|(s, _)| *s)
            .collect();
        for s in late {
            if let Some((id, _)) = in_flight.remove(&s) {
                after = after.min(id - 1);
            }
        }
        if let Some(unmarked) = settle(&ctx, answered, &stats).await {
            after = after.min(unmarked - 1);
        }
    }
}

/// Marks what the client answered as no longer owed. `Some(first id)` when that could not be
/// written: they are still owed in the database, to be read and sent again.
async fn settle(ctx: &Ctx, answered: Vec<i64>, stats: &Stats) -> Option<i64> {
    let first = *answered.iter().min()?;
    let n = answered.len() as u64;
    match ctx
        .store
        .writer()
        .write(move |tx| table::delivered(tx, &answered))
        .await
    {
        Ok(()) => {
            stats.delivered(n);
            None
        }
        Err(e) => {
            tracing::error!(error = %e, "receipts an SMPP client answered could not be marked; sent again");
            Some(first)
        }
    }
}

/// The deliver_sm of an owed receipt or reply.
fn deliver_sm(o: &Owed, seq: u32) -> Command {
    match o.message_id {
        Some(_) => receipt(o, seq),
        None => reply(o, seq),
    }
}

/// The handset's address: international (without its `+`) when it is a number.
fn handset(o: &Owed) -> (Ton, Npi, &str) {
    match o.handset.strip_prefix('+') {
        Some(digits) => (Ton::International, Npi::Isdn, digits),
        None => (Ton::Unknown, Npi::Unknown, o.handset.as_str()),
    }
}

/// A reply from a handset: its text in the GSM default alphabet's ASCII part when it fits, else
/// UCS-2; longer than one short_message, in message_payload.
fn reply(o: &Owed, seq: u32) -> Command {
    let (coding, bytes): (u8, Vec<u8>) = match o
        .text
        .chars()
        .all(|c| c.is_ascii() && (!c.is_ascii_control() || c == '\n' || c == '\r'))
    {
        true => (0x00, o.text.clone().into_bytes()),
        false => (0x08, o.text.encode_utf16().flat_map(u16::to_be_bytes).collect()),
    };
    let (ton, npi, from) = handset(o);
    let builder = DeliverSm::builder()
        .source_addr_ton(ton)
        .source_addr_npi(npi)
        .source_addr(cstr(from))
        .destination_addr(cstr(o.ours.as_deref().unwrap_or_default()))
        .esm_class(EsmClass::from(0x00))
        .data_coding(rusmpp::values::DataCoding::from(coding));
    let pdu = match bytes.len() <= 254 {
        true => builder
            .short_message(OctetString::from_vec(bytes).unwrap_or_default())
            .build(),
        false => builder
            .tlvs(vec![MessageDeliveryRequestTlvValue::MessagePayload(
                rusmpp::values::MessagePayload::new(rusmpp::types::AnyOctetString::from_vec(bytes)),
            )])
            .build(),
    };
    Command::new(CommandStatus::EsmeRok, seq, pdu)
}

/// A receipt, in SMPP 3.4 Appendix B's format with its TLVs.
fn receipt(o: &Owed, seq: u32) -> Command {
    let id = o.message_id.unwrap_or_default().to_string();
    let stat = o.stat.as_deref().unwrap_or("UNKNOWN");
    let delivered = if stat == "DELIVRD" { "001" } else { "000" };
    let excerpt: String = o
        .text
        .chars()
        .take(20)
        .map(|c| if c.is_ascii() && !c.is_ascii_control() { c } else { '?' })
        .collect();
    let text = format!(
        "id:{id} sub:001 dlvrd:{delivered} submit date:{} done date:{} stat:{stat} err:000 text:{excerpt}",
        short_time(o.submitted_at.unwrap_or(o.created_at)),
        short_time(o.created_at),
    );
    let state = match o.message_state.unwrap_or(7) {
        2 => MessageState::Delivered,
        3 => MessageState::Expired,
        4 => MessageState::Deleted,
        5 => MessageState::Undeliverable,
        8 => MessageState::Rejected,
        _ => MessageState::Unknown,
    };
    let (handset, international) = match o.handset.strip_prefix('+') {
        Some(digits) => (digits, true),
        None => (o.handset.as_str(), false),
    };
    let pdu = DeliverSm::builder()
        .source_addr_ton(if international {
            Ton::International
        } else {
            Ton::Unknown
        })
        .source_addr_npi(if international { Npi::Isdn } else { Npi::Unknown })
        .source_addr(cstr(handset))
        .destination_addr(cstr(o.ours.as_deref().unwrap_or_default()))
        .esm_class(EsmClass::from(0x04))
        .short_message(OctetString::from_vec(text.into_bytes()).unwrap_or_default())
        .tlvs(vec![
            MessageDeliveryRequestTlvValue::ReceiptedMessageId(cstr(&id)),
            MessageDeliveryRequestTlvValue::MessageState(state),
        ])
        .build();
    Command::new(CommandStatus::EsmeRok, seq, pdu)
}

/// `YYMMDDhhmm` in UTC, as receipts write their dates.
fn short_time(ms: i64) -> String {
    let (y, mo, d, h, mi, _) = smsdesk_core::time::civil(ms);
    format!("{:02}{mo:02}{d:02}{h:02}{mi:02}", y % 100)
}

/// An SMPP absolute time in UTC (`YYMMDDhhmmss000+`), for query_sm_resp's final_date.
pub(super) fn smpp_time(ms: i64) -> String {
    let (y, mo, d, h, mi, s) = smsdesk_core::time::civil(ms);
    format!("{:02}{mo:02}{d:02}{h:02}{mi:02}{s:02}000+", y % 100)
}

/// Where a message stands, as query_sm answers: SMPP's message_state, and when it became final.
pub(super) fn state_of(d: &MessageDetail) -> (MessageState, Option<i64>) {
    let at = Some(d.queue.updated_at_ms);
    match d.state.state {
        DeliveryState::Delivered => return (MessageState::Delivered, at),
        DeliveryState::Expired => return (MessageState::Expired, at),
        DeliveryState::Deleted => return (MessageState::Deleted, at),
        DeliveryState::Undeliverable => return (MessageState::Undeliverable, at),
        DeliveryState::Rejected => return (MessageState::Rejected, at),
        DeliveryState::Unknown | DeliveryState::Skipped => return (MessageState::Unknown, at),
        _ => {}
    }
    match d.queue.status {
        QueueStatus::Failed => (MessageState::Rejected, at),
        QueueStatus::Expired => (MessageState::Expired, at),
        QueueStatus::Cancelled => (MessageState::Deleted, at),
        QueueStatus::OutcomeUnknown => (MessageState::Unknown, None),
        QueueStatus::Queued | QueueStatus::Held => (MessageState::Scheduled, None),
        QueueStatus::Sending | QueueStatus::Accepted => (MessageState::Enroute, None),
    }
}
