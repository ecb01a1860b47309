//! The `inbound_message` table: each PDU from a handset (mobile-originated), kept with the receipt
//! row it arrived as, its decoded text and its place in a long message. A PDU belongs to an inbox
//! message ([`super::inbox`]) once its message is whole, or once the wait for its other parts ran
//! out.

use crate::db::Row;
use crate::writer::WriteTx;
use crate::Reads;
use crate::StoreError;

/// The place of one part in a long message: its reference, the number of parts, its number (from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub reference: u16,
    pub total: u8,
    pub seq: u8,
}

/// A PDU from a handset, as it arrived and as it reads.
pub struct NewInbound<'a> {
    pub receipt_id: i64,
    pub connection: &'a str,
    pub source_addr: Option<&'a str>,
    pub destination_addr: Option<&'a str>,
    /// The octets as the receipt log's text shows them (latin-1).
    pub body: Option<&'a str>,
    /// The text, decoded by its data coding.
    pub text: &'a str,
    pub alphabet: &'a str,
    pub place: Option<Place>,
    pub received_at: i64,
}

/// Stores a PDU from a handset; returns its id.
pub fn insert(tx: &mut WriteTx<'_>, m: &NewInbound<'_>) -> Result<i64, StoreError> {
    tx.db().one(
        "INSERT INTO inbound_message (receipt_id, connection, source_addr, destination_addr, body, received_at,
             text, alphabet, concat_ref, concat_total, concat_seq)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) RETURNING id",
        &[
            &m.receipt_id,
            &m.connection,
            &m.source_addr,
            &m.destination_addr,
            &m.body,
            &m.received_at,
            &m.text,
            &m.alphabet,
            &m.place.map(|p| p.reference),
            &m.place.map(|p| p.total),
            &m.place.map(|p| p.seq),
        ],
    )
}

/// One stored part of a long message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPart {
    pub id: i64,
    pub seq: u8,
    pub text: String,
    pub alphabet: String,
    pub received_at: i64,
}

/// The parts of one long message from `source_addr` on `connection` (reference and number of
/// parts) that belong to no inbox message yet, by part number then arrival.
pub fn waiting_parts(
    conn: &impl Reads,
    connection: &str,
    source_addr: Option<&str>,
    place: Place,
) -> Result<Vec<StoredPart>, StoreError> {
    conn.db().query(
        "SELECT id, concat_seq, coalesce(text, body, ''), coalesce(alphabet, 'latin1'), received_at
         FROM inbound_message
         WHERE inbox_message_id IS NULL AND connection = ?1 AND source_addr IS NOT DISTINCT FROM ?2
           AND concat_ref = ?3 AND concat_total = ?4
         ORDER BY concat_seq, id",
        &[&connection, &source_addr, &place.reference, &place.total],
        part_row,
    )
}

/// The parts that belong to inbox message `inbox_id`, by part number then arrival.
pub fn parts_of(conn: &impl Reads, inbox_id: i64) -> Result<Vec<StoredPart>, StoreError> {
    conn.db().query(
        "SELECT id, coalesce(concat_seq, 1), coalesce(text, body, ''), coalesce(alphabet, 'latin1'), received_at
         FROM inbound_message WHERE inbox_message_id = ?1 ORDER BY concat_seq, id",
        &[&inbox_id],
        part_row,
    )
}

fn part_row(r: &Row<'_, '_>) -> Result<StoredPart, StoreError> {
    Ok(StoredPart {
        id: r.get(0)?,
        seq: r.get(1)?,
        text: r.get(2)?,
        alphabet: r.get(3)?,
        received_at: r.get(4)?,
    })
}

/// Makes the PDUs part of inbox message `inbox_id`.
pub fn attach(tx: &mut WriteTx<'_>, ids: &[i64], inbox_id: i64) -> Result<(), StoreError> {
    for id in ids {
        tx.db().execute(
            "UPDATE inbound_message SET inbox_message_id = ?2 WHERE id = ?1",
            &[id, &inbox_id],
        )?;
    }
    Ok(())
}

/// A long message some of whose parts have waited since before `before`: its connection, sender
/// and place (any of its parts' numbers).
pub fn overdue(conn: &impl Reads, before: i64) -> Result<Vec<(String, Option<String>, Place)>, StoreError> {
    conn.db().query(
        "SELECT connection, source_addr, concat_ref, concat_total, min(received_at) AS first
         FROM inbound_message WHERE inbox_message_id IS NULL AND concat_ref IS NOT NULL
         GROUP BY connection, source_addr, concat_ref, concat_total
         HAVING min(received_at) < ?1 ORDER BY first LIMIT 100",
        &[&before],
        |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                Place {
                    reference: r.get(2)?,
                    total: r.get(3)?,
                    seq: 1,
                },
            ))
        },
    )
}

