//! The `connection_rules` table: the id rules each connection's stored keys were made by.

use rusqlite::{params, OptionalExtension};

use crate::writer::WriteTx;
use crate::Reads;
use crate::StoreError;

/// The connections whose rules were recorded, by name.
pub fn connections(conn: &impl Reads) -> Result<Vec<String>, StoreError> {
    let conn = conn.connection();
    Ok(conn
        .prepare_cached("SELECT connection FROM connection_rules ORDER BY connection")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?)
}

/// The id rules a connection's keys were made by, if recorded.
pub fn id_rules(conn: &impl Reads, connection: &str) -> Result<Option<String>, StoreError> {
    let conn = conn.connection();
    Ok(conn
        .prepare_cached("SELECT id_rules FROM connection_rules WHERE connection = ?1")?
        .query_row([connection], |r| r.get(0))
        .optional()?)
}

/// Records the id rules a connection's keys are made by from now on.
pub fn record(tx: &mut WriteTx<'_>, connection: &str, rules: &str) -> Result<(), StoreError> {
    tx.conn()
        .prepare_cached(
            "INSERT INTO connection_rules (connection, id_rules, updated_at) VALUES (?1, ?2, ?3)
             ON CONFLICT (connection) DO UPDATE SET id_rules = excluded.id_rules, updated_at = excluded.updated_at",
        )?
        .execute(params![connection, rules, tx.now_ms()])?;
    Ok(())
}
