//! The claim queries' plans on SQLite, and the queue's operations on both stores.

use super::{due_sql, LEGACY, PINNED, ROUTE, ROUTE_OTP};
use crate::{Store, StoreError};

/// A claim query is compiled once, however often it runs with other values: SQLite plans a
/// `LIMIT ?` with its value and compiles the statement again at every run unless the
/// connection has the query planner stability guarantee (`pragmas::apply`).
#[test]
fn a_claim_query_run_again_with_other_values_is_not_compiled_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("q.db")).unwrap();
    fn runs(c: &rusqlite::Connection) -> Result<i32, StoreError> {
        let mut s = c.prepare_cached(&due_sql(ROUTE))?;
        for (now, limit, route) in [(1, 10, "a"), (2, 10, "a"), (2, 64, "a"), (3, 7, "b")] {
            let rows = s.query_map(rusqlite::params![now, limit, route], |r| r.get::<_, i64>(0))?;
            rows.collect::<Result<Vec<_>, _>>()?;
        }
        Ok(s.get_status(rusqlite::StatementStatus::RePrepare))
    }
    let on_writer = store.writer().write_blocking(|tx| runs(tx.conn())).unwrap();
    let on_reader = store.reader().read_blocking(|c| runs(c)).unwrap();
    assert_eq!((on_writer, on_reader), (0, 0), "times compiled again (writer, reader)");
}

