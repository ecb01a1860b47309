//! The `queue` table: where each message stands in the local send queue, its lease while it is
//! being sent, its tries counted against its kind's limit, and its current round of sending.

use smsdesk_core::domain::{MessageKind, QueueStatus};
use smsdesk_core::reasons::QueueNote;

use crate::db::{Dialect, Param};
use crate::totals::Delta;
use crate::writer::{Entity, WriteTx};
use crate::Reads;
use crate::{StoreError, Text};

mod lease;
pub use lease::{leased_to, stranded, stranded_locked};

/// A message claimed for sending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claimed {
    pub message_id: i64,
    pub destination: String,
    pub body: String,
    pub kind: MessageKind,
    pub registered_delivery: u8,
    /// When it stops being worth sending (its validity), if ever: nothing is written after.
    pub expires_at: Option<i64>,
    pub created_at: i64,
    /// Tries of the message made before this one (a try sends every part not yet accepted).
    pub attempts: u32,
    /// Parts (from 1) accepted earlier in this round of sending: they are not sent again.
    pub parts_accepted: Vec<u32>,
    /// The route that took it (None: queued by an earlier version and not routed since).
    pub route: Option<String>,
    /// Kept on one connection (a try there had an unknown outcome, or parts were accepted there).
    pub pinned: bool,
    /// A one-time code's text, sealed (`body` holds it masked); `Some("")` once dropped; None for
    /// a message never sealed.
    pub sealed: Option<String>,
}

/// The one-time codes still to be sent (queued, held) whose text is sealed: (id, sealed).
pub fn sealed_waiting(conn: &impl Reads) -> Result<Vec<(i64, String)>, StoreError> {
    conn.db().query(
        "SELECT m.id, m.sealed FROM message m CROSS JOIN queue q
         WHERE q.message_id = m.id AND m.sealed <> '' AND q.status IN ('queued', 'held')",
        &[],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// Drops the sealed codes of the one-time codes sent, failed or whose outcome is unknown, once
/// their validity ended by `now`: nobody may send them again (until then a person may, when the
/// customer says the code never came). Returns how many.
pub fn drop_spent_seals(tx: &mut WriteTx<'_>, now: i64) -> Result<usize, StoreError> {
    tx.db().execute(
        "UPDATE message SET sealed = '' WHERE id IN (
             SELECT m.id FROM message m CROSS JOIN queue q
             WHERE q.message_id = m.id AND m.sealed <> '' AND q.status IN ('accepted', 'failed', 'outcome_unknown') AND q.expires_at <= ?1)",
        &[&now],
    )
}

/// The queued messages whose validity ended by `now`.
pub fn validity_ended_by(tx: &WriteTx<'_>, now: i64) -> Result<Vec<i64>, StoreError> {
    tx.db().query(
        "SELECT message_id FROM queue
         WHERE status = 'queued' AND expires_at IS NOT NULL AND expires_at <= ?1",
        &[&now],
        |r| r.get(0),
    )
}

/// Whether a queued message's validity ended by `now`: a read, for a read connection.
pub fn expiry_due(conn: &impl Reads, now: i64) -> Result<bool, StoreError> {
    conn.db().one(
        "SELECT EXISTS (SELECT 1 FROM queue WHERE status = 'queued' AND expires_at IS NOT NULL AND expires_at <= ?1)
             OR EXISTS (SELECT 1 FROM message m CROSS JOIN queue q
                        WHERE q.message_id = m.id AND m.sealed <> '' AND q.status IN ('accepted', 'failed', 'outcome_unknown')
                          AND q.expires_at <= ?1)",
        &[&now],
    )
}

/// What one connection may claim now: the messages pinned to it, and the unpinned ones of each
/// route it serves (of every kind, or one-time codes only while the route's own connection is
/// down less than the longer grace of the other kinds).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Serving {
    pub connection: String,
    /// (route, one-time codes only).
    pub routes: Vec<(String, bool)>,
}

impl Serving {
    /// A connection that serves no route: what is pinned to it or queued for it without a route.
    pub fn queued_for(connection: &str) -> Serving {
        Serving {
            connection: connection.to_owned(),
            routes: Vec::new(),
        }
    }
}

