//! The queue's last problem as a reason (schema version 25): written with its English sentence
//! by one call, read back in a message's detail and its list row; a database of the previous
//! release opens with its rows' reasons unknown and their sentences kept.

use std::path::Path;

use super::*;
use smsdesk_core::domain::{IntakeChannel, MessageKind, QueueStatus};
use smsdesk_core::message::NewMessage;
use smsdesk_core::reasons::{QueueNote, QueueReason, QueueReasonCode};

fn detail(store: &Store, id: i64) -> views::MessageDetail {
    store
        .reader()
        .read_blocking(move |c| views::message_detail(c, id))
        .unwrap()
        .expect("the message is there")
}

/// The previous release's database, copied where it may be migrated.
fn previous_release(dir: &Path) -> std::path::PathBuf {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/upgrade/smsdesk-0.1.0-schema17.db");
    let path = dir.join("smsdesk.db");
    std::fs::copy(fixture, &path).unwrap();
    path
}

#[test]
fn a_database_of_the_previous_release_reads_its_last_errors_with_no_reason() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&previous_release(dir.path())).unwrap();
    assert!(store.migration().applied.contains(&25));
    // Message 10 of the fixture was refused for good; 11 timed out.
    for id in [10, 11] {
        let d = detail(&store, id);
        assert!(d.queue.last_error.is_some(), "message {id} keeps the sentence it had");
        assert_eq!(d.queue.reason, None, "message {id} was written before reasons");
        assert_eq!(d.summary.reason, None);
        let json = serde_json::to_value(&d.queue).unwrap();
        assert!(json["reason"].is_null(), "the API answers null: {json}");
    }
}

#[test]
fn a_status_with_a_problem_writes_its_reason_and_sentence_together_and_a_status_alone_keeps_both() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
    let id = store
        .writer()
        .write_blocking(|tx| {
            let id = tables::message::insert(
                tx,
                &NewMessage::text(
                    IntakeChannel::Api,
                    "+33600000001",
                    "hi",
                    MessageKind::Transactional,
                    "sandbox",
                ),
            )?;
            let note = QueueNote::new(
                QueueReason::new(QueueReasonCode::RefusedPermanent).with("status", "ESME_RINVDSTADR"),
                "ESME_RINVDSTADR (0x0000000B): Invalid destination address (phone number)",
            );
            tables::queue::set_status(tx, id, QueueStatus::Failed, Some(&note), None)?;
            Ok::<_, StoreError>(id)
        })
        .unwrap();
    let d = detail(&store, id);
    let reason = d.queue.reason.clone().expect("a reason was written");
    assert_eq!(reason.code, QueueReasonCode::RefusedPermanent);
    assert_eq!(reason.params.get("status").map(String::as_str), Some("ESME_RINVDSTADR"));
    assert!(d.queue.last_error.as_deref().unwrap().starts_with("ESME_RINVDSTADR"));
    assert_eq!(
        d.summary.reason,
        Some(reason.clone()),
        "the list row carries the same reason"
    );
    let page = store
        .reader()
        .read_blocking(|c| views::list_messages(c, &views::MessageFilter::default()))
        .unwrap();
    assert_eq!(page.items[0].reason, Some(reason.clone()));

    // A move with nothing to say (an operator's retry queues it again) keeps the last problem whole.
    store
        .writer()
        .write_blocking(move |tx| tables::queue::set_status(tx, id, QueueStatus::Queued, None, None))
        .unwrap();
    let after = detail(&store, id);
    assert_eq!(after.queue.reason, Some(reason));
    assert_eq!(after.queue.last_error, d.queue.last_error);
}
