//! The frontier never passes a message that may still become due, whatever the mix of states,
//! and whatever changes again below it; the search from it finds what a search of every message
//! finds.

use rusqlite::{params, Connection};

use super::*;
use crate::Store;

/// A small deterministic generator (the same scenarios on every run).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

const STATUSES: [&str; 6] = [
    "queued",
    "sending",
    "accepted",
    "failed",
    "outcome_unknown",
    "cancelled",
];
const STATES: [Option<&str>; 6] = [
    None,
    Some("pending"),
    Some("enroute"),
    Some("accepted"),
    Some("delivered"),
    Some("undeliverable"),
];

/// One message with a random status, kind, receipt request, acceptance time and computed state.
fn seed(c: &Connection, id: i64, rng: &mut Rng) {
    let kind = ["otp", "transactional", "bulk"][rng.below(3) as usize];
    let rd = rng.below(4) as i64 % 2;
    c.execute(
        "INSERT INTO message (id, created_at, channel, destination_raw, destination, body, encoding,
             segments, kind, priority, registered_delivery, connection)
         VALUES (?1, 0, 'api', '+33600000000', '+33600000000', 'hi', 'gsm7', 1, ?2, 2, ?3, 'sandbox')",
        params![id, kind, rd],
    )
    .unwrap();
    let status = STATUSES[rng.below(STATUSES.len() as u64) as usize];
    let owner = (status == "sending").then_some("test");
    c.execute(
        "INSERT INTO queue (message_id, status, priority, next_attempt_at, lease_owner, updated_at)
         VALUES (?1, ?2, 0, 0, ?3, 0)",
        params![id, status, owner],
    )
    .unwrap();
    if status == "accepted" || rng.below(4) == 0 {
        let at = rng.below(4_000_000) as i64;
        c.execute(
            "INSERT INTO attempt (message_id, attempt_no, connection, created_at, outcome, responded_at)
             VALUES (?1, 1, 'sandbox', ?2, 'accepted', ?2)",
            params![id, at],
        )
        .unwrap();
    }
    if let Some(state) = STATES[rng.below(STATES.len() as u64) as usize] {
        let flag = i64::from(rng.below(8) == 0);
        c.execute(
            "INSERT INTO projection (message_id, state, rule, fold_json, rules_version, updated_at, flag_no_receipt)
             VALUES (?1, ?2, 'r', '{}', 1, 0, ?3)",
            params![id, state, flag],
        )
        .unwrap();
    }
}

/// One change to message `id`, as the engine makes them.
fn change(c: &Connection, id: i64, rng: &mut Rng) {
    match rng.below(3) {
        0 => {
            c.execute(
                "INSERT INTO attempt (message_id, attempt_no, connection, created_at, outcome, responded_at,
                     registered_delivery)
                 VALUES (?1, (SELECT coalesce(max(attempt_no), 0) + 1 FROM attempt WHERE message_id = ?1),
                         'sandbox', 1000, 'accepted', 1000, 1)",
                [id],
            )
            .unwrap();
            c.execute(
                "UPDATE queue SET status = 'accepted', lease_owner = NULL WHERE message_id = ?1",
                [id],
            )
            .unwrap();
        }
        1 => {
            c.execute(
                "UPDATE queue SET status = 'queued', lease_owner = NULL WHERE message_id = ?1",
                [id],
            )
            .unwrap();
        }
        _ => {
            c.execute(
                "UPDATE projection SET state = 'enroute', flag_no_receipt = 0 WHERE message_id = ?1",
                [id],
            )
            .unwrap();
        }
    }
}

/// Every message due at `now`, each asked about alone (a search that does not read the frontier).
fn due_one_by_one(c: &Connection, ids: i64, now: i64, policy: &ReceiptPolicy) -> Vec<i64> {
    (1..=ids)
        .filter(|id| !no_receipt_due(c, now, policy, Some(*id), 1).unwrap().is_empty())
        .collect()
}

fn advance_all(store: &Store, span: i64) -> i64 {
    let mut at = -1;
    loop {
        let now = store
            .writer()
            .write_blocking(move |tx| advance_frontier(tx, span))
            .unwrap();
        if now == at {
            return now;
        }
        at = now;
    }
}

