//! The `start_check` table: what each check a start makes of the stored rows last ran under (the
//! rules version, the routes in force), so that a start under the same skips a check that would
//! read every row to find nothing.

use rusqlite::{params, OptionalExtension};

use crate::writer::WriteTx;
use crate::Reads;
use crate::StoreError;

/// What the check `name` last ran under, if it ever ran.
pub fn last(conn: &impl Reads, name: &str) -> Result<Option<String>, StoreError> {
    let conn = conn.connection();
    Ok(conn
        .prepare_cached("SELECT under FROM start_check WHERE name = ?1")?
        .query_row([name], |r| r.get(0))
        .optional()?)
}

/// Records that the check `name` ran, to the end, under `under`.
pub fn record(tx: &mut WriteTx<'_>, name: &str, under: &str) -> Result<(), StoreError> {
    tx.conn()
        .prepare_cached(
            "INSERT INTO start_check (name, under, checked_at) VALUES (?1, ?2, ?3)
             ON CONFLICT (name) DO UPDATE SET under = excluded.under, checked_at = excluded.checked_at",
        )?
        .execute(params![name, under, tx.now_ms()])?;
    Ok(())
}
