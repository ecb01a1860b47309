//! Projections on both stores: a message's computed state written and read back, with what it
//! puts in the webhook outbox, the message as a change of it reads it, and the rebuild list.

use smsdesk_core::access::{KeyLimits, Scope};
use smsdesk_core::domain::{Correlation, DeliveryState, ReceiptKind, WebhookField};
use smsdesk_core::receipts::dedup;
use smsdesk_core::receipts::rules::{EventFacts, Input, Projection, Rule, RULES_VERSION};

use super::{api_key, logical_event, projection, test_rows, webhook};
use crate::both_stores::on_both;
use crate::writer::write_for_tests;

fn key_with_webhook(tx: &mut crate::WriteTx<'_>) -> Result<i64, crate::StoreError> {
    api_key::insert(
        tx,
        &api_key::NewKey {
            name: "crm",
            prefix: "crm",
            hash: "hash-crm",
            created_by: "ana",
            webhook_url: Some("https://example.com/hook"),
            webhook_secret: Some("sealed"),
            scopes: &[Scope::Send],
            limits: &KeyLimits::default(),
        },
    )
}

#[test]
fn a_projection_is_written_read_back_and_announced_on_both_stores() {
    on_both(|db| {
        let (m, event) = write_for_tests(db, 1_000, |tx| {
            let key = key_with_webhook(tx)?;
            let m = test_rows::message_of(tx, "smsc-a", "+33612345678", "transactional", Some(key))?;
            test_rows::queued(tx.db(), m, "accepted", 1_000)?;
            tx.db()
                .execute("UPDATE queue SET accepted_at = 900 WHERE message_id = ?1", &[&m])?;
            // A failover: the first try went out on smsc-b, the second on the message's own.
            test_rows::accepted_try(tx.db(), m, 1, "smsc-b", "k1", 1_000)?;
            test_rows::accepted_try(tx.db(), m, 2, "smsc-a", "k2", 1_000)?;
            let receipt = test_rows::receipt(tx, "smsc-a", "k2", "DELIVRD")?;
            let dk = dedup::key(
                None,
                Some("k2"),
                Some("DELIVRD"),
                None,
                None,
                None,
                ReceiptKind::Receipt,
            );
            let event = logical_event::record(
                tx,
                &logical_event::NewEvent {
                    connection: "smsc-a",
                    key: &dk,
                    first_receipt_id: receipt,
                    correlation: Correlation::Matched,
                    message_id: Some(m),
                },
            )?
            .unwrap();
            Ok((m, event))
        })
        .unwrap();

        let row = projection::read_message(&db, m).unwrap().unwrap();
        assert_eq!(row.facts.connections, ["smsc-a", "smsc-b"], "{:?}", db.dialect());
        assert!(row.stored.is_none());
        let by_id = projection::read_message_by_provider_id(&db, "smsc-b", "k1")
            .unwrap()
            .unwrap();
        assert_eq!(by_id.id, m);
        assert!(projection::read_message_by_provider_id(&db, "smsc-b", "k2")
            .unwrap()
            .is_none());
        assert_eq!(projection::state(&db, m).unwrap(), None);

        let first = Projection::default();
        let delivered = Projection {
            state: DeliveryState::Delivered,
            rule: Rule::FirstFinal,
            supporting: vec![event],
            late: true,
            ..Projection::default()
        };
        write_for_tests(db, 2_000, |tx| {
            projection::save(tx, m, None, &first)?;
            let before = projection::stored(&*tx, m)?.unwrap();
            projection::save(tx, m, Some(&before), &delivered)?;
            let input = Input::Event(EventFacts {
                event,
                state: DeliveryState::Delivered,
                mismatch: false,
                id_disagree: false,
                parts: vec![],
                of: 1,
            });
            projection::record_input(tx, m, &input)
        })
        .unwrap();
        assert_eq!(projection::load(&db, m).unwrap(), delivered);
        assert_eq!(projection::state(&db, m).unwrap(), Some(DeliveryState::Delivered));
        assert_eq!(projection::how_many(&db).unwrap(), 1);
        assert_eq!(projection::messages_after(&db, 0, 10).unwrap(), [m]);
        assert!(projection::messages_after(&db, m, 10).unwrap().is_empty());
        let inputs = projection::input_rows(&db, m).unwrap();
        assert_eq!(inputs.len(), 1);
        assert_eq!(
            (inputs[0].kind.as_str(), inputs[0].logical_event_id),
            ("event", Some(event))
        );
        let announced: Vec<String> = webhook::deliveries_for_message(&db, m)
            .unwrap()
            .into_iter()
            .filter(|d| d.field == WebhookField::State)
            .map(|d| d.value)
            .collect();
        assert_eq!(
            announced,
            ["pending", "delivered"],
            "the new projection, then its change of state"
        );
        let stored_again = projection::read_message(&db, m).unwrap().unwrap().stored.unwrap();
        assert_eq!(stored_again.fold, delivered);

        write_for_tests(db, 3_000, |tx| {
            tx.db()
                .execute("INSERT INTO rebuild_wanted (message_id) VALUES (?1)", &[&m])?;
            assert_eq!(projection::rebuild_wanted(tx, 10)?, [m]);
            projection::rebuilt(tx, &[m], RULES_VERSION + 1)?;
            assert!(projection::rebuild_wanted(tx, 10)?.is_empty());
            let version: i64 = tx
                .db()
                .one("SELECT rules_version FROM projection WHERE message_id = ?1", &[&m])?;
            assert_eq!(version, i64::from(RULES_VERSION) + 1);
            Ok(())
        })
        .unwrap();
    });
}
