//! Personal data over the sandbox SMSC (TCP): retention leaves no byte of a canary text or number
//! in the data directory and keeps every fact; a one-time code is never at rest; erasure of a
//! number keeps its opt-out in force; access by number gives everything of it and nothing else.

use std::time::Duration;

use smsdesk_engine::access::Caller;
use smsdesk_engine::domain::{IntakeChannel, MessageKind, QueueStatus};
use smsdesk_engine::intake::SubmitMessage;
use smsdesk_engine::service::privacy::{EraseNumber, SubjectRequest};
use smsdesk_engine::service::{NewOptOut, SandboxReply, ServiceError};
use smsdesk_engine::{views, Engine};

use crate::common::bound_engine;

const NUMBER: &str = "+33612345600";
const OTHER: &str = "+33698765400";
const CANARY: &str = "canaryzq rendez-vous cardiologie";

/// Every byte of every file under `dir` (the database, its WAL, logs, backups).
fn all_bytes(dir: &std::path::Path) -> Vec<u8> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(all_bytes(&p));
        } else {
            out.extend(std::fs::read(&p).unwrap_or_default());
        }
    }
    out
}

fn count(hay: &[u8], needle: &str) -> usize {
    hay.windows(needle.len()).filter(|w| *w == needle.as_bytes()).count()
}

async fn submit(engine: &Engine, to: &str, text: &str, kind: MessageKind) -> Result<i64, ServiceError> {
    let req = SubmitMessage {
        destination: to.into(),
        text: text.into(),
        kind: Some(kind),
        ..SubmitMessage::default()
    };
    let answer = engine
        .service()
        .submit(&Caller::command_line(), IntakeChannel::Api, req, None)
        .await?;
    Ok(answer.value.id)
}

