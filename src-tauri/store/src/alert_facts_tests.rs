//! The alert rules' facts and the metrics' reads, on both stores: the same rows read the same.

use crate::alert_facts::{self, FailingWebhook, SubmitCounts};
use crate::both_stores::on_both;
use crate::db::Db;
use crate::metric_reads::{self, Counted};
use crate::writer::{write_for_tests, WriteTx};
use crate::StoreError;

const NOW: i64 = 1_780_000_000_000;

/// A message of `kind` handed in at `at`; returns its id.
fn message(tx: &WriteTx<'_>, kind: &str, priority: i64, at: i64) -> Result<i64, StoreError> {
    tx.db().one(
        "INSERT INTO message (created_at, channel, destination_raw, destination, body, encoding, segments, kind,
             priority, registered_delivery, connection)
         VALUES (?1, 'api', '+33612345678', '+33612345678', 'x', 'gsm7', 1, ?2, ?3, 1, 'sandbox') RETURNING id",
        &[&at, &kind, &priority],
    )
}

/// A queued message on `route` (None: queued before routes), of `priority`, due at `due`.
fn queued(tx: &WriteTx<'_>, route: Option<&str>, priority: i64, due: i64) -> Result<i64, StoreError> {
    let id = message(tx, "bulk", priority, due)?;
    tx.db().execute(
        "INSERT INTO queue (message_id, status, priority, next_attempt_at, attempts, updated_at, route)
         VALUES (?1, 'queued', ?2, ?3, 0, ?3, ?4)",
        &[&id, &priority, &due, &route],
    )?;
    Ok(id)
}

fn set_status(db: Db<'_>, status: &str, ids: &[i64]) {
    for id in ids {
        db.execute("UPDATE queue SET status = ?1 WHERE message_id = ?2", &[&status, id])
            .unwrap();
    }
}

#[test]
fn the_oldest_due_message_is_found_on_every_route_and_priority_alike_on_both_stores() {
    on_both(|db| {
        assert_eq!(alert_facts::oldest_due(&db, NOW).unwrap(), None);
        let ids = write_for_tests(db, NOW, |tx| {
            Ok([
                queued(tx, Some("default"), 15, NOW - 60_000)?,
                queued(tx, Some("default"), 25, NOW - 600_000)?,
                queued(tx, Some("premium"), 5, NOW - 120_000)?,
                queued(tx, None, 17, NOW - 300_000)?,
                queued(tx, Some("premium"), 0, NOW + 3_600_000)?,
            ])
        })
        .unwrap();
        let oldest = |at| alert_facts::oldest_due(&db, at).unwrap();
        assert_eq!(oldest(NOW), Some(NOW - 600_000), "{:?}", db.dialect());
        set_status(db, "accepted", &[ids[1]]);
        assert_eq!(oldest(NOW), Some(NOW - 300_000), "one queued before routes");
        set_status(db, "accepted", &[ids[0], ids[2], ids[3]]);
        assert_eq!(oldest(NOW), None, "the scheduled one is not due yet");
        assert_eq!(oldest(NOW + 3_600_000), Some(NOW + 3_600_000));
        assert_eq!(alert_facts::queued(&db).unwrap(), 0, "no running total was kept");
    });
}

/// A receipt of `kind` received at `at`.
fn receipt(tx: &WriteTx<'_>, at: i64, kind: &str, stat: Option<&str>) -> Result<(), StoreError> {
    tx.db().execute(
        "INSERT INTO receipt (received_at, source, connection, raw, kind, parser_version, stat)
         VALUES (?1, 'smpp_deliver_sm', 'smsc', ?2, ?3, 1, ?4)",
        &[&at, &b"raw".to_vec(), &kind, &stat],
    )?;
    Ok(())
}

/// Receipts: two reports and a notification, then `replies` replies from handsets after them.
fn receipts(tx: &WriteTx<'_>, replies: i64) -> Result<(), StoreError> {
    receipt(tx, NOW - 90_000, "receipt", Some("DELIVRD"))?;
    receipt(tx, NOW - 80_000, "receipt", Some("UNDELIV"))?;
    receipt(tx, NOW - 70_000, "intermediate", None)?;
    for i in 0..replies {
        receipt(tx, NOW - 60_000 + i, "mo", None)?;
    }
    Ok(())
}