#[test]
fn the_search_from_the_frontier_finds_what_a_search_of_every_message_finds() {
    let mut rng = Rng(20261202);
    let policies = [
        ReceiptPolicy::default(),
        ReceiptPolicy {
            accepted_is_final: true,
            ..ReceiptPolicy::default()
        },
    ];
    for scenario in 0..12 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("smsdesk.db");
        let store = Store::open(&path).unwrap();
        let c = Connection::open(&path).unwrap();
        let n = 60;
        for id in 1..=n {
            seed(&c, id, &mut rng);
        }
        let policy = &policies[scenario % 2];
        let frontier = advance_all(&store, 1 + rng.below(9) as i64);
        for now in [0, 2_000_000, 4_000_000 + 48 * 3_600_000, i64::MAX / 4] {
            assert_eq!(
                no_receipt_due(&c, now, policy, None, 1_000).unwrap(),
                due_one_by_one(&c, n, now, policy),
                "scenario {scenario} at {now}: frontier {frontier}"
            );
        }
        // Then what happens to messages anywhere, behind the frontier too: acceptances (a late
        // answer, an outcome settled by evidence), retries, states changed by a rebuild.
        for _ in 0..15 {
            change(&c, 1 + rng.below(n as u64) as i64, &mut rng);
        }
        for advanced in [false, true] {
            if advanced {
                advance_all(&store, 1 + rng.below(9) as i64);
            }
            for now in [2_000_000, i64::MAX / 4] {
                assert_eq!(
                    no_receipt_due(&c, now, policy, None, 1_000).unwrap(),
                    due_one_by_one(&c, n, now, policy),
                    "scenario {scenario} after changes (advanced: {advanced}) at {now}"
                );
            }
        }
        let frontier = super::frontier(&c).unwrap();
        // Nothing behind the frontier may ever become due.
        for id in 1..frontier {
            assert!(
                no_receipt_due(&c, i64::MAX / 4, &policies[0], Some(id), 1)
                    .unwrap()
                    .is_empty(),
                "scenario {scenario}: message {id} is behind the frontier {frontier} and could still be due"
            );
        }
        drop(c);
        store.shutdown();
    }
}

#[test]
fn a_message_behind_the_frontier_that_changes_again_brings_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("smsdesk.db");
    let store = Store::open(&path).unwrap();
    let c = Connection::open(&path).unwrap();
    let mut rng = Rng(7);
    for id in 1..=30 {
        seed(&c, id, &mut rng);
    }
    // Settle every message, then let the frontier pass them all.
    c.execute("UPDATE queue SET status = 'failed', lease_owner = NULL", [])
        .unwrap();
    assert_eq!(advance_all(&store, 100), 31);

    // A retry of message 12: its queue row changes again.
    c.execute("UPDATE queue SET status = 'queued' WHERE message_id = 12", [])
        .unwrap();
    assert_eq!(
        frontier(&c).unwrap(),
        12,
        "a retry brings the frontier back to the message"
    );
    // A rebuild changing message 5's computed state.
    c.execute(
        "INSERT INTO projection (message_id, state, rule, fold_json, rules_version, updated_at)
         VALUES (5, 'delivered', 'r', '{}', 1, 0)
         ON CONFLICT (message_id) DO UPDATE SET state = 'delivered'",
        [],
    )
    .unwrap();
    advance_all(&store, 100);
    c.execute("UPDATE queue SET status = 'failed' WHERE message_id = 12", [])
        .unwrap();
    assert_eq!(advance_all(&store, 100), 31);
    c.execute("UPDATE projection SET state = 'enroute' WHERE message_id = 5", [])
        .unwrap();
    assert_eq!(
        frontier(&c).unwrap(),
        5,
        "a changed state behind the frontier brings it back"
    );
    // A message waiting to be sent is passed: its acceptance will bring the frontier back.
    assert_eq!(advance_all(&store, 100), 31);
    c.execute("UPDATE projection SET state = 'enroute' WHERE message_id = 12", [])
        .unwrap();
    assert_eq!(frontier(&c).unwrap(), 12);
    c.execute("UPDATE queue SET status = 'queued' WHERE message_id = 12", [])
        .unwrap();
    assert_eq!(advance_all(&store, 100), 31, "queued: passed");
    c.execute(
        "INSERT INTO attempt (message_id, attempt_no, connection, created_at, outcome, responded_at, registered_delivery)
         VALUES (12, 99, 'sandbox', 5, 'accepted', 5, 1)",
        [],
    )
    .unwrap();
    c.execute("UPDATE queue SET status = 'accepted' WHERE message_id = 12", [])
        .unwrap();
    assert_eq!(frontier(&c).unwrap(), 12, "its acceptance brings the frontier back");
    // It moves on again only past what settled: message 12 waits for its receipt.
    assert_eq!(advance_all(&store, 100), 12);
    drop(c);
    store.shutdown();
}

#[test]
fn re_checking_one_message_for_its_deadline_reads_its_row_not_every_accepted_one() {
    let plans = plans_of(Some(5));
    let queue = plans
        .iter()
        .find(|l| l.contains(" q "))
        .expect("the plan reads the queue");
    assert!(
        queue.starts_with("SEARCH") && (queue.contains("message_id=?") || queue.contains("rowid=?")),
        "the queue row is found by its key, not by a range from it: {plans:?}"
    );
}