/// Each claim query reads the due messages in the order they go out from an index range of
/// the queued rows: no scan of the queue, no sort (schema 22 keeps only queued rows in
/// `queue_claim`).
#[test]
fn every_claim_reads_the_queued_rows_in_order_from_an_index() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("q.db")).unwrap();
    for (filter, index) in [
        (ROUTE, "queue_claim"),
        (ROUTE_OTP, "queue_claim"),
        (LEGACY, "queue_claim"),
        (PINNED, "queue_pinned"),
    ] {
        let plan: Vec<String> = store
            .reader()
            .read_blocking(move |c| {
                let mut s = c.prepare(&format!("EXPLAIN QUERY PLAN {}", due_sql(filter)))?;
                let rows = s.query_map(rusqlite::params![1, 10, "x"], |r| r.get::<_, String>(3))?;
                Ok::<_, StoreError>(rows.collect::<Result<_, _>>()?)
            })
            .unwrap();
        assert!(
            plan.iter()
                .any(|d| d.starts_with("SEARCH q USING INDEX") && d.contains(index)),
            "{filter}: {plan:?}"
        );
        assert!(
            !plan
                .iter()
                .any(|d| d.contains("TEMP B-TREE") || d.starts_with("SCAN q")),
            "{filter}: {plan:?}"
        );
    }
    // Only queued rows are in it: a status change after a message leaves the queue leaves it alone.
    let partial: bool = store
        .reader()
        .read_blocking(|c| {
            Ok::<_, StoreError>(c.query_row(
                "SELECT partial FROM pragma_index_list('queue') WHERE name = 'queue_claim'",
                [],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    assert!(partial, "queue_claim holds the queued rows only");
}

mod on_both_stores {
    use smsdesk_core::domain::{MessageKind, QueueStatus};
    use smsdesk_core::reasons::{QueueNote, QueueReason, QueueReasonCode};

    use super::super::{Serving, Unrouted};
    use crate::both_stores::on_both;
    use crate::tables::attempt::{self, Wire};
    use crate::tables::message_tests::text;
    use crate::tables::{message, queue};
    use crate::writer::write_for_tests;

    fn kind_on(route: Option<&str>, kind: MessageKind, to: &str) -> smsdesk_core::message::NewMessage {
        let mut m = text(to, "hi");
        m.kind = kind;
        m.route = route.map(str::to_owned);
        m
    }

    #[test]
    fn a_claim_takes_codes_first_then_the_earliest_due_and_never_past_validity_or_order_on_both_stores() {
        on_both(|db| {
            let ids = write_for_tests(db, 1_000, |tx| {
                let bulk = message::insert(tx, &kind_on(Some("r1"), MessageKind::Bulk, "+33600000020"))?;
                let otp = message::insert(tx, &kind_on(Some("r1"), MessageKind::Otp, "+33600000021"))?;
                let legacy = message::insert(tx, &kind_on(None, MessageKind::Transactional, "+33600000022"))?;
                let mut late = kind_on(Some("r1"), MessageKind::Transactional, "+33600000023");
                late.scheduled_at = Some(5_000);
                let late = message::insert(tx, &late)?;
                let mut gone = kind_on(Some("r1"), MessageKind::Transactional, "+33600000024");
                gone.valid_until = Some(1_500);
                let gone = message::insert(tx, &gone)?;
                let mut keyed = kind_on(Some("r1"), MessageKind::Transactional, "+33600000025");
                keyed.ordering_key = Some("k".into());
                let first_keyed = message::insert(tx, &keyed)?;
                let second_keyed = message::insert(tx, &keyed)?;
                let other = message::insert(tx, &kind_on(Some("r2"), MessageKind::Otp, "+33600000026"))?;
                Ok([bulk, otp, legacy, late, gone, first_keyed, second_keyed, other])
            })
            .unwrap();
            let [bulk, otp, legacy, late, gone, first_keyed, second_keyed, _other] = ids;
            let serving = Serving {
                connection: "sandbox".into(),
                routes: vec![("r1".into(), false)],
            };
            let claim = |now: i64, limit: u32, serving: &Serving| {
                write_for_tests(db, now, |tx| queue::due(tx, now, limit, serving)).unwrap()
            };
            let due: Vec<i64> = claim(2_000, 10, &serving).iter().map(|(c, _)| c.message_id).collect();
            assert_eq!(due, [otp, legacy, first_keyed, bulk], "{:?}", db.dialect());
            let (claimed, parts) = &claim(2_000, 1, &serving)[0];
            assert_eq!((claimed.message_id, claimed.kind, *parts), (otp, MessageKind::Otp, 1));
            assert_eq!(
                (claimed.route.as_deref(), claimed.pinned, claimed.attempts),
                (Some("r1"), false, 0)
            );
            let codes_only = Serving {
                connection: "backup".into(),
                routes: vec![("r1".into(), true)],
            };
            let due: Vec<i64> = claim(6_000, 10, &codes_only)
                .iter()
                .map(|(c, _)| c.message_id)
                .collect();
            assert_eq!(due, [otp]);
            assert_eq!(
                queue::queued_for(&db, &serving).unwrap(),
                7,
                "all of r1 and the legacy one"
            );
            assert_eq!(queue::queued_for(&db, &codes_only).unwrap(), 1);
            assert!(queue::expiry_due(&db, 1_500).unwrap());
            assert!(!queue::expiry_due(&db, 1_499).unwrap());
            let ended = write_for_tests(db, 2_000, |tx| queue::validity_ended_by(tx, 2_000)).unwrap();
            assert_eq!(ended, [gone]);
            write_for_tests(db, 2_000, |tx| {
                queue::set_status(tx, first_keyed, QueueStatus::Accepted, None, None)?;
                let t = attempt::begin_attempt(tx, bulk, 1, Wire::sandbox(), 1)?;
                queue::pin_to_attempt(tx, bulk, t.id)
            })
            .unwrap();
            let due: Vec<(i64, bool)> = claim(6_000, 10, &Serving::queued_for("sandbox"))
                .iter()
                .map(|(c, _)| (c.message_id, c.pinned))
                .collect();
            assert_eq!(
                due,
                [(legacy, false), (bulk, true)],
                "what is pinned, and queued without a route"
            );
            let due: Vec<i64> = claim(6_000, 10, &serving).iter().map(|(c, _)| c.message_id).collect();
            assert_eq!(due, [otp, legacy, second_keyed, late, bulk], "the key's turn came");
        });
    }

    #[test]
    fn a_status_change_a_lease_and_a_new_round_are_written_and_read_back_on_both_stores() {
        on_both(|db| {
            let id = write_for_tests(db, 1_000, |tx| message::insert(tx, &text("+33600000030", "hi"))).unwrap();
            write_for_tests(db, 1_000, |tx| queue::lease(tx, id, "d1", 4_000)).unwrap();
            assert_eq!(
                queue::stranded(&db, 3_000, "d2", &["d3".into()]).unwrap(),
                [0i64; 0],
                "{:?}",
                db.dialect()
            );
            assert_eq!(queue::stranded(&db, 3_000, "d1", &[]).unwrap(), [id]);
            assert_eq!(queue::stranded(&db, 4_000, "d2", &[]).unwrap(), [id]);
            assert_eq!(
                queue::stranded(&db, 3_000, "d2", &["d1".into()]).unwrap(),
                [id],
                "the lease of a node found dead, before it ran out"
            );
            write_for_tests(db, 3_000, |tx| {
                assert!(queue::leased_to(tx, id, "d1")?);
                assert!(!queue::leased_to(tx, id, "d2")?, "another node's lease");
                assert_eq!(queue::stranded_locked(tx, 3_000, "d2", &["d1".into()])?, [id]);
                Ok(())
            })
            .unwrap();
            let note = QueueNote::new(QueueReason::new(QueueReasonCode::Throttled), "slow down");
            write_for_tests(db, 2_000, |tx| {
                queue::count_try(tx, id)?;
                queue::set_status(tx, id, QueueStatus::Queued, Some(&note), Some(9_000))?;
                assert_eq!(queue::with_status(tx, QueueStatus::Queued)?, [id]);
                queue::set_status(tx, id, QueueStatus::Held, None, None)
            })
            .unwrap();
            assert_eq!(queue::status(&db, id).unwrap(), Some(QueueStatus::Held));
            let row: (String, String, i64, i64, Option<String>) = db
                .query_row(
                    "SELECT last_error, reason, next_attempt_at, attempts, lease_owner FROM queue WHERE message_id = ?1",
                    &[&id],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
                )
                .unwrap();
            assert_eq!(
                (row.0.as_str(), row.1, row.2, row.3, row.4),
                ("slow down", note.reason.to_json(), 9_000, 1, None),
                "a problem is kept until another replaces it"
            );
            let t = write_for_tests(db, 3_000, |tx| {
                let t = attempt::begin_attempt(tx, id, 1, Wire::sandbox(), 1)?;
                attempt::record_accepted(tx, t.id, None, "P", "p")?;
                queue::queue_again(tx, id)?;
                Ok(t)
            })
            .unwrap();
            let (status, attempts, due, round_from): (String, i64, i64, Option<i64>) = db
                .query_row(
                    "SELECT status, attempts, next_attempt_at, round_from FROM queue WHERE message_id = ?1",
                    &[&id],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
                )
                .unwrap();
            assert_eq!(
                (status.as_str(), attempts, due, round_from),
                ("queued", 0, 3_000, Some(t.id))
            );
            let parts = write_for_tests(db, 3_000, |tx| queue::parts_accepted(tx, id)).unwrap();
            assert_eq!(parts, [0u32; 0], "a new round forgets what the last one accepted");
            assert_eq!(queue::duplicate_evidence(&db, id).unwrap(), Some((false, false, false)));
            assert_eq!(queue::duplicate_evidence(&db, id + 1).unwrap(), None);
        });
    }

    #[test]
    fn messages_no_route_takes_are_found_and_routed_again_on_both_stores() {
        on_both(|db| {
            let (gone, renamed) = write_for_tests(db, 1_000, |tx| {
                message::insert(tx, &kind_on(Some("r1"), MessageKind::Transactional, "+33600000040"))?;
                let gone = message::insert(tx, &kind_on(Some("old"), MessageKind::Otp, "+33600000041"))?;
                let mut legacy = kind_on(None, MessageKind::Bulk, "+33600000042");
                legacy.connection = "renamed".into();
                let renamed = message::insert(tx, &legacy)?;
                message::insert(tx, &kind_on(None, MessageKind::Bulk, "+33600000043"))?;
                Ok((gone, renamed))
            })
            .unwrap();
            let routes = ["r1".to_owned()];
            let links = ["sandbox".to_owned()];
            let found = write_for_tests(db, 2_000, |tx| queue::unrouted(tx, &routes, &links, 0, 10)).unwrap();
            let expected = |id, route: Option<&str>, kind| Unrouted {
                message_id: id,
                destination: if id == gone { "+33600000041" } else { "+33600000042" }.into(),
                kind,
                api_key: None,
                route: route.map(str::to_owned),
            };
            assert_eq!(
                found,
                [
                    expected(gone, Some("old"), MessageKind::Otp),
                    expected(renamed, None, MessageKind::Bulk)
                ],
                "{:?}",
                db.dialect()
            );
            let after = write_for_tests(db, 2_000, |tx| queue::unrouted(tx, &routes, &links, gone, 1)).unwrap();
            assert_eq!(after.len(), 1);
            write_for_tests(db, 2_000, |tx| {
                queue::set_route(tx, gone, "r1")?;
                queue::set_route(tx, renamed, "r1")
            })
            .unwrap();
            let found = write_for_tests(db, 2_000, |tx| queue::unrouted(tx, &routes, &links, 0, 10)).unwrap();
            assert_eq!(found, []);
        });
    }

    #[test]
    fn a_sealed_code_is_dropped_once_its_message_is_done_and_its_validity_ended_on_both_stores() {
        on_both(|db| {
            let (sent, waiting) = write_for_tests(db, 1_000, |tx| {
                let mut code = kind_on(None, MessageKind::Otp, "+33600000050");
                code.valid_until = Some(5_000);
                let sent = message::insert_sealed(tx, &code, Some("111111"))?;
                let waiting = message::insert_sealed(tx, &code, Some("222222"))?;
                queue::set_status(tx, sent, QueueStatus::Accepted, None, None)?;
                Ok((sent, waiting))
            })
            .unwrap();
            assert_eq!(queue::sealed_waiting(&db).unwrap(), [(waiting, "222222".to_owned())]);
            assert!(!queue::expiry_due(&db, 4_999).unwrap(), "{:?}", db.dialect());
            assert!(queue::expiry_due(&db, 5_000).unwrap());
            let dropped = write_for_tests(db, 5_000, |tx| {
                Ok((queue::drop_spent_seals(tx, 4_999)?, queue::drop_spent_seals(tx, 5_000)?))
            })
            .unwrap();
            assert_eq!(dropped, (0, 1));
            let seals: Vec<(i64, String)> = db
                .query("SELECT id, sealed FROM message ORDER BY id", &[], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
                .unwrap();
            assert_eq!(seals, [(sent, String::new()), (waiting, "222222".to_owned())]);
        });
    }
}

/// On PostgreSQL several nodes claim from one database at once.
mod on_postgres {
    use smsdesk_core::domain::MessageKind;
    use smsdesk_core::time::Clock;

    use super::super::Serving;
    use crate::db::{pg_test, Db};
    use crate::tables::message_tests::text;
    use crate::tables::{message, queue};
    use crate::writer::write_for_tests;

    #[test]
    fn two_nodes_claiming_at_once_never_take_the_same_message_nor_wait_for_each_other() {
        let database = pg_test::database();
        let (a, b) = (database.connect(), database.connect());
        // A wait for a's rows would be a deadlock here (a waits for b to return): b gives up at
        // once instead, and says so.
        Db::Postgres(&b).execute_batch("SET lock_timeout = '2s'").unwrap();
        crate::postgres::migrations::migrate(Db::Postgres(&a), &Clock::system()).unwrap();
        let ids = write_for_tests(Db::Postgres(&a), 1_000, |tx| {
            (0..4)
                .map(|i| {
                    let mut m = text(&format!("+3360000004{i}"), "hi");
                    m.kind = MessageKind::Transactional;
                    m.route = Some("r".into());
                    message::insert(tx, &m)
                })
                .collect::<Result<Vec<i64>, _>>()
        })
        .unwrap();
        let serving = Serving {
            connection: "sandbox".into(),
            routes: vec![("r".into(), false)],
        };
        let claim = |tx: &mut crate::WriteTx<'_>, owner: &str| {
            let due = queue::due(tx, 2_000, 2, &serving)?;
            for (c, _) in &due {
                queue::lease(tx, c.message_id, owner, 60_000)?;
            }
            Ok::<_, crate::StoreError>(due.into_iter().map(|(c, _)| c.message_id).collect::<Vec<_>>())
        };
        // Node b claims while node a's claim is not committed yet: it takes the next two, at
        // once, rather than a's again (or waiting for a).
        let (by_a, by_b) = write_for_tests(Db::Postgres(&a), 2_000, |tx| {
            let by_a = claim(tx, "node-a")?;
            let by_b = write_for_tests(Db::Postgres(&b), 2_000, |tx| claim(tx, "node-b"))?;
            Ok((by_a, by_b))
        })
        .unwrap();
        assert_eq!((by_a.as_slice(), by_b.as_slice()), (&ids[..2], &ids[2..]));
        // Once both committed, nothing is left to claim.
        let left = write_for_tests(Db::Postgres(&b), 2_000, |tx| claim(tx, "node-b")).unwrap();
        assert!(left.is_empty(), "{left:?}");
    }
}
