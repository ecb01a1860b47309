//! The `attempt` table: every try to hand a part of a message to the SMSC.

use smsdesk_core::domain::{AttemptOutcome, QueueStatus};
use smsdesk_core::parts::PartTry;

use crate::db::Param;
use crate::tables::queue;
use crate::totals::Delta;
use crate::writer::{Entity, WriteTx};
use crate::Reads;
use crate::{StoreError, Text};

/// A message's number of parts, and its parts' tries in its current round of sending, ordered by
/// part and, within a part, with an accepted try last (as [`smsdesk_core::parts::describe`] reads
/// them).
pub fn current_round(conn: &impl Reads, message_id: i64) -> Result<(u32, Vec<PartTry>), StoreError> {
    let db = conn.db();
    let (segments, round_from): (u32, i64) = db.query_row(
        "SELECT m.segments, coalesce(q.round_from, 0) FROM message m JOIN queue q ON q.message_id = m.id
         WHERE m.id = ?1",
        &[&message_id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    if segments <= 1 {
        return Ok((segments, Vec::new()));
    }
    let tries = db.query(
        "SELECT segment_no, outcome, provider_message_id, error FROM attempt
         WHERE message_id = ?1 AND id > ?2 ORDER BY segment_no, outcome = 'accepted', id",
        &[&message_id, &round_from],
        |r| {
            Ok(PartTry {
                segment_no: r.get(0)?,
                outcome: r.get::<Option<Text<_>>>(1)?.map(|t| t.0),
                provider_id: r.get(2)?,
                error: r.get(3)?,
            })
        },
    )?;
    Ok((segments, tries))
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
    /// Why it goes out on this connection when that is not its route's first (a failover).
    pub routing: Option<&'a str>,
}

impl Wire<'static> {
    /// The sandbox's first session, for tests that record tries by hand.
    #[doc(hidden)]
    pub fn sandbox() -> Wire<'static> {
        Wire {
            connection: "sandbox",
            session_id: "s1",
            sequence_number: 7,
            routing: None,
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
    let attempt_no: u32 = tx.db().one(
        "SELECT coalesce(max(attempt_no), 0) + 1 FROM attempt WHERE message_id = ?1 AND segment_no = ?2",
        &[&message_id, &segment_no],
    )?;
    let id: i64 = tx.db().one(
        "INSERT INTO attempt (message_id, attempt_no, segment_no, connection, session_id, sequence_number,
             created_at, outcome, registered_delivery, routing)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
         RETURNING id",
        &[
            &message_id,
            &attempt_no,
            &segment_no,
            &wire.connection,
            &wire.session_id,
            &wire.sequence_number,
            &now,
            // Unanswered: a try counts in the totals once it is answered (`answer`).
            &Text(AttemptOutcome::Pending),
            &registered_delivery,
            &wire.routing,
        ],
    )?;
    tx.report_changed(message_id);
    tx.changed(Entity::Attempt, id);
    Ok(AttemptRef { id, attempt_no })
}

/// What the store did with an accepted submit_sm_resp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptedSubmit {
    pub message_id: i64,
    pub connection: String,
    /// Every part of the message is now accepted (in its current round of sending).
    pub whole: bool,
}

/// Records an accepted submit_sm_resp on its try: when the PDU was written, the provider's id
/// exactly as returned and its matching key; and on the queue, the last accepted submit, and the
/// message accepted once every part is (until then it stays leased to the dispatcher sending its
/// other parts).
pub fn record_accepted(
    tx: &mut WriteTx<'_>,
    attempt_id: i64,
    written_at: Option<i64>,
    provider_message_id: &str,
    provider_id_key: &str,
) -> Result<AcceptedSubmit, StoreError> {
    let now = tx.now_ms();
    let (message_id, connection) = answer(
        tx,
        attempt_id,
        "UPDATE attempt SET outcome = 'accepted', command_status = 0, responded_at = ?2,
             sent_at = coalesce(?5, sent_at, ?2), provider_message_id = ?3, provider_id_norm = ?4
         WHERE id = ?1",
        &[&attempt_id, &now, &provider_message_id, &provider_id_key, &written_at],
    )?
    .ok_or(StoreError::NoRow)?;
    // A message sent whole is whole with this answer; one in parts, once every part is accepted
    // in its current round of sending. (Every branch an integer: PostgreSQL's CASE takes no mix
    // of integer and bool; the count is still only made for a message in parts.)
    let whole: bool = tx.db().one(
        "SELECT CASE WHEN m.segments <= 1 THEN 1
                 WHEN (SELECT count(DISTINCT a.segment_no) FROM attempt a JOIN queue q ON q.message_id = a.message_id
                       WHERE a.message_id = m.id AND a.outcome = 'accepted' AND a.id > coalesce(q.round_from, 0))
                      >= m.segments THEN 1
                 ELSE 0 END
         FROM message m WHERE m.id = ?1",
        &[&message_id],
    )?;
    queue::update_status(
        tx,
        message_id,
        // The last accepted submit is the accepted attempt with the highest id (segments may be
        // answered out of order); its time is this answer's (`responded_at` above). `?5` (whole) is
        // 0 or 1, compared as an integer: PostgreSQL gives a parameter one type.
        "UPDATE queue SET
             status = CASE WHEN ?5 = 1 THEN ?2 ELSE status END,
             attempts = attempts + ?5,
             lease_owner = CASE WHEN ?5 = 1 THEN NULL ELSE lease_owner END,
             lease_until = CASE WHEN ?5 = 1 THEN NULL ELSE lease_until END,
             updated_at = ?3,
             accepted_at = CASE WHEN ?4 > coalesce(accepted_attempt_id, 0) THEN ?3 ELSE accepted_at END,
             accepted_attempt_id = CASE WHEN ?4 > coalesce(accepted_attempt_id, 0) THEN ?4
                 ELSE coalesce(accepted_attempt_id, 0) END
         WHERE message_id = ?1",
        &[
            &message_id,
            &Text(QueueStatus::Accepted),
            &now,
            &attempt_id,
            &i64::from(whole),
        ],
    )?;
    tx.changed(Entity::Attempt, attempt_id);
    tx.changed(Entity::Queue, message_id);
    Ok(AcceptedSubmit {
        message_id,
        connection,
        whole,
    })
}

