//! Personal content that does not outstay its purpose: redaction (keep the facts, replace the
//! number and the text by a tombstone), retention by age, erasure and access by number.
//!
//! What is personal: a message's destination and text, its receipts' addresses, raw bytes and echo
//! of the text, a reply's number and text (and the raw PDUs that carried it), an opt-out's number,
//! and whatever an audit line says of a number. What is kept: every id, time, status, part count,
//! encoding, connection, decision and computed state, so the timeline, the audit and a rebuild
//! stay true. See `migrations/0027_redaction.sql` for the shape of a redacted row.

pub mod access;
pub mod erasure;
pub mod retention;

/// The keyed hash of a number (kept at the crate's root: every connection registers it).
pub use crate::number_token as token;

use rusqlite::params;

use crate::writer::WriteTx;
use crate::StoreError;

pub use crate::tables::redact::{Redacted, RedactionRule, Tombstone};

/// Starts a tombstone: every row a run redacts points at it. Refused when numbers cannot be hashed.
pub fn begin(tx: &mut WriteTx<'_>, rule: RedactionRule, actor: &str) -> Result<i64, StoreError> {
    key_is_set(tx)?;
    let now = tx.now_ms();
    tx.conn()
        .prepare_cached("INSERT INTO redaction (at, rule, actor) VALUES (?1, ?2, ?3)")?
        .execute(params![now, rule.as_str(), actor])?;
    Ok(tx.conn().last_insert_rowid())
}

/// Writes what the run of tombstone `id` redacted, in all.
pub fn finish(tx: &mut WriteTx<'_>, id: i64, done: &Redacted) -> Result<(), StoreError> {
    let json = serde_json::to_string(done).expect("counts serialise");
    tx.conn()
        .prepare_cached("UPDATE redaction SET summary_json = ?2 WHERE id = ?1")?
        .execute(params![id, json])?;
    Ok(())
}

/// The most recent tombstones, newest first.
pub fn recent(conn: &impl crate::Reads, limit: u32) -> Result<Vec<Tombstone>, StoreError> {
    let conn = conn.connection();
    let mut stmt = conn.prepare_cached(
        "SELECT id, at, rule, actor, summary_json FROM redaction WHERE rule <> 'code_echo' ORDER BY id DESC LIMIT ?1",
    )?;
    let rows = stmt.query_map([limit], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get(1)?,
            r.get::<_, String>(2)?,
            r.get(3)?,
            r.get::<_, Option<String>>(4)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, at, rule, actor, summary) = row?;
        out.push(Tombstone {
            id,
            at,
            rule: serde_json::from_value(serde_json::Value::String(rule))
                .map_err(|e| StoreError::Corrupt(format!("redaction {id}: {e}")))?,
            actor,
            summary: summary.and_then(|s| serde_json::from_str(&s).ok()),
        });
    }
    Ok(out)
}

/// When the last retention run started (ms since the epoch), if one did.
pub fn last_run_at(conn: &rusqlite::Connection) -> Result<Option<i64>, StoreError> {
    Ok(conn.query_row(
        "SELECT max(at) FROM redaction WHERE rule NOT IN ('erasure', 'code_echo')",
        [],
        |r| r.get(0),
    )?)
}

fn key_is_set(tx: &WriteTx<'_>) -> Result<(), StoreError> {
    let set: Option<String> = tx.conn().query_row("SELECT number_token('+0')", [], |r| r.get(0))?;
    match set {
        Some(_) => Ok(()),
        None => Err(StoreError::NumberKey(
            "the key is not set (the engine sets it from secret.key when it opens the store)".into(),
        )),
    }
}

#[cfg(test)]
mod tests;
