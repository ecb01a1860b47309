//! Two connections to two SMSCs over real TCP, both numbering their message ids from 1: receipts
//! are correlated only against tries on the connection they arrived on, and a message queued for
//! one connection but sent on the other (as a failover does) takes its receipts from where it went.

use std::sync::Arc;
use std::time::Duration;

use super::session::{Session, SessionConfig};
use super::tests::{send_by_hand, submit_sm};
use crate::domain::{DeliveryState, IntakeChannel, MessageKind};
use crate::messages::{self, NewMessage};
use crate::receipts::ingest::Ingestor;
use crate::receipts::policy::ReceiptPolicy;
use crate::sandbox::{Sandbox, SandboxConfig};
use crate::store::Store;
use crate::test_support as report;

/// An SMSC of its own and the session named `connection` bound to it.
async fn connection(name: &str, ingestor: &Ingestor) -> (Sandbox, Session) {
    let sandbox = Sandbox::start(SandboxConfig {
        receipt_delay: Duration::from_millis(20),
        ..Default::default()
    })
    .await
    .unwrap();
    let config = SessionConfig {
        tps: 1_000.0,
        ..SessionConfig::new(name, "127.0.0.1", sandbox.addr().port())
    };
    let session = Session::start(config, Arc::new(ingestor.clone()));
    (sandbox, session)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_connections_whose_ids_collide_never_cross_attribute_and_a_send_on_the_backup_fits() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(&dir.path().join("smsdesk.db")).unwrap());
    let ingestor = Ingestor::new(store.writer().clone(), ReceiptPolicy::default());
    let (primary_smsc, primary) = connection("primary", &ingestor).await;
    let (backup_smsc, backup) = connection("backup", &ingestor).await;

    // Every message is queued for the primary. The first five go out on it and are delivered
    // (destinations ending 00); the other five go out on the backup, as after a failover, and are
    // undeliverable (ending 01). A receipt given to the wrong message would show.
    let mut sent = Vec::new();
    for n in 0..10 {
        let on_backup = n >= 5;
        let destination = format!("+336123456{n}{}", if on_backup { "01" } else { "00" });
        let text = format!("Rendez-vous {n}");
        let m = NewMessage::text(
            IntakeChannel::Cli,
            &destination,
            &text,
            MessageKind::Transactional,
            "primary",
        );
        let id = store.writer().write(move |tx| messages::insert(tx, &m)).await.unwrap();
        let session = if on_backup { backup.handle() } else { primary.handle() };
        let provider_id = send_by_hand(&store, &session, id, submit_sm(&destination, &text)).await;
        sent.push((id, on_backup, provider_id));
    }
    let ids = |backup: bool| -> Vec<&str> {
        sent.iter()
            .filter(|(_, b, _)| *b == backup)
            .map(|(_, _, p)| p.as_str())
            .collect()
    };
    assert_eq!(
        ids(false),
        ids(true),
        "both SMSCs gave the same ids: the collision is real"
    );

    for (id, on_backup, _) in &sent {
        let (store, id) = (store.clone(), *id);
        let r = tokio::time::timeout(Duration::from_secs(10), async move {
            loop {
                let r = store
                    .reader()
                    .read(move |c| report::message_report(c, id))
                    .await
                    .unwrap()
                    .unwrap();
                if r.reported_state != DeliveryState::Pending {
                    return r;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .expect("its receipt came and was applied");
        let expected = if *on_backup {
            DeliveryState::Undeliverable
        } else {
            DeliveryState::Delivered
        };
        assert_eq!(r.reported_state, expected, "message {id}: only its own receipt counts");
        assert!(
            r.flags.is_empty(),
            "message {id}: no conflict, and no mismatch for a receipt from the connection it went out on: {:?}",
            r.flags
        );
    }
    let counters = store.reader().read(report::counters).await.unwrap();
    assert_eq!(counters.receipts, 10, "one receipt each");
    assert!(
        counters.open_exceptions.is_empty(),
        "nothing left uncorrelated: {counters:?}"
    );
    assert!(primary_smsc.accepted_twice().is_empty() && backup_smsc.accepted_twice().is_empty());
    primary.stop().await;
    backup.stop().await;
}
