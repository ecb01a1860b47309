//! The operator's retry of a message the SMSC refused for good, over the embedded sandbox SMSC
//! (a destination ending in 13 is always refused with ESME_RINVDSTADR): refused with the status
//! named until confirmed, audited as such once confirmed, and every try counted as the timeline
//! numbers it. And the compose form's send time: kept when ahead, refused when past.

use std::time::Duration;

use smsdesk_engine::access::Caller;
use smsdesk_engine::audit::AuditAction;
use smsdesk_engine::domain::{IntakeChannel, QueueStatus};
use smsdesk_engine::intake::SubmitMessage;
use smsdesk_engine::queue::ActionError;
use smsdesk_engine::service::{MessageAction, ServiceError};
use smsdesk_engine::views::MessageDetail;
use smsdesk_engine::Engine;

async fn engine(dir: &tempfile::TempDir) -> Engine {
    crate::common::bound_engine(dir.path()).await
}

/// The message's detail once `done` says so (within 15 s).
async fn detail_once(engine: &Engine, id: i64, done: impl Fn(&MessageDetail) -> bool) -> MessageDetail {
    let service = engine.service().clone();
    tokio::time::timeout(Duration::from_secs(15), async move {
        loop {
            let d = service.message(&Caller::window(), id).await.unwrap();
            if done(&d) {
                return d;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the message gets there")
}

async fn send(engine: &Engine, destination: &str, scheduled_at: Option<String>) -> Result<i64, ServiceError> {
    let m = SubmitMessage {
        destination: destination.into(),
        text: "Your parcel is on its way".into(),
        scheduled_at,
        ..SubmitMessage::default()
    };
    let answer = engine
        .service()
        .submit(&Caller::window(), IntakeChannel::Compose, m, None)
        .await?;
    Ok(answer.value.id)
}

fn note(text: &str) -> MessageAction {
    MessageAction {
        note: text.into(),
        ..MessageAction::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_of_a_message_refused_for_good_needs_confirming_and_every_try_is_counted() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&dir).await;
    let id = send(&engine, "+33612345613", None).await.unwrap();
    let failed = detail_once(&engine, id, |d| d.queue.status == QueueStatus::Failed).await;
    assert_eq!(failed.summary.attempts, 1);

    let refused = engine.service().retry(&Caller::window(), id, note("try again")).await;
    match refused {
        Err(ServiceError::Action(ActionError::PermanentFailure { status, meaning })) => {
            assert_eq!(status, "ESME_RINVDSTADR");
            assert!(meaning.contains("destination"), "{meaning}");
        }
        other => panic!("a retry of a message refused for good must be refused: {other:?}"),
    }
    let still = engine.service().message(&Caller::window(), id).await.unwrap();
    assert_eq!(
        still.queue.status,
        QueueStatus::Failed,
        "a refused retry changes nothing"
    );

    let confirmed = MessageAction {
        confirm_permanent_failure: Some(true),
        ..note("the customer says the number works now")
    };
    engine.service().retry(&Caller::window(), id, confirmed).await.unwrap();
    let again = detail_once(&engine, id, |d| {
        d.queue.status == QueueStatus::Failed && d.attempts.len() == 2
    })
    .await;
    assert_eq!(again.summary.attempts, 2, "every try the message had, across the retry");
    assert_eq!(
        again.queue.attempts, 1,
        "the queue's own count starts again with each round"
    );
    assert!(
        again
            .timeline
            .iter()
            .any(|e| e.summary.contains("refused try 2 for good")),
        "the timeline numbers the second try 2: {:?}",
        again.timeline.iter().map(|e| &e.summary).collect::<Vec<_>>()
    );

    let audit = engine.service().audit_log(None, Some(20)).await.unwrap();
    let entry = audit
        .items
        .iter()
        .find(|e| {
            let retry = [
                AuditAction::MessageRetry,
                AuditAction::MessageRetryConfirmed,
                AuditAction::MessageRetryOverride,
                AuditAction::MessageRetryPermanentConfirmed,
            ];
            e.subject_id == Some(id) && retry.iter().any(|r| e.action == *r)
        })
        .expect("the retry is audited");
    assert_eq!(entry.action, AuditAction::MessageRetryPermanentConfirmed);
    assert_eq!(entry.note.as_deref(), Some("the customer says the number works now"));
    assert_eq!(entry.details.as_ref().unwrap()["command_status"], "ESME_RINVDSTADR");
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_that_failed_for_now_is_retried_without_the_guard() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&dir).await;
    // Accepted after a first refusal for now (ESME_RMSGQFUL): a retry may deliver it twice, which
    // is the existing confirmation, and nothing is said of a permanent failure.
    let id = send(&engine, "+33612345612", None).await.unwrap();
    detail_once(&engine, id, |d| d.queue.status == QueueStatus::Accepted).await;
    let refused = engine.service().retry(&Caller::window(), id, note("")).await;
    assert!(
        matches!(refused, Err(ServiceError::Action(ActionError::ConfirmationRequired(_)))),
        "{refused:?}"
    );
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_compose_form_schedules_a_message_ahead_and_refuses_a_time_already_past() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&dir).await;
    let now = smsdesk_engine::clock::Clock::system().now_ms();
    let ahead = smsdesk_engine::clock::format_rfc3339(now + 3_600_000);
    let id = send(&engine, "+33612345600", Some(ahead)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let d = engine.service().message(&Caller::window(), id).await.unwrap();
    assert_eq!(d.message.scheduled_at_ms, Some(now + 3_600_000));
    assert_eq!(d.summary.scheduled_at_ms, Some(now + 3_600_000));
    assert_eq!(d.queue.status, QueueStatus::Queued, "not sent before its time");
    assert!(d.attempts.is_empty());

    let past = smsdesk_engine::clock::format_rfc3339(now - 60_000);
    match send(&engine, "+33612345600", Some(past)).await {
        Err(ServiceError::Invalid(errors)) => {
            assert_eq!(
                (errors[0].field.as_str(), errors[0].code.as_str()),
                ("scheduled_at", "in_past")
            );
        }
        other => panic!("a past send time from the compose form is refused: {other:?}"),
    }
    engine.shutdown().await;
}