/// Waits (20 s at most) until `ids` are accepted with a final state reported.
async fn until_delivered(engine: &Engine, ids: &[i64]) {
    let store = engine.store().clone();
    let ids = ids.to_vec();
    tokio::time::timeout(Duration::from_secs(20), async move {
        loop {
            let ids = ids.clone();
            let done = store
                .reader()
                .read(move |c| {
                    let mut all = true;
                    for id in ids {
                        let d = views::message_detail(c, id)?.expect("stored");
                        all &= d.summary.status == QueueStatus::Accepted && d.summary.state.is_final();
                    }
                    Ok::<_, views::ViewError>(all)
                })
                .await
                .unwrap();
            if done {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("delivered within 20 s");
}

async fn shut(engine: Engine) {
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retention_at_zero_days_leaves_no_canary_in_any_file_and_keeps_every_fact() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("smsdesk.toml"),
        "[retention]\notp_text_days = 0\ntransactional_text_days = 0\nbulk_text_days = 0\n\
         destination_days = 0\nreplies_days = 0\n",
    )
    .unwrap();
    let engine = bound_engine(dir.path()).await;
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(
            submit(&engine, NUMBER, &format!("{CANARY} {i}"), MessageKind::Transactional)
                .await
                .unwrap(),
        );
    }
    until_delivered(&engine, &ids).await;
    engine
        .service()
        .sandbox_reply(
            &Caller::command_line(),
            SandboxReply {
                from: NUMBER.into(),
                text: format!("{CANARY} merci"),
            },
        )
        .unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let before: Vec<views::MessageDetail> = details(&engine, &ids).await;
    assert!(
        count(&all_bytes(dir.path()), "canaryzq") > 0,
        "the scene: the canary is stored"
    );

    let run = engine.service().run_retention(&Caller::command_line()).await.unwrap();
    assert_eq!(run.redacted.texts, 5);
    assert_eq!(run.redacted.numbers, 5);
    assert!(run.redacted.receipts >= 5 && run.redacted.replies >= 1, "{run:?}");

    let after = details(&engine, &ids).await;
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(a.summary.status, b.summary.status, "the queue status stays");
        assert_eq!(a.summary.state, b.summary.state, "the computed state stays");
        assert_eq!(a.attempts.len(), b.attempts.len(), "every try stays");
        assert_eq!(a.receipts.len(), b.receipts.len(), "every receipt stays");
        assert!(a.timeline.len() >= b.timeline.len(), "the timeline stays");
        assert!(a.message.text_removed.is_some() && a.message.number_removed.is_some());
        assert_eq!(a.message.body, "");
    }
    let audit = engine.service().audit_log(None, Some(200)).await.unwrap();
    assert!(audit.items.iter().any(|e| e.action.to_string() == "retention.run"));
    shut(engine).await;

    let bytes = all_bytes(dir.path());
    assert_eq!(count(&bytes, "canaryzq"), 0, "no byte of the canary text in any file");
    assert_eq!(
        count(&bytes, "612345600"),
        0,
        "no byte of the canary number in any file"
    );

    // A rebuild from the redacted evidence gives the same states.
    let store = smsdesk_store::Store::open(&dir.path().join("smsdesk.db")).unwrap();
    let policy = smsdesk_engine::receipts::policy::ReceiptPolicy::default();
    let report = tokio::task::spawn_blocking(move || {
        let r = smsdesk_engine::receipts::rebuild::run(&store, &policy, false, |_, _| {});
        store.shutdown();
        r
    })
    .await
    .unwrap()
    .unwrap();
    assert!(
        report.differing.is_empty(),
        "rebuild --check agrees: {:?}",
        report.differing
    );
}

async fn details(engine: &Engine, ids: &[i64]) -> Vec<views::MessageDetail> {
    let mut out = Vec::new();
    for &id in ids {
        out.push(engine.service().message(&Caller::command_line(), id).await.unwrap());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_time_code_is_in_no_file_export_or_answer_and_shows_masked() {
    let dir = tempfile::tempdir().unwrap();
    let engine = bound_engine(dir.path()).await;
    let id = submit(&engine, NUMBER, "Votre code : 482913", MessageKind::Otp)
        .await
        .unwrap();
    until_delivered(&engine, &[id]).await;
    let d = engine.service().message(&Caller::command_line(), id).await.unwrap();
    assert_eq!(d.message.body, "Votre code : ••••••", "shown masked");
    assert!(
        !serde_json::to_string(&d).unwrap().contains("482913"),
        "not in the detail"
    );
    let mut csv = Vec::new();
    let filter = views::MessageFilter::default();
    engine
        .store()
        .reader()
        .read_blocking(|c| views::write_csv(c, &filter, &mut csv, |_| std::ops::ControlFlow::Continue(())))
        .unwrap();
    assert!(String::from_utf8_lossy(&csv).contains("••••••"));
    assert_eq!(count(&csv, "482913"), 0, "not in an export");
    // While it was waiting and once sent: never in a file.
    assert_eq!(
        count(&all_bytes(dir.path()), "482913"),
        0,
        "not in any file while running"
    );
    shut(engine).await;
    assert_eq!(
        count(&all_bytes(dir.path()), "482913"),
        0,
        "not in any file after the stop"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_that_expires_unsent_or_outlives_its_run_is_never_sent_nor_kept() {
    let dir = tempfile::tempdir().unwrap();
    // A provider no one answers for: nothing is sent.
    std::fs::write(
        dir.path().join("smsdesk.toml"),
        "[smpp]\nsandbox = false\nhost = \"127.0.0.1\"\nport = 9\n",
    )
    .unwrap();
    let env = [("SMSDESK_HTTP_PORT".to_owned(), "0".to_owned())];
    let start = || async {
        let prepared = smsdesk_engine::engine::Prepared::load(dir.path().to_owned(), env.clone()).unwrap();
        let options = smsdesk_engine::EngineOptions {
            mode: smsdesk_engine::api::RunMode::Serve,
            http_port: None,
            door: None,
        };
        Engine::start(prepared, options).await.unwrap()
    };
    let engine = start().await;
    let req = SubmitMessage {
        destination: NUMBER.into(),
        text: "Votre code : 482913".into(),
        kind: Some(MessageKind::Otp),
        validity_seconds: Some(1),
        ..SubmitMessage::default()
    };
    let expiring = engine
        .service()
        .submit(&Caller::command_line(), IntakeChannel::Api, req, None)
        .await
        .unwrap()
        .value
        .id;
    let waiting = submit(&engine, OTHER, "Votre code : 771204", MessageKind::Otp)
        .await
        .unwrap();
    let status = |id| {
        let s = engine.store().clone();
        async move {
            s.reader()
                .read(move |c| smsdesk_engine::queue::status(c, id))
                .await
                .unwrap()
        }
    };
    tokio::time::timeout(Duration::from_secs(10), async {
        while status(expiring).await != Some(QueueStatus::Expired) {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the code expires unsent");
    shut(engine).await;
    let bytes = all_bytes(dir.path());
    assert_eq!(count(&bytes, "482913"), 0);
    assert_eq!(
        count(&bytes, "771204"),
        0,
        "a code still waiting is sealed, never in clear"
    );

    // The next run cannot open the code the last one sealed: expired as lost, never sent.
    let engine = start().await;
    let d = engine
        .service()
        .message(&Caller::command_line(), waiting)
        .await
        .unwrap();
    assert_eq!(d.summary.status, QueueStatus::Expired);
    assert_eq!(
        d.queue.reason.as_ref().map(|r| r.code.as_str()),
        Some("code_lost"),
        "{:?}",
        d.queue.reason
    );
    shut(engine).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn erasing_a_number_leaves_none_of_its_bytes_and_its_opt_out_still_stops_sends() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("smsdesk.toml"), "[intake]\ndefault_region = \"FR\"\n").unwrap();
    let engine = bound_engine(dir.path()).await;
    let mut ids = Vec::new();
    for i in 0..3 {
        ids.push(
            submit(&engine, NUMBER, &format!("{CANARY} {i}"), MessageKind::Transactional)
                .await
                .unwrap(),
        );
    }
    let other = submit(&engine, OTHER, "for another number", MessageKind::Transactional)
        .await
        .unwrap();
    until_delivered(&engine, &[ids.clone(), vec![other]].concat()).await;
    engine
        .service()
        .sandbox_reply(
            &Caller::command_line(),
            SandboxReply {
                from: NUMBER.into(),
                text: "merci".into(),
            },
        )
        .unwrap();
    engine
        .service()
        .add_opt_out(
            &Caller::command_line(),
            NewOptOut {
                phone: "06 12 34 56 00".into(),
                note: Some("asked by phone".into()),
                kinds: None,
            },
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;

    let access = engine
        .service()
        .subject_access(
            &Caller::command_line(),
            SubjectRequest {
                number: "06 12 34 56 00".into(),
            },
        )
        .await
        .unwrap();
    assert_eq!(
        access.record.messages.iter().map(|m| m.id).collect::<Vec<_>>(),
        ids,
        "its messages, all"
    );
    assert!(access
        .record
        .messages
        .iter()
        .all(|m| m.text.as_deref().is_some_and(|t| t.contains("canaryzq"))));
    assert_eq!(access.record.replies.len(), 1);
    assert_eq!(access.record.opt_outs.len(), 1);
    let json = serde_json::to_string(&access).unwrap();
    assert!(
        !json.contains("698765400") && !json.contains("another number"),
        "nothing of another number"
    );
    assert_eq!(
        access.csv.lines().count(),
        1 + 3 + 1 + 1,
        "a header, then a line per thing held"
    );

    let refused = EraseNumber {
        number: NUMBER.into(),
        note: " ".into(),
    };
    assert!(matches!(
        engine.service().erase_number(&Caller::command_line(), refused).await,
        Err(ServiceError::Invalid(_))
    ));
    let erased = engine
        .service()
        .erase_number(
            &Caller::command_line(),
            EraseNumber {
                number: NUMBER.into(),
                note: "request by letter of 3 May".into(),
            },
        )
        .await
        .unwrap();
    assert_eq!(
        (erased.redacted.texts, erased.redacted.numbers, erased.redacted.opt_outs),
        (3, 3, 1)
    );
    assert!(erased.redacted.replies >= 1);

    // Still opted out: a new message to it is refused.
    assert!(matches!(
        submit(&engine, NUMBER, "again", MessageKind::Transactional).await,
        Err(ServiceError::OptedOut(_))
    ));
    let audit = engine.service().audit_log(None, Some(200)).await.unwrap();
    assert!(
        !serde_json::to_string(&audit).unwrap().contains("612345600"),
        "the audit holds no number"
    );
    assert!(audit.items.iter().any(|e| e.action.to_string() == "privacy.erase"));
    shut(engine).await;
    let bytes = all_bytes(dir.path());
    assert_eq!(count(&bytes, "612345600"), 0, "none of the number's bytes in any file");
    assert_eq!(count(&bytes, "canaryzq"), 0, "none of its texts");
    assert!(count(&bytes, "698765400") > 0, "another number's data stays");
}