/// Up to `limit` messages `serving` may claim at `now`, each with its number of parts, in the
/// order they go out: OTPs first, then transactional, then bulk; within a priority, the earliest
/// due; never one past its validity; and never a message whose ordering key has an earlier message
/// still queued, sending (a long message stays so until every part is accepted), or waiting for a
/// decision. One query per route served (and one for the pinned), each in the order of an index,
/// merged here.
pub fn due(tx: &WriteTx<'_>, now: i64, limit: u32, serving: &Serving) -> Result<Vec<(Claimed, u32)>, StoreError> {
    let mut rows = due_where(tx, PINNED, now, limit, &serving.connection)?;
    rows.extend(due_where(tx, LEGACY, now, limit, &serving.connection)?);
    for (route, otp_only) in &serving.routes {
        let filter = match otp_only {
            true => ROUTE_OTP,
            false => ROUTE,
        };
        rows.extend(due_where(tx, filter, now, limit, route)?);
    }
    rows.sort_by_key(|(order, _)| *order);
    rows.truncate(limit as usize);
    Ok(rows.into_iter().map(|(_, c)| c).collect())
}

/// Messages queued that `serving` would claim once due: pinned to its connection, queued for it
/// by an earlier version without a route, and those of each route it serves (one-time codes only
/// where it serves only those). Each count reads its index range only.
pub fn queued_for(conn: &impl Reads, serving: &Serving) -> Result<i64, StoreError> {
    let db = conn.db();
    let count = |sql: &str, value: &str| -> Result<i64, StoreError> { db.one(sql, &[&value]) };
    let mut n = count(
        "SELECT count(*) FROM queue WHERE pinned = ?1 AND status = 'queued'",
        &serving.connection,
    )?;
    n += count(
        "SELECT count(*) FROM queue q JOIN message m ON m.id = q.message_id
         WHERE q.status = 'queued' AND q.route IS NULL AND q.pinned IS NULL AND m.connection = ?1",
        &serving.connection,
    )?;
    for (route, otp_only) in &serving.routes {
        let sql = match otp_only {
            true => {
                "SELECT count(*) FROM queue WHERE status = 'queued' AND route = ?1 AND pinned IS NULL AND priority < 10"
            }
            false => "SELECT count(*) FROM queue WHERE status = 'queued' AND route = ?1 AND pinned IS NULL",
        };
        n += count(sql, route)?;
    }
    Ok(n)
}

/// Where a due message stands in the order they go out: (priority, due time, id).
type SendOrder = (i64, i64, i64);

/// A due message and its number of parts.
type Due = (Claimed, u32);

/// The messages a claim takes, on `q` with `?3` the filter's value: those pinned to the
/// connection; those queued for it by an earlier version (no route), as then; a route's; a route's
/// one-time codes.
const PINNED: &str = "q.pinned = ?3";
const LEGACY: &str = "q.route IS NULL AND q.pinned IS NULL AND m.connection = ?3";
const ROUTE: &str = "q.route = ?3 AND q.pinned IS NULL";
const ROUTE_OTP: &str = "q.route = ?3 AND q.pinned IS NULL AND q.priority < 10";

/// The due messages `filter` (on `q`, with `?3` its value) selects, with their order.
fn due_where(
    tx: &WriteTx<'_>,
    filter: &str,
    now: i64,
    limit: u32,
    value: &str,
) -> Result<Vec<(SendOrder, Due)>, StoreError> {
    let sql = match tx.db().dialect() {
        Dialect::Sqlite => due_sql(filter),
        // Several nodes claim from one database: each locks the rows it takes until it commits,
        // and passes over the rows another holds (it would take them again otherwise: a plain
        // read does not wait for a writer). SQLite has one writer: nothing to lock against.
        Dialect::Postgres => format!("{} FOR UPDATE OF q SKIP LOCKED", due_sql(filter)),
    };
    tx.db().query(&sql, &[&now, &limit, &value], |r| {
        let id: i64 = r.get(0)?;
        Ok((
            (r.get(10)?, r.get(11)?, id),
            (
                Claimed {
                    message_id: id,
                    destination: r.get(1)?,
                    body: r.get(2)?,
                    kind: r.get::<Text<_>>(3)?.0,
                    registered_delivery: r.get(4)?,
                    expires_at: r.get(5)?,
                    created_at: r.get(6)?,
                    attempts: r.get(7)?,
                    parts_accepted: Vec::new(),
                    route: r.get(9)?,
                    pinned: r.get(12)?,
                    sealed: r.get(13)?,
                },
                r.get(8)?,
            ),
        ))
    })
}

