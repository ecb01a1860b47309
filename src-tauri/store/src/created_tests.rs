//! The totals of messages created (schema version 12): kept by the writer per transaction, added
//! up by the dashboard, and filled in for the messages of an older database.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use rusqlite::{params, Connection};

use super::pragmas::{self, Role};
use super::views::{dashboard_at, dashboard_query_plans};
use super::*;
use smsdesk_core::domain::{IntakeChannel, MessageKind};
use smsdesk_core::message::NewMessage;
use smsdesk_core::time::{from_civil, Clock};

const MIN: i64 = 60_000;
const HOUR: i64 = 3_600_000;
const DAY: i64 = 86_400_000;

/// A store whose clock reads what the test sets.
fn clocked_store() -> (tempfile::TempDir, Store, Arc<AtomicI64>) {
    let dir = tempfile::tempdir().unwrap();
    let now = Arc::new(AtomicI64::new(0));
    let read = now.clone();
    let clock = Clock::from_fn(move || read.load(Ordering::SeqCst));
    let store = Store::open_with_clock(&dir.path().join("smsdesk.db"), clock).unwrap();
    (dir, store, now)
}

fn message(i: i64) -> NewMessage {
    let destination = format!("+336{:08}", i % 1_000);
    NewMessage::text(
        IntakeChannel::Api,
        &destination,
        "hi",
        MessageKind::Transactional,
        "sandbox",
    )
}

