//! The `message` table (immutable once written) and its row in `queue`, written together.

use smsdesk_core::domain::{MessageKind, QueueStatus};
use smsdesk_core::message::{queue_priority, NewMessage};
use smsdesk_core::receipts::mismatch;

use crate::totals::Delta;
use crate::writer::{Entity, WriteTx};
use crate::Reads;
use crate::{StoreError, Text};

/// Writes a message and puts it in the queue; returns its id. Refused as storage full while the
/// disk is below its reserve ([`WriteTx::intake_room`]): every way in (the API, an import, the
/// window, the command line) writes new messages here.
pub fn insert(tx: &mut WriteTx<'_>, m: &NewMessage) -> Result<i64, StoreError> {
    insert_sealed(tx, m, None)
}

/// [`insert`], with a one-time code's text `sealed` (its `body` then holds it masked): kept only
/// until the message is done with (`crate::privacy`).
pub fn insert_sealed(tx: &mut WriteTx<'_>, m: &NewMessage, sealed: Option<&str>) -> Result<i64, StoreError> {
    tx.intake_room()?;
    let now = tx.now_ms();
    let priority = queue_priority(m.kind, m.priority);
    let id: i64 = tx.db().one(
        "INSERT INTO message (created_at, channel, destination_raw, destination, body, encoding, segments, kind,
             priority, ordering_key, valid_until, scheduled_at, registered_delivery, connection, client_ref,
             api_key_id, idempotency_scope, idempotency_key, request_hash, submitted_by, country, sealed)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21,
             ?22)
         RETURNING id",
        &[
            &now,
            &Text(m.channel),
            &m.destination_raw,
            &m.destination,
            &m.body,
            &m.encoding,
            &m.segments,
            &Text(m.kind),
            &priority,
            &m.ordering_key,
            &m.valid_until,
            &m.scheduled_at,
            &m.registered_delivery,
            &m.connection,
            &m.client_ref,
            &m.api_key_id,
            &m.idempotency.as_ref().map(|i| &i.scope),
            &m.idempotency.as_ref().map(|i| &i.key),
            &m.idempotency.as_ref().map(|i| &i.request_hash),
            &m.submitted_by,
            &m.country,
            &sealed,
        ],
    )?;
    insert_beside(tx, id, m)?;
    let status = QueueStatus::Queued;
    tx.db().execute(
        "INSERT INTO queue (message_id, status, priority, next_attempt_at, updated_at, expires_at, route)
         VALUES (?1, ?7, ?2, ?3, ?4, ?5, ?6)",
        &[
            &id,
            &priority,
            &m.scheduled_at.unwrap_or(now),
            &now,
            &m.valid_until,
            &m.route,
            &Text(status),
        ],
    )?;
    tx.changed(Entity::Message, id);
    // The messages created by minute, hour and day, in all, and the clock's steps back, and the
    // queue's rows by status: summed for the whole transaction and written before it commits (see
    // `crate::totals`).
    tx.count(Delta::Created { id, created_at: now });
    tx.count(Delta::Queue { status, n: 1 });
    match &m.country {
        // Where a new message stands in the delivery report is known here: written now, rather
        // than computed again before the commit.
        Some(country) => crate::reports::entered(tx, id, m, country, now)?,
        // Its country not read by intake: the writer reads it, with the rest, before the commit.
        None => tx.report_changed(id),
    }
    Ok(id)
}

/// What a new message has beside its row: its prices, the characters smart encoding replaced,
/// and the receipt its SMPP client asked for.
fn insert_beside(tx: &mut WriteTx<'_>, id: i64, m: &NewMessage) -> Result<(), StoreError> {
    let db = tx.db();
    for (connection, price) in &m.prices {
        db.execute(
            "INSERT INTO message_price (message_id, connection, price) VALUES (?1, ?2, ?3)",
            &[&id, connection, price],
        )?;
    }
    if let Some(replaced) = &m.smart_replaced {
        db.execute(
            "INSERT INTO message_smart (message_id, replaced) VALUES (?1, ?2)",
            &[&id, replaced],
        )?;
    }
    if let (Some(receipt), Some(key)) = (m.smpp_receipt, m.api_key_id) {
        db.execute(
            "INSERT INTO smpp_message (message_id, api_key_id, receipt) VALUES (?1, ?2, ?3)",
            &[&id, &key, &(receipt & 3)],
        )?;
    }
    Ok(())
}

