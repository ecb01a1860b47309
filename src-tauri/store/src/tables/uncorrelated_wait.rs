//! The `uncorrelated_wait` table: receipts whose id no message carries yet, waiting a grace
//! period for the submit response that may still bring it.

use crate::writer::WriteTx;
use crate::Reads;
use crate::StoreError;

/// Marks a logical event as waiting for its id before an exception opens.
pub fn wait(tx: &mut WriteTx<'_>, event: i64, connection: &str, received_at: i64) -> Result<(), StoreError> {
    tx.db().execute(
        "INSERT INTO uncorrelated_wait (logical_event_id, connection, received_at) VALUES (?1, ?2, ?3)",
        &[&event, &connection, &received_at],
    )?;
    Ok(())
}

/// The logical event no longer waits (its message was found, or its exception opened).
pub fn stop_waiting(tx: &mut WriteTx<'_>, event: i64) -> Result<(), StoreError> {
    tx.db()
        .execute("DELETE FROM uncorrelated_wait WHERE logical_event_id = ?1", &[&event])?;
    Ok(())
}

/// A waiting logical event to give up on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GivenUp {
    pub event: i64,
    pub connection: String,
    /// Its first receipt.
    pub receipt: i64,
    /// The message id that receipt carries, as received.
    pub message_id_raw: Option<String>,
}

/// The waiting logical events to give up on: those received by `waited_since`, and those that no
/// pending try on their connection older than them could still explain.
pub fn given_up(conn: &impl Reads, waited_since: i64) -> Result<Vec<GivenUp>, StoreError> {
    conn.db().query(
        "SELECT w.logical_event_id, w.connection, e.first_receipt_id, r.message_id_raw
             FROM uncorrelated_wait w JOIN logical_event e ON e.id = w.logical_event_id
             JOIN receipt r ON r.id = e.first_receipt_id
             WHERE w.received_at <= ?1
                OR NOT EXISTS (SELECT 1 FROM attempt a WHERE a.outcome = 'pending'
                               AND a.connection = w.connection AND a.created_at <= w.received_at)
             ORDER BY w.logical_event_id",
        &[&waited_since],
        |r| {
            Ok(GivenUp {
                event: r.get(0)?,
                connection: r.get(1)?,
                receipt: r.get(2)?,
                message_id_raw: r.get(3)?,
            })
        },
    )
}

/// Whether any receipt waits (a read, so that the writer is asked only when there is work).
pub fn any(conn: &impl Reads) -> Result<bool, StoreError> {
    conn.db().one("SELECT EXISTS (SELECT 1 FROM uncorrelated_wait)", &[])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::both_stores::on_both;
    use crate::db::Db;
    use crate::writer::write_for_tests;

    /// A receipt on `connection` received at `at` and its logical event, with plain SQL (their
    /// tables are not this test's): the event's id.
    fn event(db: Db<'_>, connection: &str, at: i64, id_raw: &str) -> i64 {
        let receipt: i64 = db
            .one(
                "INSERT INTO receipt (received_at, source, connection, raw, kind, parser_version, message_id_raw)
                 VALUES (?1, 'smpp_deliver_sm', ?2, ?3, 'receipt', 1, ?4) RETURNING id",
                &[&at, &connection, &b"id:x".to_vec(), &id_raw],
            )
            .unwrap();
        db.one(
            "INSERT INTO logical_event (connection, dedup_key, key_source, receipt_kind, first_receipt_id,
                 created_at, correlation)
             VALUES (?1, ?2, 'fingerprint', 'receipt', ?3, ?4, 'pending') RETURNING id",
            &[&connection, &id_raw, &receipt, &at],
        )
        .unwrap()
    }

    #[test]
    fn a_receipt_waits_until_its_grace_ends_or_no_pending_try_could_explain_it_on_both_stores() {
        on_both(|db| {
            assert!(!any(&db).unwrap());
            let old = event(db, "sandbox", 1_000, "A");
            let fresh = event(db, "sandbox", 5_000, "B");
            let orphan = event(db, "backup", 5_000, "C");
            write_for_tests(db, 5_000, |tx| {
                let m = crate::tables::message::insert(tx, &crate::tables::message_tests::text("+33600000060", "hi"))?;
                crate::tables::attempt::begin_attempt(tx, m, 1, crate::tables::attempt::Wire::sandbox(), 1)?;
                wait(tx, old, "sandbox", 1_000)?;
                wait(tx, fresh, "sandbox", 5_000)?;
                wait(tx, orphan, "backup", 5_000)
            })
            .unwrap();
            assert!(any(&db).unwrap());
            let given: Vec<(i64, String, Option<String>)> = given_up(&db, 2_000)
                .unwrap()
                .into_iter()
                .map(|g| (g.event, g.connection, g.message_id_raw))
                .collect();
            assert_eq!(
                given,
                [
                    (old, "sandbox".into(), Some("A".into())),
                    (orphan, "backup".into(), Some("C".into()))
                ],
                "{:?}",
                db.dialect()
            );
            write_for_tests(db, 6_000, |tx| {
                stop_waiting(tx, old)?;
                stop_waiting(tx, orphan)
            })
            .unwrap();
            assert_eq!(
                given_up(&db, 9_000)
                    .unwrap()
                    .iter()
                    .map(|g| g.event)
                    .collect::<Vec<_>>(),
                [fresh]
            );
        });
    }
}
