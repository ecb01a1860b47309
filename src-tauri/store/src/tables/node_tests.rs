//! The node table on both stores: joining, the heartbeat, a clean stop, and who is dead.

use super::*;
use crate::both_stores::on_both;
use crate::tables::message;
use crate::tables::message_tests::text;
use crate::tables::queue;
use crate::writer::write_for_tests;

const STALE: i64 = 20_000;

fn new(name: &str, token: &str) -> NewNode {
    NewNode {
        name: name.into(),
        token: token.into(),
        pid: 7,
        host: "node-a".into(),
        boot_id: "boot-1".into(),
        data_dir: "/var/lib/smsdesk".into(),
        version: "1.0.0".into(),
    }
}

fn join_as(db: Db<'_>, at: i64, n: &NewNode, take: bool) -> Result<(), Box<Node>> {
    write_for_tests(db, at, |tx| join(tx, n, STALE, |_| take)).unwrap()
}

#[test]
fn a_live_name_is_kept_from_a_second_node_and_freed_by_a_clean_stop_or_by_its_owners_rule() {
    on_both(|db| {
        let now = database_now(db, 1_000).unwrap();
        join_as(db, now, &new("a", "t1"), false).expect("a new name is free");
        let kept = join_as(db, now, &new("a", "t2"), false).expect_err("a live node keeps its name");
        assert_eq!((kept.token.as_str(), kept.alive), ("t1", true), "{:?}", db.dialect());
        join_as(db, now, &new("b", "t3"), false).expect("another name is another node");
        join_as(db, now, &new("a", "t2"), true).expect("its previous run, by the caller's rule");
        let beat = |token: &str| write_for_tests(db, now, |tx| beat(tx, "a", token, "[1]")).unwrap();
        assert!(!beat("t1"), "the old run's heartbeat finds the name taken");
        assert!(beat("t2"));
        assert!(write_for_tests(db, now, |tx| publish(tx, "a", "t2", Some("http://a:8470"))).unwrap());
        assert!(write_for_tests(db, now, |tx| stop(tx, "a", "t2")).unwrap());
        assert!(!beat("t2"), "a stopped node beats no more");
        let nodes = all(&db, now, STALE).unwrap();
        let names: Vec<(&str, bool, &str)> = nodes
            .iter()
            .map(|n| (n.name.as_str(), n.alive, n.runs.as_str()))
            .collect();
        assert_eq!(names, [("a", false, "[]"), ("b", true, "[]")]);
        assert_eq!(nodes[0].http_url.as_deref(), Some("http://a:8470"));
        join_as(db, now, &new("a", "t4"), false).expect("a clean stop frees the name");
    });
}

/// On SQLite the writer's clock stands for the database's: a heartbeat silent longer than the
/// staleness makes a dead node, whose name is free and whose leases are others' to settle.
#[test]
fn a_silent_node_is_dead_and_its_leases_are_named_for_recovery_but_never_the_askers_own() {
    on_both(|db| {
        let start = database_now(db, 1_000).unwrap();
        join_as(db, start, &new("a", "t1"), false).unwrap();
        join_as(db, start, &new("b", "t2"), false).unwrap();
        let ids: Vec<i64> = (0..4)
            .map(|i| {
                write_for_tests(db, start, |tx| {
                    message::insert(tx, &text(&format!("+3360000004{i}"), "hi"))
                })
                .unwrap()
            })
            .collect();
        for (id, owner) in ids.iter().zip(["a", "b", "gone-before-nodes", "b"]) {
            write_for_tests(db, start, |tx| queue::lease(tx, *id, owner, start + 120_000)).unwrap();
        }
        let dead = |now: i64, me: &str| dead_lease_owners(&db, now, STALE, me).unwrap();
        match db.dialect() {
            Dialect::Sqlite => {
                assert_eq!(dead(start + 1_000, "a"), ["gone-before-nodes"]);
                // "a" beats on; "b" stays silent past the staleness.
                write_for_tests(db, start + STALE, |tx| beat(tx, "a", "t1", "[]")).unwrap();
                assert_eq!(dead(start + STALE + 1, "a"), ["b", "gone-before-nodes"]);
                assert_eq!(
                    dead(start + STALE + 1, "b"),
                    ["gone-before-nodes"],
                    "never the asker's own"
                );
                let alive: Vec<bool> = all(&db, start + STALE + 1, STALE)
                    .unwrap()
                    .iter()
                    .map(|n| n.alive)
                    .collect();
                assert_eq!(alive, [true, false]);
                join_as(db, start + STALE + 1, &new("b", "t3"), false).expect("a dead node's name is free");
            }
            Dialect::Postgres => {
                // The database's clock cannot be moved on: a staleness of zero makes every
                // heartbeat old.
                assert_eq!(dead(0, "a"), ["gone-before-nodes"]);
                let owners = dead_lease_owners(&db, 0, 0, "a").unwrap();
                assert_eq!(owners, ["b", "gone-before-nodes"]);
                write_for_tests(db, 0, |tx| stop(tx, "b", "t2")).unwrap();
                assert_eq!(
                    dead(0, "a"),
                    ["b", "gone-before-nodes"],
                    "a stopped node is dead at once"
                );
            }
        }
    });
}
