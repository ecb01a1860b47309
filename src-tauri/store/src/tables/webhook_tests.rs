//! The webhook outbox on both stores: notifications put in, picked when due (the first of each
//! message only), settled after each try, abandoned with their key, and their tries' URLs kept
//! without credentials.

use std::time::Duration;

use smsdesk_core::access::{KeyLimits, Scope};
use smsdesk_core::domain::WebhookField;

use super::webhook::{self, Settled, Target, Tried};
use super::{api_key, inbox, test_rows};
use crate::both_stores::on_both;
use crate::writer::{write_for_tests, WriteTx};
use crate::StoreError;

fn key(tx: &mut WriteTx<'_>, name: &str, scopes: &[Scope]) -> Result<i64, StoreError> {
    api_key::insert(
        tx,
        &api_key::NewKey {
            name,
            prefix: name,
            hash: name,
            created_by: "ana",
            webhook_url: Some("https://example.com/hook"),
            webhook_secret: Some("sealed"),
            scopes,
            limits: &KeyLimits::default(),
        },
    )
}

fn tried(delivery_id: i64, error: Option<&str>) -> Tried {
    Tried {
        delivery_id,
        at: 2_000,
        url: "https://user:pw@example.com/hook?token=1".into(),
        http_status: error.map_or(Some(200), |_| Some(503)),
        error: error.map(str::to_owned),
        permanent: false,
        duration_ms: 12,
    }
}

#[test]
fn notifications_go_out_in_order_and_are_settled_after_each_try_on_both_stores() {
    on_both(|db| {
        let (k, m) = write_for_tests(db, 1_000, |tx| {
            let k = key(tx, "crm", &[Scope::Send])?;
            let m = test_rows::message_of(tx, "smsc-a", "+33612345678", "bulk", Some(k))?;
            webhook::enqueue(&*tx, k, m, WebhookField::State, "pending", 1_000)?;
            webhook::enqueue(&*tx, k, m, WebhookField::State, "delivered", 1_000)?;
            Ok((k, m))
        })
        .unwrap();
        let round = webhook::due(&db, 1_000, 10).unwrap();
        assert_eq!(round.due.len(), 1, "the first of its message only, {:?}", db.dialect());
        let first = &round.due[0];
        assert_eq!(
            (first.message_id, first.value.as_str(), first.attempts),
            (Some(m), "pending", 0)
        );
        assert!(matches!(&first.target, Target::Url { secret, .. } if secret == "sealed"));
        assert!(webhook::due(&db, 999, 10).unwrap().due.is_empty());
        let first = first.id;

        let settled = write_for_tests(db, 2_000, |tx| {
            webhook::record(tx, &tried(first, Some("HTTP 503")), 3, |n| {
                Duration::from_secs(u64::from(n))
            })
        })
        .unwrap();
        assert_eq!(settled, Settled::RetryAt(3_000));
        let round = webhook::due(&db, 2_500, 10).unwrap();
        assert!(round.due.is_empty(), "the second waits for the first");
        assert_eq!(round.next_at, Some(3_000));
        let settled = write_for_tests(db, 3_000, |tx| {
            webhook::record(tx, &tried(first, None), 3, |_| Duration::ZERO)
        })
        .unwrap();
        assert_eq!(settled, Settled::Delivered);
        let again = write_for_tests(db, 3_000, |tx| {
            webhook::record(tx, &tried(first, None), 3, |_| Duration::ZERO)
        })
        .unwrap();
        assert_eq!(again, Settled::NotPending);
        assert_eq!(webhook::due(&db, 3_000, 10).unwrap().due[0].value, "delivered");

        let views = webhook::deliveries_for_message(&db, m).unwrap();
        assert_eq!(views.len(), 2);
        assert_eq!((views[0].attempts, views[0].tries.len()), (2, 3));
        assert_eq!(views[0].tries[0].http_status, Some(503));
        assert!(!views[0].tries[0].url.contains("pw"), "{}", views[0].tries[0].url);

        // A try recorded with its credentials by an earlier version loses them.
        db.execute(
            "INSERT INTO webhook_attempt (delivery_id, at, url, duration_ms) VALUES (?1, 1, ?2, 1)",
            &[&first, &"https://user:pw@example.com/old"],
        )
        .unwrap();
        assert_eq!(write_for_tests(db, 4_000, webhook::redact_attempt_urls).unwrap(), 1);
        assert_eq!(write_for_tests(db, 4_000, webhook::redact_attempt_urls).unwrap(), 0);

        let abandoned = write_for_tests(db, 5_000, |tx| {
            assert_eq!(webhook::abandon_for_key(tx, k)?, (0, ""), "a live key with a URL");
            api_key::revoke(tx, k, "ana")?;
            webhook::abandon_for_key(tx, k)
        })
        .unwrap();
        assert_eq!(abandoned, (1, "not sent: the API key was revoked"));
        assert!(webhook::due(&db, 9_000, 10).unwrap().due.is_empty());
    });
}

#[test]
fn a_reply_is_announced_to_the_keys_that_read_everything_on_both_stores() {
    on_both(|db| {
        let n = write_for_tests(db, 1_000, |tx| {
            key(tx, "reader", &[Scope::Send, Scope::ReadAll])?;
            key(tx, "sender", &[Scope::Send])?;
            let reply = inbox::insert(
                tx,
                &inbox::NewInboxMessage {
                    connection: "smsc-a",
                    phone: Some("+33612345678"),
                    handset: "+33612345678",
                    recipient: None,
                    text: "hi",
                    alphabet: "gsm7",
                    parts: 1,
                    parts_received: 1,
                    received_at: 1_000,
                    completed_at: 1_000,
                    intent: None,
                },
            )?;
            webhook::enqueue_inbound(tx, reply, "+33612345678")
        })
        .unwrap();
        assert_eq!(n, 1, "{:?}", db.dialect());
        let due = webhook::due(&db, 1_000, 10).unwrap().due;
        assert_eq!(due.len(), 1);
        assert_eq!(
            (due[0].field, due[0].value.as_str()),
            (WebhookField::Inbound, "+33612345678")
        );
        assert!(due[0].inbox_message_id.is_some() && due[0].message_id.is_none());
    });
}