/// A try of message `id` written at `at` and answered with `outcome`.
fn attempt(tx: &WriteTx<'_>, id: i64, no: i64, at: i64, outcome: &str, rd: i64) -> Result<(), StoreError> {
    tx.db().execute(
        "INSERT INTO attempt (message_id, attempt_no, connection, created_at, sent_at, responded_at, command_status,
             outcome, registered_delivery)
         VALUES (?1, ?2, 'smsc', ?3, ?3, ?4, ?5, ?6, ?7)",
        &[
            &id,
            &no,
            &at,
            &(at + 1_000),
            &i64::from(outcome != "accepted"),
            &outcome,
            &rd,
        ],
    )?;
    Ok(())
}

/// Tries: one long before, one asking for a receipt, one not asking, then `later` timed out.
fn tries(tx: &WriteTx<'_>, later: i64) -> Result<(), StoreError> {
    let id = message(tx, "transactional", 13, NOW - 300_000)?;
    attempt(tx, id, 1, NOW - 200_000, "accepted", 1)?;
    attempt(tx, id, 2, NOW - 50_000, "accepted", 17)?;
    attempt(tx, id, 3, NOW - 40_000, "accepted", 0)?;
    for i in 0..later {
        attempt(tx, id, 4 + i, NOW - 30_000 + i, "timeout", 1)?;
    }
    Ok(())
}

/// Opt-outs: one long before, then two by reply and one by an operator.
fn opt_outs(tx: &WriteTx<'_>) -> Result<(), StoreError> {
    let inbox: i64 = tx.db().one(
        "INSERT INTO inbox_message (connection, thread, handset, text, alphabet, parts, parts_received, received_at,
             completed_at)
         VALUES ('smsc', 't', '+33612345678', 'STOP', 'gsm7', 1, 1, ?1, ?1) RETURNING id",
        &[&NOW],
    )?;
    for (at, reason) in [
        (NOW - 200_000, "operator"),
        (NOW - 50_000, "reply"),
        (NOW - 40_000, "operator"),
        (NOW - 30_000, "reply"),
    ] {
        let by_reply = (reason == "reply").then_some(inbox);
        tx.db().execute(
            "INSERT INTO opt_out (phone, kinds, reason, inbox_message_id, created_at, created_by)
             VALUES (?4, 'bulk', ?1, ?2, ?3, 'test')",
            &[&reason, &by_reply, &at, &format!("+3361234{at}")],
        )?;
    }
    Ok(())
}

#[test]
fn the_walks_back_stop_where_the_rules_say_alike_on_both_stores() {
    on_both(|db| {
        write_for_tests(db, NOW, |tx| {
            receipts(tx, 40)?;
            tries(tx, 40)?;
            opt_outs(tx)
        })
        .unwrap();
        let d = db.dialect();
        assert_eq!(
            alert_facts::last_receipt_at(&db).unwrap(),
            Some(NOW - 70_000),
            "past 40 replies, a page and more: {d:?}"
        );
        assert_eq!(
            alert_facts::first_receipt_asked_after(&db, NOW - 100_000).unwrap(),
            Some(NOW - 49_000),
            "answered at: 17 asks for the final, 0 does not"
        );
        assert_eq!(alert_facts::first_receipt_asked_after(&db, NOW).unwrap(), None);
        assert_eq!(alert_facts::opt_outs_by_reply_since(&db, NOW - 100_000).unwrap(), 2);
        assert_eq!(alert_facts::opt_outs_by_reply_since(&db, NOW - 35_000).unwrap(), 1);
    });
}

#[test]
fn an_empty_store_has_no_receipt_try_or_opt_out_to_walk_back_on_both_stores() {
    on_both(|db| {
        assert_eq!(alert_facts::last_receipt_at(&db).unwrap(), None);
        assert_eq!(alert_facts::first_receipt_asked_after(&db, 0).unwrap(), None);
        assert_eq!(alert_facts::opt_outs_by_reply_since(&db, 0).unwrap(), 0);
        write_for_tests(db, NOW, |tx| receipt(tx, NOW, "mo", None)).unwrap();
        assert_eq!(alert_facts::last_receipt_at(&db).unwrap(), None, "only replies");
    });
}

