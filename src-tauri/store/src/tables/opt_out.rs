//! The `opt_out` table: the numbers not to send to, each with why, when, by whom and the message
//! kinds it stops. Rows are never deleted: taking a number off the list ends its row.

use smsdesk_core::domain::MessageKind;

use crate::db::{Db, Dialect, Row};
use crate::number_token;
use crate::writer::{Entity, WriteTx};
use crate::Reads;
use crate::StoreError;

/// Why a number went on (or off) the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The person replied with a keyword.
    Reply,
    /// An operator added or removed it.
    Operator,
    /// It came in a CSV import.
    Import,
}

impl Reason {
    pub const fn as_str(self) -> &'static str {
        match self {
            Reason::Reply => "reply",
            Reason::Operator => "operator",
            Reason::Import => "import",
        }
    }
}

/// A number's current entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Current {
    pub id: i64,
    pub kinds: Vec<MessageKind>,
}

/// Kinds as stored ("bulk,transactional").
pub fn kinds_text(kinds: &[MessageKind]) -> String {
    kinds.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(",")
}

/// Kinds read back (unknown words are skipped: the CHECK keeps the column non-empty).
pub fn parse_kinds(text: &str) -> Vec<MessageKind> {
    text.split(',').filter_map(|k| k.trim().parse().ok()).collect()
}

/// The number's current entry, when it is on the list: as the number, or as its hash once the
/// number was erased (`crate::privacy`), so an erased number still stops sends. The hash is SQLite's
/// function there, and made in Rust and bound on PostgreSQL ([`crate::number_token`]); SQLite's
/// statement is the one it always ran (every send checks the list).
pub fn current(conn: &impl Reads, phone: &str) -> Result<Option<Current>, StoreError> {
    let read = |r: &Row<'_, '_>| {
        Ok(Current {
            id: r.get(0)?,
            kinds: parse_kinds(&r.get::<String>(1)?),
        })
    };
    let db = conn.db();
    match db {
        Db::Sqlite(_) => db.query_opt(
            "SELECT id, kinds FROM opt_out WHERE phone IN (?1, number_token(?1)) AND removed_at IS NULL
             ORDER BY id DESC LIMIT 1",
            &[&phone],
            read,
        ),
        Db::Postgres(pg) => db.query_opt(
            "SELECT id, kinds FROM opt_out WHERE phone IN (?1, ?2) AND removed_at IS NULL
             ORDER BY id DESC LIMIT 1",
            &[&phone, &number_token::bound(pg, phone)],
            read,
        ),
    }
}

/// A number going on the list.
pub struct NewOptOut<'a> {
    pub phone: &'a str,
    pub kinds: &'a [MessageKind],
    pub reason: Reason,
    pub note: Option<&'a str>,
    /// The reply that asked for it (for [`Reason::Reply`]).
    pub inbox_message_id: Option<i64>,
    pub by: &'a str,
}

/// Puts a number on the list (it must not be on it); returns the entry's id.
pub fn add(tx: &mut WriteTx<'_>, o: &NewOptOut<'_>) -> Result<i64, StoreError> {
    let now = tx.now_ms();
    let id: i64 = tx.db().one(
        "INSERT INTO opt_out (phone, kinds, reason, note, inbox_message_id, created_at, created_by)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id",
        &[
            &o.phone,
            &kinds_text(o.kinds),
            &o.reason.as_str(),
            &o.note,
            &o.inbox_message_id,
            &now,
            &o.by,
        ],
    )?;
    tx.changed(Entity::OptOut, id);
    Ok(id)
}

/// Takes a number off the list: ends its current entry `id`.
pub fn end(
    tx: &mut WriteTx<'_>,
    id: i64,
    reason: Reason,
    note: Option<&str>,
    inbox_message_id: Option<i64>,
    by: &str,
) -> Result<(), StoreError> {
    let now = tx.now_ms();
    tx.db().execute(
        "UPDATE opt_out SET removed_at = ?2, removed_by = ?3, removed_reason = ?4, removed_note = ?5,
             removed_inbox_message_id = ?6
         WHERE id = ?1 AND removed_at IS NULL",
        &[&id, &now, &by, &reason.as_str(), &note, &inbox_message_id],
    )?;
    tx.changed(Entity::OptOut, id);
    Ok(())
}

/// Messages of `kinds` to `phone` waiting in the queue (not being sent), oldest first.
pub fn queued_to(conn: &impl Reads, phone: &str, kinds: &[MessageKind]) -> Result<Vec<i64>, StoreError> {
    let wanted = kinds_text(kinds);
    let db = conn.db();
    // SQLite's instr(text, part) is PostgreSQL's strpos(text, part).
    let sql = match db.dialect() {
        Dialect::Sqlite => {
            "SELECT m.id FROM message m JOIN queue q ON q.message_id = m.id
             WHERE m.destination = ?1 AND q.status = 'queued' AND instr(',' || ?2 || ',', ',' || m.kind || ',') > 0
             ORDER BY m.id"
        }
        Dialect::Postgres => {
            "SELECT m.id FROM message m JOIN queue q ON q.message_id = m.id
             WHERE m.destination = ?1 AND q.status = 'queued' AND strpos(',' || ?2 || ',', ',' || m.kind || ',') > 0
             ORDER BY m.id"
        }
    };
    db.query(sql, &[&phone, &wanted], |r| r.get(0))
}
