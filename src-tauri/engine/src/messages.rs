//! Messages and their submit attempts, as the store keeps them. Intake (API, CSV, compose) and the
//! dispatcher build on these.

use rusqlite::params;

use crate::domain::{AttemptOutcome, IntakeChannel, MessageKind, QueueStatus};
use crate::receipts::correlate;
use crate::receipts::policy::ReceiptPolicy;
use crate::store::Text;
use crate::store::{Entity, StoreError, WriteTx};

/// A message as handed to us, ready to be written.
#[derive(Debug, Clone)]
pub struct NewMessage {
    pub channel: IntakeChannel,
    pub destination_raw: String,
    /// E.164, normalised by intake.
    pub destination: String,
    pub body: String,
    pub encoding: String,
    pub segments: u32,
    pub kind: MessageKind,
    pub connection: String,
    /// SMPP registered_delivery requested for it.
    pub registered_delivery: u8,
    pub client_ref: Option<String>,
    pub ordering_key: Option<String>,
    pub valid_until: Option<i64>,
    pub scheduled_at: Option<i64>,
    /// Urgency within its kind, 0 (first) to 9; one-time codes still go before transactional
    /// messages, and those before bulk ones, whatever their priority.
    pub priority: u8,
    /// The API key that handed it in, if one did.
    pub api_key_id: Option<i64>,
    /// The client's Idempotency-Key, with its scope and the hash of the request it came with.
    pub idempotency: Option<Idempotency>,
}

/// An idempotency key as recorded on the message it created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Idempotency {
    pub scope: String,
    pub key: String,
    pub request_hash: String,
}

/// The within-kind priority a message gets when none is asked for.
pub const DEFAULT_PRIORITY: u8 = 5;

/// The queue's ordering value: kind first, then the message's own priority.
pub fn queue_priority(kind: MessageKind, priority: u8) -> i64 {
    kind.priority() * 10 + i64::from(priority.min(9))
}

impl NewMessage {
    /// A message with the encoding and segment count its text needs, a final receipt requested,
    /// sent as soon as possible.
    pub fn text(
        channel: IntakeChannel,
        destination: &str,
        body: &str,
        kind: MessageKind,
        connection: &str,
    ) -> NewMessage {
        let plan = crate::sms::encoding::plan(body);
        NewMessage {
            channel,
            destination_raw: destination.into(),
            destination: destination.into(),
            body: body.into(),
            encoding: plan.encoding.as_str().into(),
            segments: plan.segments,
            kind,
            connection: connection.into(),
            registered_delivery: 1,
            client_ref: None,
            ordering_key: None,
            valid_until: None,
            scheduled_at: None,
            priority: DEFAULT_PRIORITY,
            api_key_id: None,
            idempotency: None,
        }
    }
}

/// Writes a message and puts it in the queue; returns its id.
pub fn insert(tx: &mut WriteTx<'_>, m: &NewMessage) -> Result<i64, StoreError> {
    let now = tx.now_ms();
    let priority = queue_priority(m.kind, m.priority);
    tx.conn()
        .prepare_cached(
            "INSERT INTO message (created_at, channel, destination_raw, destination, body, encoding, segments, kind,
                 priority, ordering_key, valid_until, scheduled_at, registered_delivery, connection, client_ref,
                 api_key_id, idempotency_scope, idempotency_key, request_hash)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
        )?
        .execute(params![
            now,
            Text(m.channel),
            m.destination_raw,
            m.destination,
            m.body,
            m.encoding,
            m.segments,
            Text(m.kind),
            priority,
            m.ordering_key,
            m.valid_until,
            m.scheduled_at,
            m.registered_delivery,
            m.connection,
            m.client_ref,
            m.api_key_id,
            m.idempotency.as_ref().map(|i| &i.scope),
            m.idempotency.as_ref().map(|i| &i.key),
            m.idempotency.as_ref().map(|i| &i.request_hash),
        ])?;
    let id = tx.conn().last_insert_rowid();
    tx.conn()
        .prepare_cached(
            "INSERT INTO queue (message_id, status, priority, next_attempt_at, updated_at, expires_at)
             VALUES (?1, 'queued', ?2, ?3, ?4, ?5)",
        )?
        .execute(params![id, priority, m.scheduled_at.unwrap_or(now), now, m.valid_until])?;
    tx.changed(Entity::Message, id);
    Ok(id)
}

/// A submit try about to go on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttemptRef {
    pub id: i64,
    pub attempt_no: u32,
}

/// Where a try goes: the connection and session that write its PDU, and its sequence number.
#[derive(Debug, Clone, Copy)]
pub struct Wire<'a> {
    pub connection: &'a str,
    pub session_id: &'a str,
    pub sequence_number: u32,
}

impl Wire<'static> {
    /// The sandbox's first session, for tests that record tries by hand.
    #[cfg(test)]
    pub(crate) fn sandbox() -> Wire<'static> {
        Wire {
            connection: "sandbox",
            session_id: "s1",
            sequence_number: 7,
        }
    }
}

