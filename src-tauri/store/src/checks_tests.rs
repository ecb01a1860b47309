//! The checks, the running totals' and the report's recount on both stores: a recount gives what
//! the writer kept, and the lines printed are the same on both for the same writes.

use std::cell::RefCell;

use smsdesk_core::domain::{AttemptOutcome, IntakeChannel, MessageKind};
use smsdesk_core::message::NewMessage;

use crate::both_stores::on_both;
use crate::checks;
use crate::db::Db;
use crate::tables::attempt::{self, Wire};
use crate::tables::{message, queue};
use crate::writer::{write_counted_for_tests, write_for_tests};
use crate::{reports, totals};

const T: i64 = 1_780_000_000_000;

/// A message to `to`, its country read by intake (as on PostgreSQL, where the store cannot read
/// it: a message without one counts under '' there, and under its number's country on SQLite).
fn text(to: &str, kind: MessageKind) -> NewMessage {
    let mut m = NewMessage::text(IntakeChannel::Api, to, "hello", kind, "sandbox");
    m.country = Some(if to.starts_with("+32") { "BE" } else { "FR" }.into());
    m
}

/// Messages handed in, tried, accepted, refused; then one stamped before them (the clock went back).
fn writes(db: Db<'_>) {
    write_counted_for_tests(db, T, |tx| {
        let a = message::insert(tx, &text("+33600000001", MessageKind::Transactional))?;
        let b = message::insert(tx, &text("+33600000002", MessageKind::Otp))?;
        message::insert(tx, &text("+32470000003", MessageKind::Bulk))?;
        for id in [a, b] {
            queue::lease(tx, id, "dispatcher", T + 9_000)?;
        }
        let ta = attempt::begin_attempt(tx, a, 1, Wire::sandbox(), 1)?;
        attempt::record_accepted(tx, ta.id, Some(T + 500), "P-1", "p-1")?;
        let tb = attempt::begin_attempt(tx, b, 1, Wire::sandbox(), 1)?;
        attempt::finish_attempt(tx, tb.id, AttemptOutcome::Throttled, Some(0x58), None, Some(T + 600))
    })
    .unwrap();
    write_counted_for_tests(db, T - 60_000, |tx| {
        message::insert(tx, &text("+33600000004", MessageKind::Transactional)).map(drop)
    })
    .unwrap();
}

#[test]
fn a_recount_gives_the_totals_the_writer_kept_in_the_same_lines_on_both_stores() {
    let printed = RefCell::new(Vec::new());
    on_both(|db| {
        writes(db);
        let (kept, recounted, disagreeing, drifted) = write_for_tests(db, T + 1_000, |tx| {
            Ok((
                checks::totals_stored(tx)?,
                checks::totals_recomputed(tx)?,
                checks::accepted_submits_disagreeing(tx)?,
                reports::check(tx, false)?,
            ))
        })
        .unwrap();
        assert_eq!(kept, recounted, "{:?}", db.dialect());
        for line in [
            "view 0 0 Text(\"message/all\") 4",
            "view 0 0 Text(\"clock/backwards\") 1",
            "count 60000 1779999960000 Text(\"accepted\") 1",
            "count 60000 1779999960000 Text(\"refused\") 1",
        ] {
            assert!(kept.iter().any(|l| l == line), "{line} in {kept:#?}");
        }
        assert!(
            kept.iter().filter(|l| l.starts_with("report ")).count() >= 3,
            "{kept:#?}"
        );
        assert!(disagreeing.is_empty(), "{disagreeing:?}");
        assert_eq!(drifted, 0);
        assert_eq!(checks::totals_stored(&db).unwrap(), kept, "the recount was undone");
        printed.borrow_mut().push(kept);
    });
    let printed = printed.into_inner();
    assert_eq!(printed[0], printed[1], "SQLite's lines, then PostgreSQL's");
}

