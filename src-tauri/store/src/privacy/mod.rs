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

use crate::db::Db;
use crate::writer::WriteTx;
use crate::StoreError;

pub use crate::tables::redact::{Redacted, RedactionRule, Tombstone};

/// Starts a tombstone: every row a run redacts points at it. Refused when numbers cannot be hashed.
pub fn begin(tx: &mut WriteTx<'_>, rule: RedactionRule, actor: &str) -> Result<i64, StoreError> {
    key_is_set(tx)?;
    let now = tx.now_ms();
    tx.db().one(
        "INSERT INTO redaction (at, rule, actor) VALUES (?1, ?2, ?3) RETURNING id",
        &[&now, &rule.as_str(), &actor],
    )
}

/// Writes what the run of tombstone `id` redacted, in all.
pub fn finish(tx: &mut WriteTx<'_>, id: i64, done: &Redacted) -> Result<(), StoreError> {
    let json = serde_json::to_string(done).expect("counts serialise");
    tx.db()
        .execute("UPDATE redaction SET summary_json = ?2 WHERE id = ?1", &[&id, &json])?;
    Ok(())
}

/// The most recent tombstones, newest first.
pub fn recent(conn: &impl crate::Reads, limit: u32) -> Result<Vec<Tombstone>, StoreError> {
    let rows: Vec<(i64, i64, String, String, Option<String>)> = conn.db().query(
        "SELECT id, at, rule, actor, summary_json FROM redaction WHERE rule <> 'code_echo' ORDER BY id DESC LIMIT ?1",
        &[&limit],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
    )?;
    rows.into_iter()
        .map(|(id, at, rule, actor, summary)| {
            Ok(Tombstone {
                id,
                at,
                rule: serde_json::from_value(serde_json::Value::String(rule))
                    .map_err(|e| StoreError::Corrupt(format!("redaction {id}: {e}")))?,
                actor,
                summary: summary.and_then(|s| serde_json::from_str(&s).ok()),
            })
        })
        .collect()
}

/// When the last retention run started (ms since the epoch), if one did.
pub fn last_run_at(conn: &impl crate::Reads) -> Result<Option<i64>, StoreError> {
    conn.db().one(
        "SELECT max(at) FROM redaction WHERE rule NOT IN ('erasure', 'code_echo')",
        &[],
    )
}

/// Refuses, as [`StoreError::NumberKey`], while numbers cannot be hashed: SQLite's function
/// answers NULL then, and a PostgreSQL connection carries no key.
fn key_is_set(tx: &WriteTx<'_>) -> Result<(), StoreError> {
    let db = tx.db();
    let set = match db {
        Db::Sqlite(_) => db.one::<Option<String>>("SELECT number_token('+0')", &[])?.is_some(),
        Db::Postgres(pg) => token::required(pg).is_ok(),
    };
    match set {
        true => Ok(()),
        false => Err(StoreError::NumberKey(
            "the key is not set (the engine sets it from secret.key when it opens the store)".into(),
        )),
    }
}

#[cfg(test)]
mod both_tests;
#[cfg(test)]
mod tests;
