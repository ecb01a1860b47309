//! The `start_check` table: what each check a start makes of the stored rows last ran under (the
//! rules version, the routes in force), so that a start under the same skips a check that would
//! read every row to find nothing.

use crate::writer::WriteTx;
use crate::Reads;
use crate::StoreError;

/// What the check `name` last ran under, if it ever ran.
pub fn last(conn: &impl Reads, name: &str) -> Result<Option<String>, StoreError> {
    conn.db()
        .query_opt("SELECT under FROM start_check WHERE name = ?1", &[&name], |r| r.get(0))
}

/// Records that the check `name` ran, to the end, under `under`.
pub fn record(tx: &mut WriteTx<'_>, name: &str, under: &str) -> Result<(), StoreError> {
    tx.db().execute(
        "INSERT INTO start_check (name, under, checked_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (name) DO UPDATE SET under = excluded.under, checked_at = excluded.checked_at",
        &[&name, &under, &tx.now_ms()],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::both_stores::on_both;
    use crate::writer::write_for_tests;

    #[test]
    fn a_check_remembers_what_it_last_ran_under_on_both_stores() {
        on_both(|db| {
            assert_eq!(last(&db, "routes").unwrap(), None, "{:?}", db.dialect());
            write_for_tests(db, 1_000, |tx| record(tx, "routes", "v1")).unwrap();
            write_for_tests(db, 2_000, |tx| record(tx, "routes", "v2")).unwrap();
            assert_eq!(last(&db, "routes").unwrap().as_deref(), Some("v2"));
            assert_eq!(last(&db, "rules").unwrap(), None);
        });
    }
}
