//! Idempotency keys compare requests as intake reads them: a repeat that spells out a default,
//! writes the number or a time another way, or leaves an optional field empty gets the first
//! answer; a request that says something else is refused as reusing the key. Single messages and
//! batches, on a real database file; and a key recorded before requests were compared so (by the
//! hash of the body as sent) still recognises its exact repeat.

use std::sync::Arc;

use serde_json::{json, Value};

use super::{Answer, Service, ServiceError, SubmitBatch, SubmittedBatch};
use crate::apikeys::Caller;
use crate::domain::IntakeChannel;
use crate::intake::{IntakeRules, SubmitMessage, SubmittedMessage};
use crate::receipts::ingest::Ingestor;
use crate::store::{Store, StoreError};

fn service() -> (tempfile::TempDir, Service) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(&dir.path().join("smsdesk.db")).unwrap());
    let ingestor = Ingestor::new(store.writer().clone(), Default::default());
    let rules = IntakeRules::new("sandbox", Some("FR"));
    // A run of its own, as an engine has: one-time codes are sealed with its key.
    crate::privacy::codes::new_run(store.path());
    (dir, Service::new(store, ingestor, rules, 100))
}

fn message(v: Value) -> SubmitMessage {
    serde_json::from_value(v).unwrap()
}

async fn submit(s: &Service, v: Value, key: &str) -> Result<Answer<SubmittedMessage>, ServiceError> {
    s.submit(
        &Caller::command_line(),
        IntakeChannel::Api,
        message(v),
        Some(key.into()),
    )
    .await
}

async fn submit_batch(s: &Service, v: Value, key: &str) -> Result<Answer<SubmittedBatch>, ServiceError> {
    let batch: SubmitBatch = serde_json::from_value(v).unwrap();
    s.submit_batch(&Caller::command_line(), IntakeChannel::Api, batch, Some(key.into()))
        .await
}