#[test]
fn a_report_check_finds_a_sum_that_drifted_and_puts_the_recount_in_its_place_on_both_stores() {
    on_both(|db| {
        writes(db);
        db.execute(
            "UPDATE report_hour SET messages = messages + 1 WHERE kind = 'bulk'",
            &[],
        )
        .unwrap();
        let check = |repair| write_for_tests(db, T + 1_000, |tx| reports::check(tx, repair)).unwrap();
        assert_eq!(
            check(false),
            2,
            "the row kept and the row recounted: {:?}",
            db.dialect()
        );
        assert_eq!(check(false), 2, "a check alone repairs nothing");
        assert_eq!(check(true), 2);
        assert_eq!(check(false), 0, "repaired");
    });
}

/// A message created at `T`, accepted at `T + 1_000`, whose first final rests on a receipt
/// received at `T + 3_500` (event `supporting`, projection written with plain SQL).
fn delivered(db: Db<'_>) {
    write_for_tests(db, T, |tx| {
        let id = message::insert(tx, &text("+33600000001", MessageKind::Transactional))?;
        let db = tx.db();
        let try_id: i64 = db.one(
            "INSERT INTO attempt (message_id, attempt_no, connection, created_at, sent_at, responded_at,
                 command_status, outcome, registered_delivery)
             VALUES (?1, 1, 'sandbox', ?2, ?2, ?3, 0, 'accepted', 1) RETURNING id",
            &[&id, &T, &(T + 1_000)],
        )?;
        db.execute(
            "UPDATE queue SET status = 'accepted', accepted_attempt_id = ?1, accepted_at = ?2 WHERE message_id = ?3",
            &[&try_id, &(T + 1_000), &id],
        )?;
        let receipt: i64 = db.one(
            "INSERT INTO receipt (received_at, source, connection, raw, kind, parser_version, stat, err)
             VALUES (?1, 'smpp_deliver_sm', 'sandbox', ?2, 'receipt', 1, 'DELIVRD', '000') RETURNING id",
            &[&(T + 3_500), &b"raw".to_vec()],
        )?;
        let event: i64 = db.one(
            "INSERT INTO logical_event (connection, dedup_key, key_source, receipted_id_norm, stat, receipt_kind,
                 first_receipt_id, created_at, correlation, message_id, correlated_by, err)
             VALUES ('sandbox', 'k', 'fingerprint', 'p', 'DELIVRD', 'receipt', ?1, ?2, 'matched', ?3, 'system', '000')
             RETURNING id",
            &[&receipt, &(T + 3_500), &id],
        )?;
        db.execute(
            "INSERT INTO projection (message_id, state, rule, supporting_json, fold_json, rules_version, updated_at)
             VALUES (?1, 'delivered', 'first_final', ?2, '{}', 1, ?3)",
            &[&id, &format!("[{event}]"), &(T + 3_500)],
        )?;
        Ok(())
    })
    .unwrap();
}

#[test]
fn a_refill_finds_a_first_finals_receipt_by_its_supporting_ids_on_both_stores() {
    on_both(|db| {
        delivered(db);
        write_for_tests(db, T + 5_000, |tx| {
            totals::refill(tx)?;
            reports::refill(tx)
        })
        .unwrap();
        let latencies: Vec<(i64, i64, i64, i64)> = db
            .query(
                "SELECT grain, bucket, latency_ms, n FROM activity_latency ORDER BY grain",
                &[],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .unwrap();
        let at = T + 3_500;
        assert_eq!(
            latencies,
            [60_000, 3_600_000, 86_400_000].map(|g| (g, at - at % g, 2_500, 1)),
            "{:?}",
            db.dialect()
        );
        let outcomes: Vec<(String, i64)> = db
            .query("SELECT outcome, n FROM activity_outcome ORDER BY outcome", &[], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!(outcomes, [("created".into(), 1), ("delivered".into(), 1)]);
        let report: (String, String, String, i64, i64) = db
            .query_row(
                "SELECT outcome, country, error_code, messages, l2 FROM report_hour",
                &[],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .unwrap();
        assert_eq!(
            report,
            ("delivered".into(), "FR".into(), "000".into(), 1, 1),
            "2.5 s: l2"
        );
    });
}