/// A claim's query: the due messages `filter` selects, in the order they go out, read from an
/// index range of the queued rows (`queue_claim`, or `queue_pinned`).
fn due_sql(filter: &str) -> String {
    format!(
        "SELECT m.id, m.destination, m.body, m.kind, m.registered_delivery, q.expires_at, m.created_at,
                q.attempts, m.segments, q.route, q.priority, q.next_attempt_at, q.pinned IS NOT NULL, m.sealed
         FROM queue q JOIN message m ON m.id = q.message_id
         WHERE q.status = 'queued' AND {filter} AND q.next_attempt_at <= ?1
           AND (q.expires_at IS NULL OR q.expires_at > ?1)
           AND (m.ordering_key IS NULL OR NOT EXISTS (
               SELECT 1 FROM message e JOIN queue eq ON eq.message_id = e.id
               WHERE e.ordering_key = m.ordering_key AND e.id < m.id
                 AND eq.status IN ('queued', 'sending', 'outcome_unknown', 'held')))
         ORDER BY q.priority, q.next_attempt_at, q.message_id
         LIMIT ?2"
    )
}

/// Keeps a message on the connection of `attempt_id` from now on: a try there had an unknown
/// outcome, or some of its parts were accepted there.
pub fn pin_to_attempt(tx: &mut WriteTx<'_>, message_id: i64, attempt_id: i64) -> Result<(), StoreError> {
    tx.db().execute(
        "UPDATE queue SET pinned = (SELECT connection FROM attempt WHERE id = ?2)
         WHERE message_id = ?1 AND pinned IS NULL",
        &[&message_id, &attempt_id],
    )?;
    Ok(())
}

/// Messages still to be sent (or decided) that no connection would take: a route that is none of
/// `routes` (since removed), or, queued by an earlier version with no route, a connection that is
/// none of `connections` (since renamed). Up to `limit`, from message id `after`.
pub fn unrouted(
    tx: &WriteTx<'_>,
    routes: &[String],
    connections: &[String],
    after: i64,
    limit: u32,
) -> Result<Vec<Unrouted>, StoreError> {
    let known = serde_json::to_string(routes).unwrap_or_default();
    let links = serde_json::to_string(connections).unwrap_or_default();
    // The names come as a JSON array: SQLite reads it with json_each, PostgreSQL with
    // jsonb_array_elements_text (the text cast first, so that the parameter is bound as text).
    let sql = match tx.db().dialect() {
        Dialect::Sqlite => {
            "SELECT m.id, m.destination, m.kind, k.name, q.route FROM queue q JOIN message m ON m.id = q.message_id
             LEFT JOIN api_key k ON k.id = m.api_key_id
             WHERE q.message_id > ?1 AND q.status IN ('queued', 'sending', 'outcome_unknown', 'held')
               AND (q.route IS NULL OR q.route NOT IN (SELECT value FROM json_each(?2)))
               AND (q.route IS NOT NULL OR m.connection NOT IN (SELECT value FROM json_each(?4)))
             ORDER BY q.message_id LIMIT ?3"
        }
        Dialect::Postgres => {
            "SELECT m.id, m.destination, m.kind, k.name, q.route FROM queue q JOIN message m ON m.id = q.message_id
             LEFT JOIN api_key k ON k.id = m.api_key_id
             WHERE q.message_id > ?1 AND q.status IN ('queued', 'sending', 'outcome_unknown', 'held')
               AND (q.route IS NULL
                    OR q.route NOT IN (SELECT jsonb_array_elements_text(CAST(CAST(?2 AS TEXT) AS jsonb))))
               AND (q.route IS NOT NULL
                    OR m.connection NOT IN (SELECT jsonb_array_elements_text(CAST(CAST(?4 AS TEXT) AS jsonb))))
             ORDER BY q.message_id LIMIT ?3"
        }
    };
    tx.db().query(sql, &[&after, &known, &limit, &links], |r| {
        Ok(Unrouted {
            message_id: r.get(0)?,
            destination: r.get(1)?,
            kind: r.get::<Text<_>>(2)?.0,
            api_key: r.get(3)?,
            route: r.get(4)?,
        })
    })
}