async fn messages(s: &Service) -> i64 {
    s.store()
        .reader()
        .read(|c| Ok::<_, StoreError>(c.query_row("SELECT count(*) FROM message", [], |r| r.get(0))?))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeat_spelling_out_what_intake_reads_the_same_gets_the_first_answer() {
    let (_dir, s) = service();
    let first = json!({ "destination": "+33612345678", "text": "Order 7 shipped" });
    let answer = submit(&s, first, "order-7").await.unwrap();
    assert!(!answer.replayed);
    let repeats = [
        json!({ "destination": "+33612345678", "text": "Order 7 shipped", "kind": "transactional" }),
        json!({ "destination": "+33612345678", "text": "Order 7 shipped", "priority": 5 }),
        json!({ "destination": "+33 6 12 34 56 78", "text": "Order 7 shipped" }),
        json!({ "destination": "06 12 34 56 78", "text": "Order 7 shipped" }),
        json!({ "destination": "+33612345678", "text": "Order 7 shipped", "kind": "transactional",
                "priority": 5, "ordering_key": "", "client_ref": "" }),
    ];
    for repeat in repeats {
        let again = submit(&s, repeat.clone(), "order-7")
            .await
            .unwrap_or_else(|e| panic!("{repeat} is the same request: {e}"));
        assert!(again.replayed, "{repeat}");
        assert_eq!(again.body, answer.body, "{repeat}: the first answer, byte for byte");
    }
    assert_eq!(messages(&s).await, 1, "one message for one request");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_instant_written_in_another_offset_is_the_same_request() {
    let (_dir, s) = service();
    let at = |t: &str| json!({ "destination": "+33612345678", "text": "Reminder", "scheduled_at": t });
    let first = submit(&s, at("2026-12-20T10:00:00Z"), "rdv-1").await.unwrap();
    let again = submit(&s, at("2026-12-20T11:00:00+01:00"), "rdv-1").await.unwrap();
    assert!(again.replayed);
    assert_eq!(again.body, first.body);
    let other = submit(&s, at("2026-12-20T11:00:00Z"), "rdv-1").await;
    assert!(
        matches!(other, Err(ServiceError::KeyReused)),
        "another instant: {other:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_that_says_something_else_under_the_same_key_is_still_refused() {
    let (_dir, s) = service();
    submit(
        &s,
        json!({ "destination": "+33612345678", "text": "Order 7 shipped" }),
        "order-7",
    )
    .await
    .unwrap();
    let others = [
        json!({ "destination": "+33612345678", "text": "Order 7 shipped!" }),
        json!({ "destination": "+33612345679", "text": "Order 7 shipped" }),
        json!({ "destination": "+33612345678", "text": "Order 7 shipped", "kind": "bulk" }),
        json!({ "destination": "+33612345678", "text": "Order 7 shipped", "priority": 4 }),
        json!({ "destination": "+33612345678", "text": "Order 7 shipped", "client_ref": "7" }),
        json!({ "destination": "+33612345678", "text": "Order 7 shipped", "validity_seconds": 600 }),
    ];
    for other in others {
        let refused = submit(&s, other.clone(), "order-7").await;
        assert!(matches!(refused, Err(ServiceError::KeyReused)), "{other}: {refused:?}");
    }
    assert_eq!(messages(&s).await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_is_compared_message_by_message_as_intake_reads_it() {
    let (_dir, s) = service();
    let first = json!({ "messages": [
        { "destination": "+33612345678", "text": "One" },
        { "destination": "+33612345679", "text": "Two", "kind": "otp" },
    ] });
    let answer = submit_batch(&s, first, "batch-1").await.unwrap();
    let same = json!({ "messages": [
        { "destination": "+33 6 12 34 56 78", "text": "One", "kind": "transactional", "priority": 5 },
        { "destination": "0612345679", "text": "Two", "kind": "otp", "ordering_key": "" },
    ] });
    let again = submit_batch(&s, same, "batch-1").await.unwrap();
    assert!(again.replayed);
    assert_eq!(again.body, answer.body);
    for other in [
        json!({ "messages": [
            { "destination": "+33612345678", "text": "One" },
            { "destination": "+33612345679", "text": "Two" },
        ] }),
        json!({ "messages": [
            { "destination": "+33612345679", "text": "Two", "kind": "otp" },
            { "destination": "+33612345678", "text": "One" },
        ] }),
        json!({ "messages": [{ "destination": "+33612345678", "text": "One" }] }),
    ] {
        let refused = submit_batch(&s, other.clone(), "batch-1").await;
        assert!(matches!(refused, Err(ServiceError::KeyReused)), "{other}: {refused:?}");
    }
    assert_eq!(messages(&s).await, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_recorded_by_the_body_as_sent_still_recognises_its_exact_repeat() {
    let (_dir, s) = service();
    let body = json!({ "priority": 5, "text": "Order 8 shipped", "destination": "+33612345678" });
    let first = submit(&s, body.clone(), "order-8").await.unwrap();
    // As smsdesk recorded keys before it compared requests as intake reads them: the hash of
    // the body as sent.
    let as_sent = crate::idempotency::request_hash("messages", &serde_json::to_value(message(body.clone())).unwrap());
    s.store()
        .writer()
        .write(move |tx| {
            tx.sql_for_tests().execute(
                "UPDATE idempotency SET request_hash = ?1 WHERE key = 'order-8'",
                [&as_sent],
            )?;
            Ok::<_, StoreError>(())
        })
        .await
        .unwrap();
    let again = submit(&s, body, "order-8").await.unwrap();
    assert!(
        again.replayed,
        "the exact repeat of a request recorded the old way is recognised"
    );
    assert_eq!(again.body, first.body);
    let other = submit(
        &s,
        json!({ "destination": "+33612345678", "text": "Order 9" }),
        "order-8",
    )
    .await;
    assert!(matches!(other, Err(ServiceError::KeyReused)), "{other:?}");
    assert_eq!(messages(&s).await, 1);
}
