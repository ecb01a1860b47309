//! The overview's figures on both stores: the dashboard, its charts, the pace counts, the audit
//! trail and the delivery report read the same rows alike on SQLite and PostgreSQL.

use smsdesk_core::domain::{DeliveryState, ExceptionKind, QueueStatus};

use super::dashboard::created_since;
use super::test_rows;
use super::{activity_at, audit_log, dashboard_at, delivery_report, pace_counts, ActivityWindow, ReportQuery};
use crate::both_stores::on_both;
use crate::totals::{DAY_MS, HOUR_MS, MINUTE_MS};
use crate::writer::write_for_tests;

const DAY: i64 = 10 * DAY_MS;

#[test]
fn the_dashboard_counts_from_running_totals_and_the_minute_index_alike_on_both_stores() {
    on_both(|db| {
        let first = write_for_tests(db, DAY, |tx| {
            let first = test_rows::message(tx, DAY - HOUR_MS, "+33600000001", "yesterday", "accepted")?;
            test_rows::message(tx, DAY + 2 * HOUR_MS + 10_000, "+33600000002", "today", "queued")?;
            test_rows::message(tx, DAY + 2 * HOUR_MS + 20_000, "+33600000003", "today", "queued")?;
            for (scope, value, n) in [
                ("message", "all", 3),
                ("queue", "queued", 2),
                ("queue", "accepted", 1),
                ("projection", "delivered", 1),
            ] {
                test_rows::view_count(tx, scope, value, n)?;
            }
            for (grain, bucket, n) in [
                (MINUTE_MS, DAY - HOUR_MS, 1),
                (MINUTE_MS, DAY + 2 * HOUR_MS, 2),
                (HOUR_MS, DAY - HOUR_MS, 1),
                (HOUR_MS, DAY + 2 * HOUR_MS, 2),
                (DAY_MS, DAY - DAY_MS, 1),
                (DAY_MS, DAY, 2),
            ] {
                tx.db().execute(
                    "INSERT INTO activity_count (grain, bucket, metric, n) VALUES (?1, ?2, 'created', ?3)",
                    &[&grain, &bucket, &n],
                )?;
            }
            tx.db().execute(
                "INSERT INTO exception (kind, status, message_id, summary, created_at)
                 VALUES ('no_receipt', 'open', ?1, 'no receipt', ?2)",
                &[&first, &DAY],
            )?;
            Ok(first)
        })
        .unwrap();
        let d = dashboard_at(&db, DAY + 3 * HOUR_MS, 0).unwrap();
        let dialect = db.dialect();
        assert_eq!(d.messages_total, 3, "{dialect:?}");
        assert_eq!((d.created_today, d.created_last_24h), (2, 3), "{dialect:?}");
        let queued = d.queue.iter().find(|q| q.status == QueueStatus::Queued).unwrap().count;
        assert_eq!(queued, 2);
        let pending = d
            .states
            .iter()
            .find(|s| s.state == DeliveryState::Pending)
            .unwrap()
            .count;
        assert_eq!(pending, 2, "the messages no receipt was applied to");
        let no_receipt = d
            .open_exceptions
            .iter()
            .find(|e| e.kind == ExceptionKind::NoReceipt)
            .unwrap();
        assert_eq!((no_receipt.count, d.open_exceptions_total), (1, 1));
        // Part of a minute: the index counts what came before the time within it.
        assert_eq!(
            created_since(db, DAY + 2 * HOUR_MS + 15_000, 3).unwrap(),
            1,
            "{dialect:?}"
        );
        assert!(first > 0);
    });
}

