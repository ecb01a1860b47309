//! Several nodes on one PostgreSQL queue: a node's leases are its own while its heartbeat moves;
//! once it is dead, a live node settles them as after a crash (back in the queue when nothing may
//! be on the wire, held with an outcome-unknown exception when a try may be), and the dead node,
//! should it still be running after all, writes nothing more to the wire.

use crate::domain::{IntakeChannel, MessageKind, QueueStatus};
use crate::messages::{self, NewMessage};
use crate::queue::{self, Serving};
use crate::store::db::{pg_test, Db};
use crate::store::tables::node::{self, NewNode};
use crate::store::{PgTarget, Store};

fn member(name: &str) -> NewNode {
    NewNode {
        name: name.into(),
        token: format!("{name}-run"),
        pid: 1,
        host: format!("host-{name}"),
        boot_id: format!("boot-{name}"),
        data_dir: "/var/lib/smsdesk".into(),
        version: "test".into(),
    }
}

#[test]
fn a_dead_nodes_leases_are_settled_by_a_live_one_and_the_dead_node_may_write_nothing_more() {
    let database = pg_test::database();
    let store = Store::open_postgres(
        &PgTarget::new(&database.url, None).unwrap(),
        crate::clock::Clock::system(),
    )
    .unwrap();
    let w = store.writer();
    for name in ["a", "b"] {
        let n = member(name);
        w.write_blocking(move |tx| node::join(tx, &n, crate::instance::stale_ms(), |_| false))
            .unwrap()
            .unwrap();
    }
    let ids: Vec<i64> = (0..3)
        .map(|i| {
            let m = NewMessage::text(
                IntakeChannel::Api,
                &format!("+3361234560{i}"),
                "hello",
                MessageKind::Transactional,
                "sandbox",
            );
            w.write_blocking(move |tx| messages::insert(tx, &m)).unwrap()
        })
        .collect();
    let now = store.clock().now_ms();
    // Node b claims the three, and records a try of the first (its PDU may be on the wire).
    let claimed = w
        .write_blocking(move |tx| queue::claim(tx, "b", now, 120_000, 10, &Serving::queued_for("sandbox")))
        .unwrap();
    assert_eq!(claimed.len(), 3);
    let tried = ids[0];
    w.write_blocking(move |tx| messages::begin_attempt(tx, tried, 1, messages::Wire::sandbox(), 1))
        .unwrap();

    let sweep = |me: &'static str| {
        let candidates = ids.clone();
        w.write_blocking(move |tx| {
            let now = tx.now_ms();
            let dead = queue::dead_owners(&*tx, now, me)?;
            queue::recover_stranded(tx, &candidates, now, me, &dead)
        })
        .unwrap()
    };
    assert_eq!(sweep("a"), (0, 0), "a live node's leases are its own");

    // b's heartbeat stands still past the staleness, by the database's clock.
    Db::Postgres(&database.connect())
        .execute("UPDATE node SET beat_at = beat_at - 60000 WHERE name = 'b'", &[])
        .unwrap();
    assert_eq!(sweep("a"), (2, 1), "(back in the queue, held)");
    let status = |id: i64| store.reader().read_blocking(move |c| queue::status(c, id)).unwrap();
    assert_eq!(status(tried), Some(QueueStatus::OutcomeUnknown), "never resent blindly");
    assert_eq!(status(ids[1]), Some(QueueStatus::Queued));

    // b, not dead after all, finds the messages no longer its own before it writes a try.
    let (first, second) = (ids[1], ids[2]);
    let b_may_send = w
        .write_blocking(move |tx| {
            Ok::<_, crate::store::StoreError>((queue::leased_to(tx, first, "b")?, queue::leased_to(tx, second, "b")?))
        })
        .unwrap();
    assert_eq!(b_may_send, (false, false));
    let now = store.clock().now_ms();
    let again: Vec<i64> = w
        .write_blocking(move |tx| queue::claim(tx, "a", now, 120_000, 10, &Serving::queued_for("sandbox")))
        .unwrap()
        .into_iter()
        .map(|c| c.message_id)
        .collect();
    assert_eq!(
        again,
        [ids[1], ids[2]],
        "a sends what never reached the wire; the held one waits for a person"
    );
    store.shutdown();
}