/// The first PDU after `after` stored before inbox messages existed (schema 11): it has no decoded
/// text yet. Its id and its receipt's.
pub fn next_unread_text(conn: &impl Reads, after: i64) -> Result<Option<(i64, i64)>, StoreError> {
    conn.db().query_opt(
        "SELECT id, receipt_id FROM inbound_message WHERE id > ?1 AND text IS NULL ORDER BY id LIMIT 1",
        &[&after],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// Records the decoded text of a PDU stored before inbox messages existed.
pub fn set_decoded(
    tx: &mut WriteTx<'_>,
    id: i64,
    text: &str,
    alphabet: &str,
    place: Option<Place>,
) -> Result<(), StoreError> {
    tx.db().execute(
        "UPDATE inbound_message SET text = ?2, alphabet = ?3, concat_ref = ?4, concat_total = ?5,
             concat_seq = ?6
         WHERE id = ?1",
        &[
            &id,
            &text,
            &alphabet,
            &place.map(|p| p.reference),
            &place.map(|p| p.total),
            &place.map(|p| p.seq),
        ],
    )?;
    Ok(())
}

/// What the receipt log holds of a PDU from a handset: what reading it needs.
#[derive(Debug, Clone, Default)]
pub struct Arrived {
    pub connection: String,
    /// `smpp_deliver_sm`, `smpp_data_sm` or `http` (a provider's inbound webhook).
    pub source: String,
    /// The HTTP provider preset that reads it.
    pub provider: Option<String>,
    /// The HTTP request's method, content type and query string, as JSON.
    pub headers_json: Option<String>,
    /// Its place among the messages of one HTTP request (from 0).
    pub part: u32,
    /// The provider's id of the message, for an HTTP one.
    pub message_id_raw: Option<String>,
    pub source_addr: Option<String>,
    pub source_ton: Option<u8>,
    pub destination_addr: Option<String>,
    pub raw: Vec<u8>,
    pub raw_text: Option<String>,
    pub esm_class: Option<u8>,
    pub data_coding: Option<u8>,
    /// The TLVs as `[{"tag": "0x0424", "hex": "..."}]`.
    pub tlvs_json: Option<String>,
    pub received_at: i64,
}

/// The receipt row `receipt_id`, as [`Arrived`].
pub fn arrived(conn: &impl Reads, receipt_id: i64) -> Result<Option<Arrived>, StoreError> {
    conn.db().query_opt(
        "SELECT connection, source_addr, source_ton, destination_addr, raw, raw_text, esm_class, data_coding,
             tlvs_json, received_at, source, provider, headers_json, part, message_id_raw
         FROM receipt WHERE id = ?1",
        &[&receipt_id],
        |r| {
            Ok(Arrived {
                connection: r.get(0)?,
                source: r.get(10)?,
                provider: r.get(11)?,
                headers_json: r.get(12)?,
                part: r.get(13)?,
                message_id_raw: r.get(14)?,
                source_addr: r.get(1)?,
                source_ton: r.get(2)?,
                destination_addr: r.get(3)?,
                raw: r.get(4)?,
                raw_text: r.get(5)?,
                esm_class: r.get(6)?,
                data_coding: r.get(7)?,
                tlvs_json: r.get(8)?,
                received_at: r.get(9)?,
            })
        },
    )
}

/// The receipt row PDU `id` arrived as.
pub fn receipt_of(conn: &impl Reads, id: i64) -> Result<Option<i64>, StoreError> {
    conn.db()
        .query_opt("SELECT receipt_id FROM inbound_message WHERE id = ?1", &[&id], |r| {
            r.get(0)
        })
}

/// The first PDU from `source_addr` on `connection` that arrived as a receipt of kind `mo` with the
/// provider's message id `message_id` and is filed or waiting for its other parts: what a provider
/// posting the same message again repeats. Looked for in the sender's thread `thread` and among
/// the parts waiting, which the indexes reach without reading every message.
pub fn with_provider_id(
    conn: &impl Reads,
    connection: &str,
    thread: &str,
    source_addr: Option<&str>,
    message_id: &str,
) -> Result<Option<i64>, StoreError> {
    conn.db().one(
        "SELECT min(id) FROM (
                 SELECT im.id FROM inbox_message b
                     JOIN inbound_message im ON im.inbox_message_id = b.id
                     JOIN receipt r ON r.id = im.receipt_id
                 WHERE b.thread = ?2 AND b.connection = ?1 AND r.kind = 'mo' AND r.message_id_raw = ?4
                 UNION ALL
                 SELECT im.id FROM inbound_message im
                     JOIN receipt r ON r.id = im.receipt_id
                 WHERE im.inbox_message_id IS NULL AND im.connection = ?1 AND im.source_addr IS NOT DISTINCT FROM ?3
                     AND r.kind = 'mo' AND r.message_id_raw = ?4
             ) AS found",
        &[&connection, &thread, &source_addr, &message_id],
    )
}