/// Writes `n` messages in one transaction, created at `at` (the writer's clock).
fn write_at(store: &Store, now: &AtomicI64, at: i64, n: i64) {
    now.store(at, Ordering::SeqCst);
    store
        .writer()
        .write_blocking(move |tx| {
            for i in 0..n {
                tables::message::insert(tx, &message(at + i))?;
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
}

fn count_since(c: &Connection, t: i64) -> i64 {
    c.query_row("SELECT count(*) FROM message WHERE created_at >= ?1", [t], |r| r.get(0))
        .unwrap()
}

fn view_count(c: &Connection, scope: &str, value: &str) -> i64 {
    c.query_row(
        "SELECT coalesce(max(n), 0) FROM view_count WHERE scope = ?1 AND value = ?2",
        params![scope, value],
        |r| r.get(0),
    )
    .unwrap()
}

/// Times around 2026-03-10: two days of messages every 7 min 13 s, bursts on both sides of the
/// minutes, half hours and days that the time zones below start their days at, and a few messages
/// stamped after the clock was set back.
fn fixture_times() -> Vec<(i64, i64)> {
    let d0 = from_civil(2026, 3, 10, 0, 0, 0);
    let mut times: Vec<(i64, i64)> = (0..400).map(|i| (d0 - DAY + i * 433_000, 1)).collect();
    for edge in [
        d0,
        d0 + 18 * HOUR + 30 * MIN,
        d0 + 9 * HOUR + 30 * MIN,
        d0 + 14 * HOUR + 15 * MIN,
    ] {
        for dt in [-61_000, -60_000, -30_001, -1, 0, 1, 29_999, 59_999, 60_000] {
            times.push((edge + dt, 3));
        }
    }
    times.push((d0 + 20 * HOUR, 5));
    // The clock set back by an hour, then forward again.
    times.push((d0 + 19 * HOUR + 17_345, 2));
    times.push((d0 + 21 * HOUR, 1));
    times
}

/// `created_today` and `created_last_24h` equal the plain count for several times of day and
/// time zones, including half-hour and quarter-hour offsets and times between minutes.
#[test]
fn messages_created_since_a_time_are_the_plain_count_at_any_offset() {
    let (_dir, store, now) = clocked_store();
    for (at, n) in fixture_times() {
        write_at(&store, &now, at, n);
    }
    let d0 = from_civil(2026, 3, 10, 0, 0, 0);
    let nows = [
        d0 + 12 * HOUR,
        d0 + 18 * HOUR + 30 * MIN,
        d0 + 18 * HOUR + 30 * MIN + 1,
        d0 + 18 * HOUR + 30 * MIN + 29_999,
        d0 + 18 * HOUR + 30 * MIN + 30_001,
        d0 + 9 * HOUR + 29 * MIN + 59_999,
        d0 + 14 * HOUR + 15 * MIN + 12_345,
        d0 + 23 * HOUR + 59 * MIN + 59_999,
        d0 + DAY + 1,
        d0 - 5 * HOUR - 123,
        d0 + 3 * DAY,
    ];
    let c = store.reader().read_blocking(|c| {
        let mut seen = Vec::new();
        for now in nows {
            for offset in [0, 60, -60, 330, -570, 345, 840, -720, 525] {
                let d = dashboard_at(c, now, offset).unwrap();
                let want = (count_since(c, d.today_start_ms), count_since(c, now - DAY));
                assert_eq!(
                    (d.created_today, d.created_last_24h),
                    want,
                    "now {now}, offset {offset} min, today from {}",
                    d.today_start_ms
                );
                seen.push(want);
            }
        }
        Ok::<_, StoreError>(seen)
    });
    let seen = c.unwrap();
    assert!(
        seen.iter().any(|&(today, day)| today > 0 && day > today),
        "the fixture puts messages on both sides of the windows' edges"
    );
}

/// The dashboard reads running totals and index ranges: no query of it reads the message table
/// row by row.
#[test]
fn the_dashboard_reads_totals_and_never_scans_messages() {
    let (_dir, store, now) = clocked_store();
    write_at(&store, &now, 1_000_000, 3);
    let plans = store.reader().read_blocking(|c| dashboard_query_plans(c)).unwrap();
    let text = plans.join(" | ");
    assert!(!text.contains("SCAN message"), "{text}");
    assert!(
        text.contains("SEARCH activity_count USING PRIMARY KEY (grain=? AND bucket>? AND bucket<?)"),
        "{text}"
    );
    assert!(
        text.contains("SEARCH message USING COVERING INDEX message_created (created_at>? AND created_at<?)"),
        "{text}"
    );
}

/// The writer counts messages in all, by minute, hour and day, and the steps back of its clock,
/// once per transaction; what a rolled-back savepoint wrote is not counted.
#[test]
fn the_writer_counts_messages_and_steps_back_of_the_clock_per_transaction() {
    let (_dir, store, now) = clocked_store();
    let t = from_civil(2026, 3, 10, 12, 0, 0);
    write_at(&store, &now, t, 4);
    write_at(&store, &now, t + 2 * MIN, 1);
    write_at(&store, &now, t + MIN, 3);
    write_at(&store, &now, t + MIN, 1);
    write_at(&store, &now, t + 3 * MIN, 2);
    // A message written in a savepoint that fails: neither it nor its totals stay.
    now.store(t + 3 * MIN, Ordering::SeqCst);
    store
        .writer()
        .write_blocking(|tx| {
            tables::message::insert(tx, &message(1))?;
            let failed: Result<(), StoreError> = tx.nested(|tx| {
                tables::message::insert(tx, &message(2))?;
                Err(StoreError::Closed)
            });
            assert!(failed.is_err());
            Ok::<_, StoreError>(())
        })
        .unwrap();
    let (all, backwards, minutes, kept, recomputed) = store
        .writer()
        .write_blocking(|tx| {
            let c = tx.conn();
            let minutes = c
                .prepare(
                    "SELECT bucket, n FROM activity_count WHERE grain = 60000 AND metric = 'created' ORDER BY bucket",
                )?
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<Vec<(i64, i64)>, _>>()?;
            Ok::<_, StoreError>((
                view_count(c, "message", "all"),
                view_count(c, "clock", "backwards"),
                minutes,
                checks::totals_stored(c)?,
                checks::totals_recomputed(c)?,
            ))
        })
        .unwrap();
    assert_eq!(all, 12, "every committed message, not the rolled-back one");
    assert_eq!(backwards, 4, "the four written after the clock went back a minute");
    assert_eq!(minutes, [(t, 4), (t + MIN, 4), (t + 2 * MIN, 1), (t + 3 * MIN, 3)]);
    assert_eq!(kept, recomputed);
}

/// Version 12 on a version 11 database: the messages already there are counted by minute, hour and
/// day, and the counts the triggers kept carry on with the writer's.
#[test]
fn version_12_counts_the_messages_written_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("smsdesk.db");
    let t = from_civil(2026, 3, 10, 23, 59, 0);
    {
        let mut c = Connection::open(&path).unwrap();
        pragmas::apply(&c, Role::Writer).unwrap();
        migrations::migrate_to(&mut c, 11, &Clock::system()).unwrap();
        let mut insert = c
            .prepare(
                "INSERT INTO message (created_at, channel, destination_raw, destination, body, encoding, segments,
                     kind, priority, registered_delivery, connection)
                 VALUES (?1, 'api', '+33600000001', '+33600000001', 'hi', 'gsm7', 1, 'bulk', 35, 1, 'sandbox')",
            )
            .unwrap();
        // Across a day's end, and one stamped after the clock was set back.
        for at in [t - HOUR, t, t + 30_000, t + MIN, t + MIN + 1, t + 2 * MIN, t - 5_000] {
            insert.execute([at]).unwrap();
        }
    }
    let now = Arc::new(AtomicI64::new(t + 3 * MIN));
    let read = now.clone();
    let store = Store::open_with_clock(&path, Clock::from_fn(move || read.load(Ordering::SeqCst))).unwrap();
    assert!(store.migration().applied.contains(&12));
    let check = |store: &Store| {
        store
            .writer()
            .write_blocking(move |tx| {
                let c = tx.conn();
                let d = dashboard_at(c, t + 3 * MIN, 0).unwrap();
                Ok::<_, StoreError>((
                    (d.messages_total, d.created_today, d.created_last_24h),
                    (
                        count_since(c, 0),
                        count_since(c, t + MIN),
                        count_since(c, t + 3 * MIN - DAY),
                    ),
                    view_count(c, "clock", "backwards"),
                    checks::totals_stored(c)?,
                    checks::totals_recomputed(c)?,
                ))
            })
            .unwrap()
    };
    let (dashboard, counts, backwards, kept, recomputed) = check(&store);
    assert_eq!(dashboard, counts);
    assert_eq!(dashboard, (7, 3, 7), "three created since midnight");
    assert_eq!(backwards, 1);
    assert_eq!(kept, recomputed, "the totals filled in are those the rows give");
    write_at(&store, &now, t + 3 * MIN, 2);
    let (dashboard, counts, _, kept, recomputed) = check(&store);
    assert_eq!((dashboard, dashboard.0), (counts, 9));
    assert_eq!(kept, recomputed, "and the writer carries on from them");
}