/// The connection a try was written to.
pub fn connection_of(tx: &WriteTx<'_>, attempt_id: i64) -> Result<String, StoreError> {
    tx.db()
        .one("SELECT connection FROM attempt WHERE id = ?1", &[&attempt_id])
}

/// Records how a try ended. `written_at` is when its PDU was written, if it was.
pub fn finish_attempt(
    tx: &mut WriteTx<'_>,
    attempt_id: i64,
    outcome: AttemptOutcome,
    command_status: Option<u32>,
    error: Option<&str>,
    written_at: Option<i64>,
) -> Result<(), StoreError> {
    let now = tx.now_ms();
    answer(
        tx,
        attempt_id,
        "UPDATE attempt SET outcome = ?2, command_status = ?3, error = ?4, responded_at = ?5,
             sent_at = coalesce(?6, sent_at)
         WHERE id = ?1",
        &[&attempt_id, &Text(outcome), &command_status, &error, &now, &written_at],
    )?;
    tx.changed(Entity::Attempt, attempt_id);
    Ok(())
}

/// Runs `update`, an UPDATE of try `attempt_id`, and counts a change of its outcome in the running
/// totals (the submits answered by minute, hour and day; see [`crate::totals`]): the outcome
/// before is read by the try's key, the one after is returned by the UPDATE itself. The try's
/// message and connection; `None` when there is no such try.
fn answer(
    tx: &mut WriteTx<'_>,
    attempt_id: i64,
    update: &str,
    params: &[&dyn Param],
) -> Result<Option<(i64, String)>, StoreError> {
    let before: Option<AttemptOutcome> =
        tx.db()
            .query_opt("SELECT outcome FROM attempt WHERE id = ?1", &[&attempt_id], |r| {
                Ok(r.get::<Text<_>>(0)?.0)
            })?;
    let after = tx.db().query_opt(
        &format!("{update} RETURNING message_id, connection, outcome, created_at"),
        params,
        |r| {
            Ok((
                (r.get(0)?, r.get(1)?),
                r.get::<Text<AttemptOutcome>>(2)?.0,
                r.get::<i64>(3)?,
            ))
        },
    )?;
    let Some((found, outcome, created_at)) = after else {
        return Ok(None);
    };
    tx.report_changed(found.0);
    if let Some(before) = before.filter(|b| *b != outcome) {
        tx.count(Delta::Tried {
            created_at,
            outcome: before,
            n: -1,
        });
        tx.count(Delta::Tried {
            created_at,
            outcome,
            n: 1,
        });
    }
    Ok(Some(found))
}