/// A message whose route is to be chosen again ([`unrouted`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrouted {
    pub message_id: i64,
    pub destination: String,
    pub kind: MessageKind,
    /// The name of the API key that handed it in.
    pub api_key: Option<String>,
    /// The route it had, if any.
    pub route: Option<String>,
}

/// Gives a message the route chosen for it.
pub fn set_route(tx: &mut WriteTx<'_>, message_id: i64, route: &str) -> Result<(), StoreError> {
    tx.db().execute(
        "UPDATE queue SET route = ?2 WHERE message_id = ?1",
        &[&message_id, &route],
    )?;
    tx.report_changed(message_id);
    Ok(())
}

/// Marks a message as being sent, under a lease held by `owner` until `until`.
pub fn lease(tx: &mut WriteTx<'_>, message_id: i64, owner: &str, until: i64) -> Result<(), StoreError> {
    let now = tx.now_ms();
    update_status(
        tx,
        message_id,
        "UPDATE queue SET status = 'sending', lease_owner = ?2, lease_until = ?3, updated_at = ?4
         WHERE message_id = ?1",
        &[&message_id, &owner, &until, &now],
    )?;
    tx.changed(Entity::Queue, message_id);
    Ok(())
}

/// The parts of a message accepted in its current round of sending (a confirmed resend of a whole
/// message starts a new round), in order.
pub fn parts_accepted(tx: &WriteTx<'_>, message_id: i64) -> Result<Vec<u32>, StoreError> {
    tx.db().query(
        "SELECT DISTINCT a.segment_no FROM attempt a JOIN queue q ON q.message_id = a.message_id
         WHERE a.message_id = ?1 AND a.outcome = 'accepted' AND a.id > coalesce(q.round_from, 0)
         ORDER BY a.segment_no",
        &[&message_id],
        |r| r.get(0),
    )
}

/// Sets a message's queue status (and its last problem, or when it is next due), lease released.
/// The problem is written whole or not at all: its reason (code and parameters, for the screens)
/// and its English sentence (`last_error`, for logs and exports) always describe the same thing.
pub fn set_status(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    status: QueueStatus,
    note: Option<&QueueNote>,
    next_attempt_at: Option<i64>,
) -> Result<(), StoreError> {
    let now = tx.now_ms();
    let (error, reason) = match note {
        Some(n) => (Some(n.english.as_str()), Some(n.reason.to_json())),
        None => (None, None),
    };
    update_status(
        tx,
        message_id,
        "UPDATE queue SET status = ?2, last_error = coalesce(?3, last_error),
             reason = CASE WHEN ?3 IS NULL THEN reason ELSE ?6 END,
             next_attempt_at = coalesce(?4, next_attempt_at), lease_owner = NULL, lease_until = NULL,
             updated_at = ?5
         WHERE message_id = ?1",
        &[&message_id, &Text(status), &error, &next_attempt_at, &now, &reason],
    )?;
    tx.changed(Entity::Queue, message_id);
    Ok(())
}

/// Counts one try of the message against its kind's limit.
pub fn count_try(tx: &mut WriteTx<'_>, message_id: i64) -> Result<(), StoreError> {
    tx.db().execute(
        "UPDATE queue SET attempts = attempts + 1 WHERE message_id = ?1",
        &[&message_id],
    )?;
    Ok(())
}

/// The messages whose queue status is `status`.
pub fn with_status(tx: &WriteTx<'_>, status: QueueStatus) -> Result<Vec<i64>, StoreError> {
    tx.db().query(
        "SELECT message_id FROM queue WHERE status = ?1",
        &[&Text(status)],
        |r| r.get(0),
    )
}

/// Runs `update`, an UPDATE of message `message_id`'s queue row, and counts a move from one status
/// to another in the running totals (`view_count`, scope 'queue'; see [`crate::totals`]): the
/// status before is read by the row's key, the one after is returned by the UPDATE itself. A row
/// no longer there changes nothing.
pub(crate) fn update_status(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    update: &str,
    params: &[&dyn Param],
) -> Result<(), StoreError> {
    let before = status(tx, message_id)?;
    tx.report_changed(message_id);
    let after = tx.db().query_opt(&format!("{update} RETURNING status"), params, |r| {
        Ok(r.get::<Text<_>>(0)?.0)
    })?;
    if before != after {
        if let Some(status) = before {
            tx.count(Delta::Queue { status, n: -1 });
        }
        if let Some(status) = after {
            tx.count(Delta::Queue { status, n: 1 });
        }
    }
    Ok(())
}