#[test]
fn the_search_reads_the_queue_from_the_frontier_by_its_key() {
    let plans = plans_of(None);
    let queue = plans
        .iter()
        .find(|l| l.contains(" q "))
        .expect("the plan reads the queue");
    assert!(
        queue.starts_with("SEARCH") && (queue.contains("rowid>") || queue.contains("message_id>")),
        "a range on the queue's key, not a scan: {plans:?}"
    );
}

fn plans_of(only: Option<i64>) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
    let plan: Vec<String> = store
        .reader()
        .read_blocking(move |c| {
            let sql = format!(
                "EXPLAIN QUERY PLAN {}",
                no_receipt_sql(&ReceiptPolicy::default(), only.is_some())
            );
            let mut s = c.prepare(&sql)?;
            let rows = s
                .query_map(params![only, 1, 0, 0, 0, 0], |r| r.get::<_, String>(3))?
                .collect::<Result<Vec<_>, _>>()?;
            Ok::<_, StoreError>(rows)
        })
        .unwrap();
    store.shutdown();
    plan
}

/// Messages accepted at 10 s: a bulk one that asked for no receipt, a queued one, then a one-time
/// code, a transactional and a bulk message that did: (no receipt asked, queued, code,
/// transactional, bulk).
fn accepted_on(db: crate::db::Db<'_>) -> [i64; 5] {
    use crate::tables::{attempt, message, message_tests::text};
    use smsdesk_core::domain::MessageKind;
    crate::writer::write_for_tests(db, 10_000, |tx| {
        let mut ids = Vec::new();
        for (kind, receipt, accept) in [
            (MessageKind::Bulk, 0, true),
            (MessageKind::Bulk, 1, false),
            (MessageKind::Otp, 1, true),
            (MessageKind::Transactional, 1, true),
            (MessageKind::Bulk, 1, true),
        ] {
            let mut m = text("+33600000070", "hi");
            m.kind = kind;
            m.registered_delivery = receipt;
            let id = message::insert(tx, &m)?;
            if accept {
                let t = attempt::begin_attempt(tx, id, 1, attempt::Wire::sandbox(), receipt)?;
                attempt::record_accepted(tx, t.id, None, "P", &format!("p{id}"))?;
            }
            ids.push(id);
        }
        Ok([ids[0], ids[1], ids[2], ids[3], ids[4]])
    })
    .unwrap()
}

#[test]
fn each_kind_comes_due_at_its_deadline_and_the_frontier_passes_what_settled_on_both_stores() {
    crate::both_stores::on_both(|db| {
        let [quiet, queued, code, transactional, bulk] = accepted_on(db);
        let policy = ReceiptPolicy {
            deadline_ms: [1_000, 2_000, 3_000],
            ..ReceiptPolicy::default()
        };
        let due = |now: i64, only: Option<i64>| {
            let mut ids = no_receipt_due(&db, now, &policy, only, 100).unwrap();
            ids.sort();
            ids
        };
        assert_eq!(due(10_999, None), [0i64; 0], "{:?}", db.dialect());
        assert_eq!(due(11_000, None), [code]);
        assert_eq!(due(13_000, None), [code, transactional, bulk]);
        assert_eq!(due(12_000, Some(transactional)), [transactional]);
        assert_eq!(due(12_000, Some(bulk)), [0i64; 0]);
        assert_eq!(due(20_000, Some(quiet)), [0i64; 0], "no receipt asked for");
        assert_eq!(frontier(&db).unwrap(), 0);
        let moved = crate::writer::write_for_tests(db, 20_000, |tx| advance_frontier(tx, 100)).unwrap();
        assert_eq!(moved, code, "past the quiet and the queued message ({quiet}, {queued})");
        db.execute(
            "INSERT INTO projection (message_id, state, rule, fold_json, rules_version, updated_at, flag_no_receipt)
             VALUES (?1, 'delivered', 'r', '{}', 1, 0, 0)",
            &[&code],
        )
        .unwrap();
        let moved = crate::writer::write_for_tests(db, 20_000, |tx| advance_frontier(tx, 100)).unwrap();
        assert_eq!(moved, transactional);
        assert_eq!(frontier(&db).unwrap(), transactional);
        assert_eq!(due(13_000, None), [transactional, bulk], "the settled code is not due");
        let moved = crate::writer::write_for_tests(db, 20_000, |tx| advance_frontier(tx, 1)).unwrap();
        assert_eq!(moved, transactional, "still open");
    });
}
