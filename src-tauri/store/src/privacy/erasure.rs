//! Erasure by number: everything held about one number is redacted now, in one transaction.

use super::{Redacted, RedactionRule};
use crate::db::{Dialect, Param};
use crate::number_token::Hashed;
use crate::tables::redact::{self, DONE};
use crate::writer::{Entity, WriteTx};
use crate::StoreError;

/// A message to the number that was still waiting, and must be cancelled before its text goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Waiting {
    pub message_id: i64,
}

/// The messages to `number` (E.164) still waiting in the queue or held (not done with, not being
/// sent): the caller cancels them (with its own audit) before [`erase`].
pub fn waiting(tx: &WriteTx<'_>, number: &str) -> Result<Vec<Waiting>, StoreError> {
    tx.db().query(
        "SELECT m.id FROM message m JOIN queue q ON q.message_id = m.id
         WHERE m.destination = ?1 AND q.status IN ('queued', 'held') ORDER BY m.id",
        &[&number],
        |r| Ok(Waiting { message_id: r.get(0)? }),
    )
}

/// Redacts everything held about `number` (E.164, `+` then digits) under a new tombstone of
/// `actor`: the texts and number of the messages to it that are done with (one being sent keeps
/// its content until it is done: it is counted in `skipped`), their receipts, the replies from it
/// and the PDUs that carried them, its opt-out entries (kept as its hash, so it still stops
/// sends), and the number wherever an audit line or an exception names it. Returns the tombstone
/// and what it redacted.
pub fn erase(tx: &mut WriteTx<'_>, number: &str, actor: &str) -> Result<(i64, Redacted, u64), StoreError> {
    let t = super::begin(tx, RedactionRule::Erasure, actor)?;
    let bare = number.trim_start_matches('+');
    let mut done = Redacted::default();
    let messages: Vec<(i64, bool)> = tx.db().query(
        &format!(
            "SELECT m.id, q.status IN {DONE} FROM message m JOIN queue q ON q.message_id = m.id
             WHERE m.destination = ?1 ORDER BY m.id"
        ),
        &[&number],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let mut skipped = 0;
    for (id, finished) in messages {
        if !finished {
            skipped += 1;
            continue;
        }
        done.receipts += redact::message_receipts(tx, id, t, true)?;
        done.texts += u64::from(redact::message_text(tx, id, t)?);
        done.numbers += u64::from(redact::message_number(tx, id, t)?);
    }
    let replies: Vec<i64> = tx.db().query(
        "SELECT id FROM inbox_message WHERE redaction IS NULL AND (handset IN (?1, ?2) OR phone = ?1 OR thread = ?1)",
        &[&number, &bare],
        |r| r.get(0),
    )?;
    for id in replies {
        done.replies += redact::reply(tx, id, t)?;
    }
    let parts: Vec<i64> = tx.db().query(
        "SELECT id FROM inbound_message WHERE redaction IS NULL AND source_addr IN (?1, ?2)",
        &[&number, &bare],
        |r| r.get(0),
    )?;
    for id in parts {
        done.replies += redact::inbound(tx, id, t)?;
    }
    // Receipts no message holds, from or to the number (an uncorrelated report, an unread reply).
    let receipts: Vec<i64> = tx.db().query(
        "SELECT id FROM receipt WHERE redaction IS NULL AND (source_addr IN (?1, ?2) OR destination_addr IN (?1, ?2))",
        &[&number, &bare],
        |r| r.get(0),
    )?;
    for id in receipts {
        done.receipts += u64::from(redact::receipt(tx, id, t)?);
    }
    redact::idempotency_naming(tx, bare, t)?;
    done.opt_outs += opt_outs(tx, number, bare, t)?;
    done.audit += mentions(tx, number, bare, t)?;
    Ok((t, done, skipped))
}

/// Keeps the number's opt-out entries as its hash: the number, and who asked when it was the
/// number itself (a reply), replaced; the entries stay in force. The hash is written as SQLite's
/// `number_token(?1)`: on PostgreSQL, made in Rust and bound ([`Hashed`]).
fn opt_outs(tx: &mut WriteTx<'_>, number: &str, bare: &str, t: i64) -> Result<u64, StoreError> {
    let hash = Hashed::required(tx.db(), number)?;
    let (sql, params) = hash.statement(
        "UPDATE opt_out SET phone = number_token(?1),
             created_by = CASE WHEN created_by IN (?1, ?2) THEN number_token(?1) ELSE created_by END,
             removed_by = CASE WHEN removed_by IN (?1, ?2) THEN number_token(?1) ELSE removed_by END,
             redaction = ?3
         WHERE phone = ?1 RETURNING id",
        &[&number, &bare, &t],
    );
    let ids: Vec<i64> = tx.db().query(&sql, &params, |r| r.get(0))?;
    for &id in &ids {
        tx.changed(Entity::OptOut, id);
    }
    Ok(ids.len() as u64)
}

/// Replaces the number by its hash wherever an audit line (its actor, note or details) or an
/// exception (its summary or details) names it, in either of its forms (with or without `+`).
fn mentions(tx: &mut WriteTx<'_>, number: &str, bare: &str, t: i64) -> Result<u64, StoreError> {
    const SWAP: &str = "replace(replace(%, ?1, number_token(?1)), ?2, number_token(?1))";
    let swap = |col: &str| SWAP.replace('%', col);
    let db = tx.db();
    let hash = Hashed::required(db, number)?;
    // SQLite's instr(text, part) is PostgreSQL's strpos(text, part).
    let find = match db.dialect() {
        Dialect::Sqlite => "instr",
        Dialect::Postgres => "strpos",
    };
    let run = |sql: String, params: &[&dyn Param]| -> Result<u64, StoreError> {
        let (sql, params) = hash.statement(&sql, params);
        Ok(db.execute(&sql, &params)? as u64)
    };
    let audit = run(
        format!(
            "UPDATE audit SET actor = CASE WHEN actor IN (?1, ?2) THEN number_token(?1) ELSE actor END,
                 note = {}, details_json = {}, redaction = ?3
             WHERE actor IN (?1, ?2) OR {find}(note, ?2) > 0 OR {find}(details_json, ?2) > 0",
            swap("note"),
            swap("details_json")
        ),
        &[&number, &bare, &t],
    )?;
    let exceptions = run(
        format!(
            "UPDATE exception SET summary = {}, details_json = {}, resolution_note = {}
             WHERE {find}(summary, ?2) > 0 OR {find}(details_json, ?2) > 0 OR {find}(resolution_note, ?2) > 0",
            swap("summary"),
            swap("details_json"),
            swap("resolution_note")
        ),
        &[&number, &bare],
    )?;
    // A reason the queue or a try gave (an opted-out number is named in its sentence).
    let queue = run(
        format!(
            "UPDATE queue SET last_error = {}, reason = {}
             WHERE message_id IN (SELECT id FROM message WHERE destination IN (?1, number_token(?1)))
               AND ({find}(last_error, ?2) > 0 OR {find}(reason, ?2) > 0)",
            swap("last_error"),
            swap("reason")
        ),
        &[&number, &bare],
    )?;
    let tries = run(
        format!(
            "UPDATE attempt SET error = {}
             WHERE message_id IN (SELECT id FROM message WHERE destination IN (?1, number_token(?1)))
               AND {find}(error, ?2) > 0",
            swap("error")
        ),
        &[&number, &bare],
    )?;
    Ok(audit + exceptions + queue + tries)
}
