//! The `connection_rules` table: the id rules each connection's stored keys were made by.

use crate::writer::WriteTx;
use crate::Reads;
use crate::StoreError;

/// The connections whose rules were recorded, by name.
pub fn connections(conn: &impl Reads) -> Result<Vec<String>, StoreError> {
    conn.db().query(
        "SELECT connection FROM connection_rules ORDER BY connection",
        &[],
        |r| r.get(0),
    )
}

/// The id rules a connection's keys were made by, if recorded.
pub fn id_rules(conn: &impl Reads, connection: &str) -> Result<Option<String>, StoreError> {
    conn.db().query_opt(
        "SELECT id_rules FROM connection_rules WHERE connection = ?1",
        &[&connection],
        |r| r.get(0),
    )
}

/// Records the id rules a connection's keys are made by from now on.
pub fn record(tx: &mut WriteTx<'_>, connection: &str, rules: &str) -> Result<(), StoreError> {
    tx.db().execute(
        "INSERT INTO connection_rules (connection, id_rules, updated_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (connection) DO UPDATE SET id_rules = excluded.id_rules, updated_at = excluded.updated_at",
        &[&connection, &rules, &tx.now_ms()],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::both_stores::on_both;
    use crate::writer::write_for_tests;

    #[test]
    fn a_connections_rules_are_recorded_then_replaced_on_both_stores() {
        on_both(|db| {
            write_for_tests(db, 1_000, |tx| {
                record(tx, "sandbox", "hex")?;
                record(tx, "backup", "decimal")
            })
            .unwrap();
            write_for_tests(db, 2_000, |tx| record(tx, "sandbox", "hex-lower")).unwrap();
            assert_eq!(connections(&db).unwrap(), ["backup", "sandbox"], "{:?}", db.dialect());
            assert_eq!(id_rules(&db, "sandbox").unwrap().as_deref(), Some("hex-lower"));
            assert_eq!(id_rules(&db, "other").unwrap(), None);
            let at: i64 = db
                .one(
                    "SELECT updated_at FROM connection_rules WHERE connection = 'sandbox'",
                    &[],
                )
                .unwrap();
            assert_eq!(at, 2_000);
        });
    }
}
