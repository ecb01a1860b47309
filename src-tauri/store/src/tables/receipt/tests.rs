//! The receipts left to apply at a start: found from the deferred list and the tail of the log,
//! never by reading every receipt; and every receipt an earlier schema left without an outcome is
//! on the list after the upgrade.

use rusqlite::{params, Connection};

use super::*;
use crate::{migrations, pragmas, Store};

fn stored(tx: &mut WriteTx<'_>) -> Result<i64, StoreError> {
    tx.receipts().append(&NewReceipt {
        connection: "sandbox".into(),
        raw: b"id:X stat:DELIVRD".to_vec(),
        ..NewReceipt::default()
    })
}

fn left(store: &Store, after: i64) -> Vec<i64> {
    store
        .reader()
        .read_blocking(move |c| unprocessed(c, after, 100))
        .unwrap()
        .into_iter()
        .map(|(id, _)| id)
        .collect()
}

#[test]
fn the_receipts_left_are_those_listed_as_deferred_and_those_after_the_last_applied() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("r.db")).unwrap();
    let ids = store
        .writer()
        .write_blocking(|tx| {
            let ids = (0..6).map(|_| stored(tx)).collect::<Result<Vec<_>, _>>()?;
            // 0, 1 and 3 applied; 2 failed and listed; 4 and 5 stored after the last applied one.
            for i in [0, 1, 3] {
                record_outcome(tx, ids[i], None, false, None)?;
            }
            defer(tx, ids[2])?;
            Ok::<_, StoreError>(ids)
        })
        .unwrap();
    assert_eq!(left(&store, 0), vec![ids[2], ids[4], ids[5]]);
    assert_eq!(
        left(&store, ids[2]),
        vec![ids[4], ids[5]],
        "the cursor moves past a listed one"
    );

    // Applied at last: it has its outcome and leaves the list; listing it twice is harmless.
    let last = *ids.last().unwrap();
    store
        .writer()
        .write_blocking(move |tx| {
            defer(tx, ids[2])?;
            record_outcome(tx, ids[2], None, false, None)?;
            applied_at_last(tx, ids[2])?;
            record_outcome(tx, ids[4], None, false, None)?;
            Ok::<_, StoreError>(())
        })
        .unwrap();
    assert_eq!(left(&store, 0), vec![last]);
    let listed: i64 = store
        .reader()
        .read_blocking(|c| Ok::<_, StoreError>(c.query_row("SELECT count(*) FROM receipt_deferred", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(listed, 0);
}

/// The steps SQLite takes to find the receipts left (one listed), after `applied` more receipts
/// were applied.
fn steps_to_find_what_is_left(store: &Store, applied: usize) -> (Vec<i64>, i32) {
    store
        .writer()
        .write_blocking(move |tx| {
            for _ in 0..applied {
                let id = stored(tx)?;
                record_outcome(tx, id, None, false, None)?;
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
    store
        .reader()
        .read_blocking(|c| {
            let mut s = c.prepare(&UNPROCESSED)?;
            let ids = s
                .query_map(params![0, 100], |r| r.get::<_, i64>(0))?
                .collect::<Result<Vec<_>, _>>()?;
            Ok::<_, StoreError>((ids, s.get_status(rusqlite::StatementStatus::VmStep)))
        })
        .unwrap()
}

#[test]
fn finding_the_receipts_left_takes_as_many_steps_with_a_long_log_as_with_a_short_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("r.db")).unwrap();
    let failed = store
        .writer()
        .write_blocking(|tx| {
            let id = stored(tx)?;
            defer(tx, id)?;
            Ok::<_, StoreError>(id)
        })
        .unwrap();
    let (short_found, short) = steps_to_find_what_is_left(&store, 200);
    let (long_found, long) = steps_to_find_what_is_left(&store, 3_000);
    assert_eq!((short_found, long_found), (vec![failed], vec![failed]));
    assert_eq!(
        long, short,
        "reading every receipt would take steps in proportion to the log (200, then 3,200 receipts)"
    );
}

#[test]
fn version_23_lists_every_receipt_an_earlier_version_left_without_an_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.db");
    {
        let mut c = Connection::open(&path).unwrap();
        pragmas::apply(&c, pragmas::Role::Writer).unwrap();
        migrations::migrate_to(&mut c, 22, &smsdesk_core::time::Clock::system()).unwrap();
        c.execute_batch(
            "INSERT INTO receipt (id, received_at, source, connection, raw, kind, parser_version)
             VALUES (1, 10, 'smpp_deliver_sm', 'sandbox', x'00', 'receipt', 1),
                    (2, 11, 'smpp_deliver_sm', 'sandbox', x'00', 'receipt', 1),
                    (3, 12, 'smpp_deliver_sm', 'sandbox', x'00', 'receipt', 1),
                    (4, 13, 'smpp_deliver_sm', 'sandbox', x'00', 'receipt', 1);
             INSERT INTO receipt_outcome (receipt_id, is_repeat, processed_at) VALUES (1, 0, 10), (3, 0, 12);",
        )
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    assert!(store.migration().applied.contains(&23));
    let listed: Vec<(i64, i64)> = store
        .reader()
        .read_blocking(|c| {
            let mut s = c.prepare("SELECT receipt_id, deferred_at FROM receipt_deferred ORDER BY receipt_id")?;
            let rows = s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok::<_, StoreError>(rows.collect::<Result<_, _>>()?)
        })
        .unwrap();
    assert_eq!(listed, vec![(2, 11), (4, 13)], "each with the time it was received");
    assert_eq!(left(&store, 0), vec![2, 4]);
}

#[test]
fn a_receipt_is_appended_read_back_and_left_until_it_has_an_outcome_on_both_stores() {
    use crate::both_stores::on_both;
    use crate::writer::write_for_tests;
    use smsdesk_core::domain::IdSource;

    on_both(|db| {
        let ids = write_for_tests(db, 5_000, |tx| {
            let mut r = NewReceipt {
                received_at: 5_000,
                connection: "smsc-a".into(),
                raw: vec![0, 159, 255],
                raw_text: Some("id:AB12 stat:DELIVRD".into()),
                kind: Some(ReceiptKind::Receipt),
                parser_version: 3,
                sequence_number: Some(4_000_000_000),
                arrival_no: Some(7),
                ..NewReceipt::default()
            };
            r.fields.message_id_raw = Some("AB12".into());
            r.fields.id_source = Some(IdSource::Text);
            r.fields.stat = Stat::from_token("DELIVRD");
            r.fields.status_unreadable = true;
            r.fields.message_state = Some(2);
            let first = tx.receipts().append(&r)?;
            let second = tx.receipts().append(&r)?;
            let third = tx.receipts().append(&r)?;
            record_outcome(tx, first, None, false, Some("{}".into()))?;
            record_outcome(tx, third, None, true, None)?;
            defer(tx, second)?;
            defer(tx, second)?;
            Ok([first, second, third])
        })
        .unwrap();
        assert!(ids[0] < ids[1] && ids[1] < ids[2], "{:?}", db.dialect());
        let left = unprocessed(&db, 0, 10).unwrap();
        assert_eq!(left.iter().map(|(id, _)| *id).collect::<Vec<_>>(), [ids[1]]);
        let read = &left[0].1;
        assert_eq!(read.connection, "smsc-a");
        assert_eq!(read.kind, Some(ReceiptKind::Receipt));
        assert_eq!(read.raw_text.as_deref(), Some("id:AB12 stat:DELIVRD"));
        assert_eq!(read.received_at, 5_000);
        assert_eq!(read.fields.message_id_raw.as_deref(), Some("AB12"));
        assert_eq!(read.fields.id_source, Some(IdSource::Text));
        assert_eq!(read.fields.stat, Stat::from_token("DELIVRD"));
        assert!(read.fields.status_unreadable);
        assert_eq!(read.fields.message_state, Some(2));
        assert!(unprocessed(&db, ids[1], 10).unwrap().is_empty(), "past the cursor");

        // One stored after the last with an outcome is left too, and found past a cursor below it.
        let fourth = write_for_tests(db, 6_000, |tx| tx.receipts().append(&NewReceipt::default())).unwrap();
        let after: Vec<i64> = unprocessed(&db, ids[1], 10)
            .unwrap()
            .iter()
            .map(|(id, _)| *id)
            .collect();
        assert_eq!(after, [fourth]);
        write_for_tests(db, 7_000, |tx| {
            record_outcome(tx, ids[1], None, false, None)?;
            applied_at_last(tx, ids[1])?;
            record_outcome(tx, fourth, None, false, None)
        })
        .unwrap();
        assert!(unprocessed(&db, 0, 10).unwrap().is_empty());
    });
}