#[test]
fn the_charts_and_the_pace_read_their_buckets_alike_on_both_stores() {
    let now = DAY + 30 * MINUTE_MS + 5_000;
    on_both(|db| {
        write_for_tests(db, now, |tx| {
            let minute = DAY + 30 * MINUTE_MS;
            for (bucket, metric, n) in [
                (minute, "accepted", 4),
                (minute - MINUTE_MS, "accepted", 7),
                (minute, "refused", 1),
                (minute, "receipt", 3),
            ] {
                tx.db().execute(
                    "INSERT INTO activity_count (grain, bucket, metric, n) VALUES (?1, ?2, ?3, ?4)",
                    &[&MINUTE_MS, &bucket, &metric, &n],
                )?;
            }
            for (latency, n) in [(1_000, 1), (2_000, 1), (9_000, 2)] {
                tx.db().execute(
                    "INSERT INTO activity_latency (grain, bucket, latency_ms, n) VALUES (?1, ?2, ?3, ?4)",
                    &[&MINUTE_MS, &minute, &latency, &n],
                )?;
            }
            for (outcome, n) in [("created", 5), ("delivered", 3), ("failed", 1)] {
                tx.db().execute(
                    "INSERT INTO activity_outcome (day, outcome, n) VALUES (?1, ?2, ?3)
                     ON CONFLICT (day, outcome) DO UPDATE SET n = excluded.n",
                    &[&DAY, &outcome, &n],
                )?;
            }
            test_rows::view_count(tx, "queue", "queued", 5)?;
            test_rows::message(tx, now - 1_000, "+33600000001", "due", "queued")?;
            let later = test_rows::message(tx, now + 60_000, "+33600000002", "later", "queued")?;
            tx.db().execute(
                "UPDATE queue SET next_attempt_at = ?2 WHERE message_id = ?1",
                &[&later, &(now + 60_000)],
            )?;
            Ok(())
        })
        .unwrap();
        let a = activity_at(&db, ActivityWindow::Hour, now).unwrap();
        let last = a.buckets.last().unwrap();
        assert_eq!(
            (last.accepted, last.refused, last.receipts),
            (4, 1, 3),
            "{:?}",
            db.dialect()
        );
        assert_eq!(
            (last.finals, last.latency_p50_ms, last.latency_p95_ms),
            (4, Some(2_000), Some(9_000))
        );
        assert_eq!(a.buckets[a.buckets.len() - 2].accepted, 7);
        let today = a.days.last().unwrap();
        assert_eq!(
            (today.created, today.delivered, today.failed, today.pending),
            (5, 3, 1, 1)
        );
        let pace = pace_counts(&db, now).unwrap();
        assert_eq!((pace.due, pace.scheduled), (4, 1), "{:?}", db.dialect());
        assert_eq!(pace.next_scheduled_at_ms, Some(now + 60_000));
        assert_eq!((pace.accepted_previous_minute, pace.accepted_this_minute), (7, 4));
    });
}

#[test]
fn the_audit_trail_pages_newest_first_alike_on_both_stores() {
    on_both(|db| {
        write_for_tests(db, 1_000, |tx| {
            for i in 1..=3 {
                test_rows::audit(
                    tx,
                    1_000 + i,
                    "message.cancel",
                    ("message", i),
                    "see https://user:secret@example.com/x",
                )?;
            }
            Ok(())
        })
        .unwrap();
        let first = audit_log(&db, None, Some(2)).unwrap();
        let ids: Vec<i64> = first.items.iter().map(|e| e.id).collect();
        assert_eq!(ids.len(), 2);
        assert!(ids[0] > ids[1], "newest first");
        assert!(
            !first.items[0].note.as_deref().unwrap().contains("secret"),
            "credentials are not shown"
        );
        assert_eq!(first.items[0].details, Some(serde_json::json!({"why": "test"})));
        let rest = audit_log(&db, first.next_cursor.as_deref(), Some(2)).unwrap();
        assert_eq!(rest.items.len(), 1);
        assert_eq!(rest.next_cursor, None);
    });
}

#[test]
fn the_delivery_report_sums_the_hours_by_dimension_alike_on_both_stores() {
    on_both(|db| {
        write_for_tests(db, DAY, |tx| {
            for (hour, connection, outcome, messages) in [
                (DAY, "smsc", "delivered", 5),
                (DAY + HOUR_MS, "smsc", "failed", 2),
                (DAY, "other", "delivered", 1),
                (DAY - HOUR_MS, "smsc", "delivered", 4),
            ] {
                tx.db().execute(
                    "INSERT INTO report_hour (hour, kind, connection, route, country, sender, outcome, command_status,
                         error_code, messages, parts, l0)
                     VALUES (?1, 'transactional', ?2, 'default', 'FR', 'key:1', ?3, 0, '', ?4, ?4, ?4)",
                    &[&hour, &connection, &outcome, &messages],
                )?;
            }
            Ok(())
        })
        .unwrap();
        let q = ReportQuery {
            from_ms: DAY,
            to_ms: DAY + 2 * HOUR_MS,
            by: Some("connection,command_status".to_owned()),
            ..ReportQuery::default()
        };
        let r = delivery_report(&db, &q).unwrap();
        assert_eq!(r.total.messages, 8, "{:?}", db.dialect());
        assert_eq!(r.previous_total.messages, 4);
        let smsc = &r.groups[0];
        assert_eq!(smsc.key, ["smsc", "0"]);
        assert_eq!((smsc.figures.messages, smsc.figures.delivered), (7, 5));
        assert_eq!(smsc.previous.messages, 4);
        assert!(smsc.label[1].starts_with("0x00000000"), "{:?}", smsc.label);
        assert_eq!(r.groups[1].key, ["other", "0"]);
    });
}