/// Exceptions (two open on tries of unknown outcome, one a code's; one resolved), a failing
/// webhook, alerts, per-minute and per-day totals and a report's hours.
fn counted_rows(tx: &WriteTx<'_>) -> Result<(), StoreError> {
    let otp = message(tx, "otp", 0, NOW - 10_000)?;
    let bulk = message(tx, "bulk", 35, NOW - 10_000)?;
    let db = tx.db();
    for (id, status, resolved) in [(otp, "open", None), (bulk, "open", None), (bulk, "resolved", Some(NOW))] {
        db.execute(
            "INSERT INTO exception (kind, status, message_id, summary, created_at, resolution_note, resolved_at)
             VALUES ('outcome_unknown', ?1, ?2, 'lost', ?3, 'seen', ?4)",
            &[&status, &id, &(NOW - 5_000), &resolved],
        )?;
    }
    let key: i64 = db.one(
        "INSERT INTO api_key (name, prefix, hash, created_at, created_by) VALUES ('crm', 'sk_', 'h', 0, 't')
         RETURNING id",
        &[],
    )?;
    for (at, next, error) in [(NOW - 9_000, NOW + 1_000, "503"), (NOW - 8_000, NOW + 2_000, "timeout")] {
        db.execute(
            "INSERT INTO webhook_delivery (api_key_id, message_id, field, value, created_at, attempts,
                 next_attempt_at, last_error)
             VALUES (?1, ?2, 'status', 'accepted', ?3, 2, ?4, ?5)",
            &[&key, &bulk, &at, &next, &error],
        )?;
    }
    db.execute_batch(
        "INSERT INTO alert (rule, subject, fired_at) VALUES ('queue_stuck', 'a', 1), ('queue_stuck', 'b', 2),
             ('silent', 'a', 3), ('silent', 'b', 4);
         UPDATE alert SET resolved_at = 5 WHERE rule = 'silent' AND subject = 'b';
         INSERT INTO activity_count (grain, bucket, metric, n) VALUES
             (60000, 1779999960000, 'accepted', 3), (60000, 1779999900000, 'refused', 2),
             (60000, 1779999000000, 'accepted', 100), (86400000, 1779926400000, 'accepted', 5),
             (86400000, 1779926400000, 'receipt', 4), (86400000, 1779840000000, 'receipt', 1);
         INSERT INTO activity_latency (grain, bucket, latency_ms, n) VALUES
             (86400000, 1779926400000, 1200, 2), (86400000, 1779840000000, 1200, 1),
             (86400000, 1779840000000, 90, 1);
         INSERT INTO view_count (scope, value, n) VALUES ('queue', 'queued', 7), ('queue', 'sending', 1);
         INSERT INTO report_hour (hour, kind, connection, route, country, sender, outcome, command_status,
                 error_code, messages, parts, cost) VALUES
             (1779998400000, 'bulk', 'smsc', '', 'FR', 'cli', 'failed', 8, '', 3, 3, 0),
             (1779998400000, 'otp', 'smsc', '', 'FR', 'cli', 'failed', 0, '001', 2, 2, 0),
             (1779994800000, 'bulk', 'smsc', '', 'BE', 'cli', 'delivered', 0, '000', 4, 4, 0),
             (1779908400000, 'bulk', 'smsc', '', 'BE', 'cli', 'delivered', 0, '000', 9, 9, 0);",
    )
}