/// The connections of message `$m` (a table alias), one per line: the one it was queued for, then
/// any other its tries were written to (a failover's). Without a temporary b-tree: the common case
/// (every try on the queued connection) reads the message's tries through their index and no more.
/// Written for both stores: the newline is a literal one (SQLite's `char(10)` is no function in
/// PostgreSQL), and `string_agg` is SQLite's `group_concat` under the name both know.
macro_rules! message_connections {
    ($m:literal) => {
        concat!(
            $m,
            ".connection || coalesce('\n' || (SELECT string_agg(a.connection, '\n' ORDER BY a.id) FROM attempt a
                 WHERE a.message_id = ",
            $m,
            ".id AND a.outcome <> 'not_sent' AND a.connection <> ",
            $m,
            ".connection), '')"
        )
    };
}
pub(crate) use message_connections;

/// The connections [`message_connections`] lists, each once, in the order listed.
pub(crate) fn connections(lines: String) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in lines.lines() {
        if !out.iter().any(|c| c == line) {
            out.push(line.to_owned());
        }
    }
    out
}

/// What a message says, for checking a receipt against it.
pub fn message_facts(conn: &impl Reads, message_id: i64) -> Result<Option<mismatch::MessageFacts>, StoreError> {
    conn.db().query_opt(
        concat!(
            "SELECT ",
            message_connections!("m"),
            ", destination, body, created_at, segments, text_redaction IS NOT NULL, number_redaction IS NOT NULL
             FROM message m WHERE id = ?1"
        ),
        &[&message_id],
        |r| {
            Ok(mismatch::MessageFacts {
                connections: connections(r.get(0)?),
                destination: r.get(1)?,
                body: r.get(2)?,
                created_at: r.get(3)?,
                segments: r.get(4)?,
                text_removed: r.get(5)?,
                number_removed: r.get(6)?,
            })
        },
    )
}

/// A message's kind.
pub fn kind(conn: &impl Reads, message_id: i64) -> Result<MessageKind, StoreError> {
    conn.db()
        .query_row("SELECT kind FROM message WHERE id = ?1", &[&message_id], |r| {
            Ok(r.get::<Text<_>>(0)?.0)
        })
}

/// Who handed message `id` in: `None` when there is no such message, `Some(None)` when no API
/// key did (the window, a person, CSV import, the command line).
pub fn owner(conn: &impl Reads, id: i64) -> Result<Option<Option<i64>>, StoreError> {
    conn.db()
        .query_opt("SELECT api_key_id FROM message WHERE id = ?1", &[&id], |r| r.get(0))
}

/// The API key that handed in the message a change is about (`None` when no key did, or the
/// change is not about one message: exceptions, receipts before correlation, the audit log).
pub fn change_owner(conn: &impl Reads, entity: crate::writer::Entity, id: i64) -> Result<Option<i64>, StoreError> {
    use crate::writer::Entity as E;
    let sql = match entity {
        E::Message | E::Queue => "SELECT api_key_id FROM message WHERE id = ?1",
        E::Attempt => "SELECT m.api_key_id FROM attempt a JOIN message m ON m.id = a.message_id WHERE a.id = ?1",
        E::LogicalEvent => {
            "SELECT m.api_key_id FROM logical_event e JOIN message m ON m.id = e.message_id WHERE e.id = ?1"
        }
        _ => return Ok(None),
    };
    Ok(conn.db().query_opt(sql, &[&id], |r| r.get::<Option<i64>>(0))?.flatten())
}

/// A message's destination and kind.
pub fn destination_and_kind(
    conn: &impl Reads,
    message_id: i64,
) -> Result<Option<(String, smsdesk_core::domain::MessageKind)>, StoreError> {
    conn.db().query_opt(
        "SELECT destination, kind FROM message WHERE id = ?1",
        &[&message_id],
        |r| Ok((r.get(0)?, r.get::<Text<_>>(1)?.0)),
    )
}