/// The tries whose outcome is still pending (id, message), oldest first.
pub fn pending(tx: &WriteTx<'_>) -> Result<Vec<(i64, i64)>, StoreError> {
    tx.db().query(
        "SELECT id, message_id FROM attempt WHERE outcome = 'pending' ORDER BY id",
        &[],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// One message's tries whose outcome is still pending, oldest first.
pub fn pending_of(tx: &WriteTx<'_>, message_id: i64) -> Result<Vec<i64>, StoreError> {
    tx.db().query(
        "SELECT id FROM attempt WHERE message_id = ?1 AND outcome = 'pending' ORDER BY id",
        &[&message_id],
        |r| r.get(0),
    )
}

/// Gives an unanswered try the provider's id a receipt brought (as received, and its key), unless
/// it has one.
pub fn adopt_provider_id(
    tx: &mut WriteTx<'_>,
    attempt_id: i64,
    raw: Option<&str>,
    key: &str,
) -> Result<(), StoreError> {
    tx.db().execute(
        "UPDATE attempt SET provider_message_id = ?2, provider_id_norm = ?3
         WHERE id = ?1 AND provider_id_norm IS NULL",
        &[&attempt_id, &raw, &key],
    )?;
    tx.changed(Entity::Attempt, attempt_id);
    Ok(())
}

/// The accepted tries on `connection` and the provider id each was answered with.
pub fn accepted_provider_ids(conn: &impl Reads, connection: &str) -> Result<Vec<(i64, String)>, StoreError> {
    conn.db().query(
        "SELECT id, provider_message_id FROM attempt
         WHERE connection = ?1 AND provider_message_id IS NOT NULL AND outcome = 'accepted'",
        &[&connection],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// Sets the key a try's provider id is matched by.
pub fn set_provider_key(tx: &mut WriteTx<'_>, attempt_id: i64, key: &str) -> Result<(), StoreError> {
    tx.db().execute(
        "UPDATE attempt SET provider_id_norm = ?2 WHERE id = ?1",
        &[&attempt_id, &key],
    )?;
    tx.changed(Entity::Attempt, attempt_id);
    Ok(())
}

/// The messages whose accepted submits carry this provider id key on this connection (at most
/// three: enough to tell none, one and several apart).
pub fn messages_with_provider_key(conn: &impl Reads, connection: &str, key: &str) -> Result<Vec<i64>, StoreError> {
    let db = conn.db();
    // The usual answer, one message or none, comes from the lowest and highest message id; the
    // DISTINCT below builds a temporary b-tree each time, so it is kept for several.
    let (low, high): (Option<i64>, Option<i64>) = db.query_row(
        "SELECT min(message_id), max(message_id) FROM attempt WHERE connection = ?1 AND provider_id_norm = ?2",
        &[&connection, &key],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )?;
    match (low, high) {
        (None, _) | (_, None) => return Ok(Vec::new()),
        (Some(low), Some(high)) if low == high => return Ok(vec![low]),
        _ => {}
    }
    db.query(
        "SELECT DISTINCT message_id FROM attempt WHERE connection = ?1 AND provider_id_norm = ?2 LIMIT 3",
        &[&connection, &key],
        |row| row.get(0),
    )
}

/// The tries on `connection` whose provider id has the key `key`, oldest first.
pub fn with_provider_key(conn: &impl Reads, connection: &str, key: &str) -> Result<Vec<i64>, StoreError> {
    conn.db().query(
        "SELECT id FROM attempt WHERE connection = ?1 AND provider_id_norm = ?2 ORDER BY id",
        &[&connection, &key],
        |row| row.get(0),
    )
}

/// The parts of a message whose accepted submits on `connection` carry the provider id key `key`.
pub fn parts_with_provider_key(
    conn: &impl Reads,
    message_id: i64,
    connection: &str,
    key: &str,
) -> Result<Vec<u32>, StoreError> {
    conn.db().query(
        "SELECT DISTINCT segment_no FROM attempt
         WHERE message_id = ?1 AND connection = ?2 AND provider_id_norm = ?3 AND outcome = 'accepted'
         ORDER BY segment_no",
        &[&message_id, &connection, &key],
        |r| r.get(0),
    )
}

/// Whether the message's last try was refused for good: among the latest try of each part that
/// went out (neither pending nor never written), the latest one whose outcome is `permanent`,
/// with its command_status. `None` when no part's latest try was refused for good.
pub fn permanent_failure(conn: &impl Reads, message_id: i64) -> Result<Option<Option<u32>>, StoreError> {
    conn.db().query_opt(
        "SELECT a.command_status FROM attempt a
             WHERE a.message_id = ?1 AND a.outcome = 'permanent'
               AND a.id = (SELECT max(b.id) FROM attempt b
                           WHERE b.message_id = ?1 AND b.segment_no = a.segment_no
                             AND b.outcome <> 'pending' AND b.outcome <> 'not_sent')
             ORDER BY a.id DESC LIMIT 1",
        &[&message_id],
        |r| r.get(0),
    )
}

/// What a manual retry is measured against: the message's kind, when it was created, and how
/// many times it was tried in all (over every round; a long message's most-tried part counts; a
/// try that never went out is none), as the message list and detail count them.
pub fn retry_facts(
    conn: &impl Reads,
    message_id: i64,
) -> Result<Option<(smsdesk_core::domain::MessageKind, i64, u32)>, StoreError> {
    conn.db().query_opt(
        "SELECT m.kind, m.created_at,
                    (SELECT count(DISTINCT a.attempt_no) FROM attempt a
                     WHERE a.message_id = m.id AND a.outcome <> 'not_sent')
             FROM message m WHERE m.id = ?1",
        &[&message_id],
        |r| Ok((r.get::<Text<_>>(0)?.0, r.get(1)?, r.get::<i64>(2)? as u32)),
    )
}