/// Records a submit try of one part before its PDU is written (outcome pending): the connection
/// and session that will write it, its sequence number, and the receipt it asks for.
pub fn begin_attempt(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    segment_no: u32,
    wire: Wire<'_>,
    registered_delivery: u8,
) -> Result<AttemptRef, StoreError> {
    let now = tx.now_ms();
    let attempt_no: u32 = tx
        .conn()
        .prepare_cached(
            "SELECT coalesce(max(attempt_no), 0) + 1 FROM attempt WHERE message_id = ?1 AND segment_no = ?2",
        )?
        .query_row(params![message_id, segment_no], |r| r.get(0))?;
    tx.conn()
        .prepare_cached(
            "INSERT INTO attempt (message_id, attempt_no, segment_no, connection, session_id, sequence_number,
                 created_at, outcome, registered_delivery)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?
        .execute(params![
            message_id,
            attempt_no,
            segment_no,
            wire.connection,
            wire.session_id,
            wire.sequence_number,
            now,
            Text(AttemptOutcome::Pending),
            registered_delivery,
        ])?;
    let id = tx.conn().last_insert_rowid();
    tx.changed(Entity::Attempt, id);
    Ok(AttemptRef { id, attempt_no })
}

/// What recording an accepted submit did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Accepted {
    /// Every part of the message is now accepted (in its current round of sending).
    pub whole: bool,
    /// Receipts that arrived first and waited for this id, now matched.
    pub matched: usize,
}

/// Records an accepted submit_sm_resp: when the PDU was written, the provider's id exactly as
/// returned and its matching key (under the receipt rules in force), and any receipt that arrived
/// first and was waiting for this id. The message is accepted once every part is; until then it
/// stays leased to the dispatcher sending its other parts.
pub fn record_accepted(
    tx: &mut WriteTx<'_>,
    attempt_id: i64,
    written_at: Option<i64>,
    provider_message_id: &str,
    policy: &ReceiptPolicy,
) -> Result<Accepted, StoreError> {
    let now = tx.now_ms();
    let key = policy.response_key(provider_message_id);
    let (message_id, connection): (i64, String) = tx
        .conn()
        .prepare_cached(
            "UPDATE attempt SET outcome = 'accepted', command_status = 0, responded_at = ?2,
                 sent_at = coalesce(?5, sent_at, ?2), provider_message_id = ?3, provider_id_norm = ?4
             WHERE id = ?1 RETURNING message_id, connection",
        )?
        .query_row(params![attempt_id, now, provider_message_id, key, written_at], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    // A message sent whole is whole with this answer; one in parts, once every part is accepted
    // in its current round of sending.
    let whole: bool = tx
        .conn()
        .prepare_cached(
            "SELECT CASE WHEN m.segments <= 1 THEN 1 ELSE
                 (SELECT count(DISTINCT a.segment_no) FROM attempt a JOIN queue q ON q.message_id = a.message_id
                  WHERE a.message_id = m.id AND a.outcome = 'accepted' AND a.id > coalesce(q.round_from, 0))
                 >= m.segments END
             FROM message m WHERE m.id = ?1",
        )?
        .query_row([message_id], |r| r.get(0))?;
    tx.conn()
        .prepare_cached(
            // The last accepted submit is the accepted attempt with the highest id (segments may
            // be answered out of order); its time is this answer's (`responded_at` above).
            "UPDATE queue SET
                 status = CASE WHEN ?5 THEN ?2 ELSE status END,
                 attempts = attempts + ?5,
                 lease_owner = CASE WHEN ?5 THEN NULL ELSE lease_owner END,
                 lease_until = CASE WHEN ?5 THEN NULL ELSE lease_until END,
                 updated_at = ?3,
                 accepted_at = CASE WHEN ?4 > coalesce(accepted_attempt_id, 0) THEN ?3 ELSE accepted_at END,
                 accepted_attempt_id = max(?4, coalesce(accepted_attempt_id, 0))
             WHERE message_id = ?1",
        )?
        .execute(params![message_id, Text(QueueStatus::Accepted), now, attempt_id, whole])?;
    tx.changed(Entity::Attempt, attempt_id);
    tx.changed(Entity::Queue, message_id);
    let matched = correlate::on_provider_id(tx, &connection, provider_message_id, message_id, policy)?;
    Ok(Accepted { whole, matched })
}

/// The messages whose queue row does not name their last accepted submit (the accepted attempt
/// with the highest id) and its time as the attempts themselves say: what must stay empty.
#[cfg(test)]
pub(crate) fn accepted_submits_disagreeing(conn: &rusqlite::Connection) -> rusqlite::Result<Vec<i64>> {
    conn.prepare(
        "SELECT q.message_id FROM queue q
         LEFT JOIN attempt a
             ON a.id = (SELECT max(id) FROM attempt WHERE message_id = q.message_id AND outcome = 'accepted')
         WHERE q.accepted_attempt_id IS NOT a.id
            OR q.accepted_at IS NOT coalesce(a.responded_at, a.sent_at, a.created_at)
         ORDER BY q.message_id",
    )?
    .query_map([], |r| r.get(0))?
    .collect()
}
