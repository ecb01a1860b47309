//! Messages from handsets: each PDU is decoded (GSM 7-bit, UCS-2, Latin-1...), or read from the
//! request of the HTTP provider that posted it, the parts of a long one are put back together by
//! their reference, and a whole message goes to the inbox, in the thread of the number that sent
//! it. A reply whose whole text is a stop word puts the number on the opt-out list; a start word
//! takes it off (see [`crate::optouts`]). A reply never changes the state of a message we sent:
//! threads show them side by side, nothing more. A provider posting the same message again (its
//! message id) files it once.
//!
//! The parts of a long reply wait for each other up to `inbox.reassembly_timeout_seconds`; then
//! [`file_overdue`] shows the parts that came, marked incomplete, and a late part still joins them.
//! A keyword is looked for only in a whole message.

mod http;
mod sender;

use smsdesk_core::inbox::InboxRules;
use smsdesk_core::optout::Intent as KeywordIntent;
use smsdesk_core::receipts::parse::Tlv;
use smsdesk_core::sms::decode::{self, UserData};

use crate::optouts::{self, Source};
use crate::store::tables::inbound::{self, NewInbound, Place, StoredPart};
use crate::store::tables::inbox::{self, Intent, NewInboxMessage};
use crate::store::tables::opt_out::Reason;
use crate::store::{StoreError, WriteTx};

pub use sender::phone_of;

/// How long after its first part a long message shown incomplete still takes its late parts.
const LATE_PARTS_MS: i64 = 24 * 3_600_000;

/// What became of a message from a handset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filed {
    /// Stored as this `inbound_message`: filed, or waiting for the other parts of its message.
    New(i64),
    /// A provider posted again the message it had posted as this `inbound_message` (the same
    /// message id): kept as evidence only, not filed twice.
    Repeat(i64),
}

/// Files the message from a handset stored as receipt `receipt_id` (a PDU, or a provider's
/// inbound webhook).
pub fn receive(tx: &mut WriteTx<'_>, receipt_id: i64, rules: &InboxRules) -> Result<Filed, StoreError> {
    let (a, decoded, place) = read(tx, receipt_id)?;
    let sender = sender_of(&a, rules);
    if let Some(first) = http::repeat_of(&*tx, &a, sender.thread())? {
        return Ok(Filed::Repeat(first));
    }
    let id = inbound::insert(
        tx,
        &NewInbound {
            receipt_id,
            connection: &a.connection,
            source_addr: a.source_addr.as_deref(),
            destination_addr: a.destination_addr.as_deref(),
            body: a.raw_text.as_deref(),
            text: &decoded.text,
            alphabet: decoded.alphabet.as_str(),
            place,
            received_at: a.received_at,
        },
    )?;
    file_part(tx, &sender, &a, id, &decoded, place, rules)?;
    Ok(Filed::New(id))
}

/// Files the PDUs from handsets stored before the inbox existed (schema 11), oldest first, up to
/// `limit` of them after `inbound_message` id `after`: each is read again from its receipt row,
/// as [`receive`] reads a new one (a keyword reply among them opts its number out now). Returns
/// how many it looked at and the last id.
pub fn file_earlier(
    tx: &mut WriteTx<'_>,
    rules: &InboxRules,
    after: i64,
    limit: u32,
) -> Result<(usize, i64), StoreError> {
    let mut last = after;
    let mut n = 0;
    while let Some((id, receipt_id)) = inbound::next_unread_text(&*tx, last)? {
        let (a, decoded, place) = read(tx, receipt_id)?;
        inbound::set_decoded(tx, id, &decoded.text, decoded.alphabet.as_str(), place)?;
        file_part(tx, &sender_of(&a, rules), &a, id, &decoded, place, rules)?;
        last = id;
        n += 1;
        if n >= limit as usize {
            break;
        }
    }
    Ok((n, last))
}

/// The receipt row of a message from a handset, its text decoded (a PDU's octets, or read again
/// from a provider's request), and its place in a long message.
fn read(tx: &WriteTx<'_>, receipt_id: i64) -> Result<(inbound::Arrived, decode::Decoded, Option<Place>), StoreError> {
    let a = inbound::arrived(tx, receipt_id)?
        .ok_or_else(|| StoreError::Corrupt(format!("receipt {receipt_id} is not stored")))?;
    let decoded = if http::is_http(&a) {
        http::decoded(receipt_id, &a)
    } else {
        let tlvs = tlvs_of(a.tlvs_json.as_deref());
        decode::decode(&UserData {
            esm_class: a.esm_class,
            data_coding: a.data_coding,
            short_message: &a.raw,
            tlvs: &tlvs,
        })
    };
    if !decoded.notes.is_empty() {
        tracing::info!(receipt_id, notes = ?decoded.notes, "a message from a handset was not read exactly");
    }
    // A "long message" of one part is a message.
    let place = decoded.concat.filter(|c| c.total > 1).map(|c| Place {
        reference: c.reference,
        total: c.total,
        seq: c.seq,
    });
    Ok((a, decoded, place))
}

