//! A message written and read back alike on SQLite and PostgreSQL: its row, its queue row, what
//! it has beside them, and the facts a receipt is checked against.

use smsdesk_core::domain::{IntakeChannel, MessageKind, QueueStatus};
use smsdesk_core::message::{Idempotency, NewMessage};

use super::{attempt, message, queue};
use crate::both_stores::on_both;
use crate::db::Db;
use crate::writer::{write_for_tests, Entity};

/// A live API key named `name`, written with plain SQL (its own table is not this test's).
pub(crate) fn api_key(db: Db<'_>, name: &str) -> i64 {
    db.one(
        "INSERT INTO api_key (name, prefix, hash, created_at, created_by) VALUES (?1, 'sk_', ?1, 0, 'test')
         RETURNING id",
        &[&name],
    )
    .unwrap()
}

/// A transactional message to `to` on the sandbox connection.
pub(crate) fn text(to: &str, body: &str) -> NewMessage {
    NewMessage::text(IntakeChannel::Api, to, body, MessageKind::Transactional, "sandbox")
}

#[test]
fn a_message_is_written_with_its_queue_row_and_what_it_has_beside_them_on_both_stores() {
    on_both(|db| {
        let key = api_key(db, "crm");
        let mut m = text("+33600000001", "hello");
        m.api_key_id = Some(key);
        m.client_ref = Some("ref-1".into());
        m.prices = vec![("sandbox".into(), 1_500), ("backup".into(), 2_000)];
        m.smart_replaced = Some("’".into());
        m.smpp_receipt = Some(7);
        m.idempotency = Some(Idempotency {
            scope: "key:1".into(),
            key: "k1".into(),
            request_hash: "h1".into(),
        });
        let (first, second) = write_for_tests(db, 5_000, |tx| {
            let first = message::insert(tx, &m)?;
            let second = message::insert_sealed(tx, &text("+33600000002", "code ******"), Some("123456"))?;
            Ok((first, second))
        })
        .unwrap();
        assert!(second > first, "{:?}", db.dialect());
        assert_eq!(queue::status(&db, first).unwrap(), Some(QueueStatus::Queued));
        assert_eq!(queue::expires_at(&db, first).unwrap(), None);
        let prices: Vec<(String, i64)> = db
            .query(
                "SELECT connection, price FROM message_price WHERE message_id = ?1 ORDER BY connection",
                &[&first],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(prices, [("backup".into(), 2_000), ("sandbox".into(), 1_500)]);
        let smart: String = db
            .one("SELECT replaced FROM message_smart WHERE message_id = ?1", &[&first])
            .unwrap();
        assert_eq!(smart, "’");
        let receipt: i64 = db
            .one("SELECT receipt FROM smpp_message WHERE message_id = ?1", &[&first])
            .unwrap();
        assert_eq!(receipt, 3, "the receipt's low bits only");
        let (scope, created): (String, i64) = db
            .query_row(
                "SELECT idempotency_scope, created_at FROM message WHERE id = ?1",
                &[&first],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((scope.as_str(), created), ("key:1", 5_000));
        assert_eq!(
            queue::sealed_waiting(&db).unwrap(),
            [(second, "123456".to_owned())],
            "the sealed code waits with its message"
        );
        assert_eq!(message::owner(&db, first).unwrap(), Some(Some(key)));
        assert_eq!(message::owner(&db, second).unwrap(), Some(None));
        assert_eq!(message::owner(&db, 999).unwrap(), None);
        assert_eq!(message::kind(&db, first).unwrap(), MessageKind::Transactional);
        assert_eq!(
            message::destination_and_kind(&db, second).unwrap(),
            Some(("+33600000002".into(), MessageKind::Transactional))
        );
        assert_eq!(message::change_owner(&db, Entity::Message, first).unwrap(), Some(key));
        assert_eq!(message::change_owner(&db, Entity::Queue, second).unwrap(), None);
    });
}

#[test]
fn the_facts_a_receipt_is_checked_against_list_each_connection_its_tries_went_out_on_on_both_stores() {
    on_both(|db| {
        let id = write_for_tests(db, 1_000, |tx| {
            let id = message::insert(tx, &text("+33600000003", "hi there"))?;
            attempt::begin_attempt(tx, id, 1, attempt::Wire::sandbox(), 1)?;
            let backup = attempt::Wire {
                connection: "backup",
                ..attempt::Wire::sandbox()
            };
            attempt::begin_attempt(tx, id, 1, backup, 1)?;
            attempt::begin_attempt(tx, id, 1, backup, 1)?;
            Ok(id)
        })
        .unwrap();
        let facts = message::message_facts(&db, id).unwrap().expect("the message");
        assert_eq!(facts.connections, ["sandbox", "backup"], "{:?}", db.dialect());
        assert_eq!(
            (
                facts.destination.as_str(),
                facts.body.as_str(),
                facts.created_at,
                facts.segments
            ),
            ("+33600000003", "hi there", 1_000, 1)
        );
        assert!(!facts.text_removed && !facts.number_removed);
        assert!(message::message_facts(&db, id + 1).unwrap().is_none());
        let attempt_id: i64 = db
            .one("SELECT min(id) FROM attempt WHERE message_id = ?1", &[&id])
            .unwrap();
        assert_eq!(message::change_owner(&db, Entity::Attempt, attempt_id).unwrap(), None);
    });
}