/// The message's current queue status.
pub fn status(conn: &impl Reads, message_id: i64) -> Result<Option<QueueStatus>, StoreError> {
    conn.db()
        .query_opt("SELECT status FROM queue WHERE message_id = ?1", &[&message_id], |r| {
            Ok(r.get::<Text<_>>(0)?.0)
        })
}

/// The evidence that what a retry would send (the whole message once it was accepted whole, else
/// the parts not accepted) may have reached the network already: (accepted whole and a try was
/// accepted, a try of a part not accepted went unanswered, a receipt was matched to it); `None`
/// when the message is not in the queue.
pub fn duplicate_evidence(conn: &impl Reads, message_id: i64) -> Result<Option<(bool, bool, bool)>, StoreError> {
    conn.db().query_opt(
        "SELECT
                 q.status = 'accepted' AND EXISTS (SELECT 1 FROM attempt WHERE message_id = ?1 AND outcome = 'accepted'),
                 EXISTS (SELECT 1 FROM attempt a WHERE a.message_id = ?1
                         AND (a.outcome = 'timeout' OR a.outcome = 'link_lost' OR a.outcome = 'pending')
                         AND (q.status = 'accepted' OR a.segment_no NOT IN (
                             SELECT b.segment_no FROM attempt b WHERE b.message_id = ?1 AND b.outcome = 'accepted'
                                 AND b.id > coalesce(q.round_from, 0)))),
                 EXISTS (SELECT 1 FROM logical_event e WHERE e.message_id = ?1
                         AND (q.status = 'accepted' OR e.correlated_by = 'operator'))
             FROM queue q WHERE q.message_id = ?1",
        &[&message_id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
}

/// When a message stops being worth sending, if ever.
pub fn expires_at(conn: &impl Reads, message_id: i64) -> Result<Option<i64>, StoreError> {
    conn.db()
        .one("SELECT expires_at FROM queue WHERE message_id = ?1", &[&message_id])
}

/// Puts a message back in the queue, due now, with a fresh set of tries; a message accepted whole
/// starts a new round of sending (what its earlier tries accepted no longer counts).
pub fn queue_again(tx: &mut WriteTx<'_>, message_id: i64) -> Result<(), StoreError> {
    let now = tx.now_ms();
    update_status(
        tx,
        message_id,
        "UPDATE queue SET status = 'queued', attempts = 0, next_attempt_at = ?2, lease_owner = NULL,
             lease_until = NULL, updated_at = ?2,
             round_from = CASE WHEN status = 'accepted'
                 THEN (SELECT max(id) FROM attempt WHERE message_id = ?1) ELSE round_from END
         WHERE message_id = ?1",
        &[&message_id, &now],
    )?;
    tx.changed(Entity::Queue, message_id);
    Ok(())
}

/// For a message whose outcome is unknown: the tries in its current round of parts not accepted
/// that went unanswered (id, connection), and how many of its parts have no try at all.
pub fn unsettled_parts(tx: &WriteTx<'_>, message_id: i64) -> Result<(Vec<(i64, String)>, i64), StoreError> {
    let unknown = tx.db().query(
        "SELECT a.id, a.connection FROM attempt a JOIN queue q ON q.message_id = a.message_id
         WHERE a.message_id = ?1 AND a.id > coalesce(q.round_from, 0)
           AND (a.outcome = 'timeout' OR a.outcome = 'link_lost')
           AND a.segment_no NOT IN (SELECT b.segment_no FROM attempt b WHERE b.message_id = ?1
               AND b.outcome = 'accepted' AND b.id > coalesce(q.round_from, 0))",
        &[&message_id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let untried = tx.db().one(
        "SELECT m.segments - (SELECT count(DISTINCT a.segment_no) FROM attempt a
             WHERE a.message_id = m.id AND a.id > coalesce(q.round_from, 0)
               AND (a.outcome = 'accepted' OR a.outcome = 'timeout' OR a.outcome = 'link_lost'))
         FROM message m JOIN queue q ON q.message_id = m.id WHERE m.id = ?1",
        &[&message_id],
    )?;
    Ok((unknown, untried))
}

#[cfg(test)]
mod tests;