/// Who a message came from, as the inbox files it. A provider's webhook gives no type of number:
/// read as unknown, a sender in digits is an international number written with or without `+`
/// (Twilio's `+33612345678`, Vonage's `33612345678`), and with a leading 0 a national one.
fn sender_of<'a>(a: &'a inbound::Arrived, rules: &InboxRules) -> Sender<'a> {
    Sender {
        connection: &a.connection,
        address: a.source_addr.as_deref(),
        handset: a.source_addr.as_deref().unwrap_or(""),
        phone: phone_of(
            a.source_addr.as_deref().unwrap_or(""),
            a.source_ton,
            rules.region.as_deref(),
        ),
        recipient: a.destination_addr.as_deref(),
    }
}

/// Files PDU `id` (stored, decoded): a message of one part at once, a part with the others.
fn file_part(
    tx: &mut WriteTx<'_>,
    sender: &Sender<'_>,
    a: &inbound::Arrived,
    id: i64,
    decoded: &decode::Decoded,
    place: Option<Place>,
    rules: &InboxRules,
) -> Result<(), StoreError> {
    match place {
        None => {
            let part = StoredPart {
                id,
                seq: 1,
                text: decoded.text.clone(),
                alphabet: decoded.alphabet.as_str().to_owned(),
                received_at: a.received_at,
            };
            file(tx, sender, &[part], 1, rules)?;
        }
        Some(place) => join(tx, sender, id, place, a.received_at, rules)?,
    }
    Ok(())
}

/// Who a message came from, as the inbox files it.
struct Sender<'a> {
    connection: &'a str,
    /// The source address as the PDU gave it.
    address: Option<&'a str>,
    /// The same, as the inbox shows it (empty when the PDU had none).
    handset: &'a str,
    phone: Option<String>,
    recipient: Option<&'a str>,
}

impl Sender<'_> {
    /// The conversation its messages are filed in.
    fn thread(&self) -> &str {
        self.phone.as_deref().unwrap_or(self.handset)
    }
}

/// A part of a long message: into the message shown incomplete before it came, or with the parts
/// waiting for it; filed once every part is there.
fn join(
    tx: &mut WriteTx<'_>,
    sender: &Sender<'_>,
    id: i64,
    place: Place,
    received_at: i64,
    rules: &InboxRules,
) -> Result<(), StoreError> {
    let since = received_at - LATE_PARTS_MS;
    // A part delivered again (its answer lost on the way) is kept with the message that has it,
    // and changes nothing.
    let key = (place.reference, place.total, place.seq);
    if let Some(holding) = inbox::holding_part(&*tx, sender.connection, sender.handset, key, since)? {
        inbound::attach(tx, &[id], holding)?;
        return Ok(());
    }
    if let Some(shown) = inbox::incomplete(
        &*tx,
        sender.connection,
        sender.handset,
        place.reference,
        place.total,
        since,
    )? {
        inbound::attach(tx, &[id], shown)?;
        let parts = inbound::parts_of(&*tx, shown)?;
        let (text, received) = put_together(&parts, place.total);
        inbox::fill_in(tx, shown, &text, received)?;
        if received == place.total {
            classify(tx, sender, shown, &text, rules)?;
        }
        return Ok(());
    }
    let waiting = inbound::waiting_parts(&*tx, sender.connection, sender.address, place)?;
    if distinct_parts(&waiting) == usize::from(place.total) {
        file(tx, sender, &waiting, place.total, rules)?;
    }
    Ok(())
}

/// The number of different part numbers among `parts`.
fn distinct_parts(parts: &[StoredPart]) -> usize {
    let mut seqs: Vec<u8> = parts.iter().map(|p| p.seq).collect();
    seqs.dedup();
    seqs.len()
}

/// The text of a long message from its parts (sorted by part number; a part received twice counts
/// once), a missing part shown as "[…]"; and how many parts it has.
fn put_together(parts: &[StoredPart], total: u8) -> (String, u8) {
    let mut text = String::new();
    let mut received = 0u8;
    for seq in 1..=total.max(1) {
        match parts.iter().find(|p| p.seq == seq) {
            Some(p) => {
                text.push_str(&p.text);
                received += 1;
            }
            None => text.push_str(" […] "),
        }
    }
    (text, received)
}