#[test]
fn the_counts_the_rules_and_the_metrics_read_are_alike_on_both_stores() {
    on_both(|db| {
        write_for_tests(db, NOW, |tx| counted_rows(tx)).unwrap();
        let d = db.dialect();
        assert_eq!(alert_facts::otp_outcome_unknown(&db).unwrap(), 1, "{d:?}");
        assert_eq!(alert_facts::open_exceptions(&db).unwrap(), 2);
        assert_eq!(alert_facts::queued(&db).unwrap(), 7);
        assert_eq!(
            alert_facts::failing_webhooks(&db).unwrap(),
            [FailingWebhook {
                key_name: "crm".into(),
                since_ms: NOW - 9_000,
                waiting: 2,
                last_error: Some("timeout".into()),
            }]
        );
        assert_eq!(
            alert_facts::submits_since(&db, NOW - 130_000).unwrap(),
            SubmitCounts {
                accepted: 3,
                refused: 2,
                unknown: 0
            }
        );
        let day = alert_facts::day_figures(&db, NOW - 6 * 3_600_000, NOW).unwrap();
        assert_eq!(day.by_kind, [("bulk".into(), 7), ("otp".into(), 2)]);
        assert_eq!(day.by_outcome, [("delivered".into(), 4), ("failed".into(), 5)]);
        assert_eq!(day.failure_reasons, [(8, String::new(), 3), (0, "001".into(), 2)]);
        assert_eq!((day.exceptions_opened, day.exceptions_closed, day.opt_outs), (3, 0, 0));
        assert_eq!(
            metric_reads::totals(&db, "queue").unwrap(),
            [("queued".into(), 7), ("sending".into(), 1)]
        );
        assert_eq!(
            metric_reads::day_totals(&db).unwrap(),
            [("accepted".into(), 5), ("receipt".into(), 5)]
        );
        assert_eq!(metric_reads::latencies(&db).unwrap(), [(90, 1), (1200, 3)]);
        assert_eq!(
            metric_reads::open_exceptions(&db).unwrap(),
            [("outcome_unknown".into(), 2)]
        );
        assert_eq!(
            metric_reads::firing(&db).unwrap(),
            [("queue_stuck".into(), 2), ("silent".into(), 1)]
        );
    });
}

#[test]
fn a_scrape_counts_only_what_is_new_and_stops_at_a_try_still_waiting_on_both_stores() {
    on_both(|db| {
        let id = write_for_tests(db, NOW, |tx| {
            receipts(tx, 2)?;
            let id = message(tx, "bulk", 35, NOW)?;
            attempt(tx, id, 1, NOW, "accepted", 1)?;
            attempt(tx, id, 2, NOW, "throttled", 1)?;
            attempt(tx, id, 3, NOW, "not_sent", 1)?;
            Ok(id)
        })
        .unwrap();
        let mut c = Counted::default();
        metric_reads::count_new(&db, &mut c).unwrap();
        let d = db.dialect();
        assert_eq!(c.receipts_to, 5, "{d:?}");
        assert_eq!(
            c.receipts.iter().map(|(s, n)| (s.as_str(), *n)).collect::<Vec<_>>(),
            [("", 1), ("DELIVRD", 1), ("UNDELIV", 1)]
        );
        let tried = |c: &Counted| {
            c.tries
                .iter()
                .map(|((conn, status, outcome), n)| (conn.clone(), *status, outcome.clone(), *n))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            tried(&c),
            [
                ("smsc".into(), 0, "accepted".into(), 1),
                ("smsc".into(), 1, "throttled".into(), 1)
            ]
        );
        write_for_tests(db, NOW, |tx| {
            attempt(tx, id, 4, NOW, "pending", 1)?;
            attempt(tx, id, 5, NOW, "accepted", 1)
        })
        .unwrap();
        metric_reads::count_new(&db, &mut c).unwrap();
        assert_eq!(
            (c.tries_to, tried(&c).len()),
            (3, 2),
            "stopped at the try still waiting"
        );
        db.execute("UPDATE attempt SET outcome = 'timeout' WHERE attempt_no = 4", &[])
            .unwrap();
        metric_reads::count_new(&db, &mut c).unwrap();
        assert_eq!(c.tries_to, 5);
        assert_eq!(
            tried(&c),
            [
                ("smsc".into(), 0, "accepted".into(), 2),
                ("smsc".into(), 1, "throttled".into(), 1),
                ("smsc".into(), 1, "timeout".into(), 1)
            ]
        );
        assert_eq!(c.receipts.values().sum::<i64>(), 3, "nothing new counted twice");
    });
}