/// Makes an inbox message of `parts` (of `total`), and looks for a keyword when it is whole.
fn file(
    tx: &mut WriteTx<'_>,
    sender: &Sender<'_>,
    parts: &[StoredPart],
    total: u8,
    rules: &InboxRules,
) -> Result<i64, StoreError> {
    let (text, received) = put_together(parts, total);
    let first = parts.iter().map(|p| p.received_at).min().unwrap_or_default();
    let id = inbox::insert(
        tx,
        &NewInboxMessage {
            connection: sender.connection,
            phone: sender.phone.as_deref(),
            handset: sender.handset,
            recipient: sender.recipient,
            text: &text,
            alphabet: parts.first().map_or("latin1", |p| p.alphabet.as_str()),
            parts: total.max(1),
            parts_received: received.max(1),
            received_at: first,
            completed_at: tx.now_ms(),
            intent: None,
        },
    )?;
    let ids: Vec<i64> = parts.iter().map(|p| p.id).collect();
    inbound::attach(tx, &ids, id)?;
    crate::store::tables::webhook::enqueue_inbound(tx, id, sender.phone.as_deref().unwrap_or(sender.handset))?;
    if received == total.max(1) {
        classify(tx, sender, id, &text, rules)?;
        // A whole reply to a message an SMPP client sent goes to that client too.
        if let Some(phone) = sender.phone.as_deref() {
            crate::store::tables::smpp::reply_due(tx, id, phone)?;
        }
    }
    Ok(id)
}

/// A whole message whose text is a keyword: noted on it, and the number goes on (or off) the list.
fn classify(
    tx: &mut WriteTx<'_>,
    sender: &Sender<'_>,
    id: i64,
    text: &str,
    rules: &InboxRules,
) -> Result<(), StoreError> {
    let Some(m) = rules.keywords.classify(text) else {
        return Ok(());
    };
    let intent = match m.intent {
        KeywordIntent::OptOut => Intent::OptOut,
        KeywordIntent::OptIn => Intent::OptIn,
    };
    inbox::set_intent(tx, id, intent, &m.keyword)?;
    let Some(phone) = sender.phone.as_deref() else {
        tracing::warn!(
            inbox_message_id = id,
            "a keyword reply came from an address that reads as no phone number: the opt-out list is not changed"
        );
        return Ok(());
    };
    // The handset that replied is who asked; that it was by a reply is in the entry's details.
    let actor = phone.to_owned();
    let src = Source {
        reason: Reason::Reply,
        note: None,
        inbox_message_id: Some(id),
        keyword: Some(&m.keyword),
        actor: &actor,
    };
    match intent {
        Intent::OptOut => {
            optouts::add(tx, phone, &rules.opt_out_kinds, &src)?;
        }
        Intent::OptIn => {
            optouts::remove(tx, phone, &src)?;
        }
    }
    Ok(())
}

/// Files the long messages whose parts have waited longer than the rules allow, with the parts
/// that came; returns how many.
pub fn file_overdue(tx: &mut WriteTx<'_>, rules: &InboxRules) -> Result<usize, StoreError> {
    let before = tx.now_ms() - rules.reassembly_ms;
    let groups = inbound::overdue(&*tx, before)?;
    for (connection, handset, place) in &groups {
        let parts = inbound::waiting_parts(&*tx, connection, handset.as_deref(), *place)?;
        let Some(first) = parts.first() else { continue };
        let receipt = first_receipt(tx, first.id)?;
        let sender = Sender {
            connection,
            address: handset.as_deref(),
            handset: handset.as_deref().unwrap_or(""),
            phone: phone_of(
                handset.as_deref().unwrap_or(""),
                receipt.as_ref().and_then(|a| a.source_ton),
                rules.region.as_deref(),
            ),
            recipient: receipt.as_ref().and_then(|a| a.destination_addr.as_deref()),
        };
        file(tx, &sender, &parts, place.total, rules)?;
    }
    Ok(groups.len())
}

/// The receipt row of the `inbound_message` `id`.
fn first_receipt(tx: &WriteTx<'_>, id: i64) -> Result<Option<inbound::Arrived>, StoreError> {
    match inbound::receipt_of(tx, id)? {
        Some(receipt_id) => inbound::arrived(tx, receipt_id),
        None => Ok(None),
    }
}

/// The TLVs as the receipt log writes them (`[{"tag": "0x0424", "hex": "..."}]`).
fn tlvs_of(json: Option<&str>) -> Vec<Tlv> {
    let Some(list) = json.and_then(|j| serde_json::from_str::<Vec<serde_json::Value>>(j).ok()) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|t| {
            let tag = u16::from_str_radix(t.get("tag")?.as_str()?.trim_start_matches("0x"), 16).ok()?;
            let value = hex_bytes(t.get("hex")?.as_str()?)?;
            Some(Tlv { tag, value })
        })
        .collect()
}

fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|b| u8::from_str_radix(b, 16).ok()))
        .collect()
}

#[cfg(test)]
mod tests;
