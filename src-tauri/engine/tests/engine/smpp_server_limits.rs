//! smsdesk's SMPP server at its edges: a long message joined from SAR TLVs, wrong passwords
//! slowed down as the web sign-in's are, and an account's daily limit answered as a full queue.

use std::time::Duration;

use futures::SinkExt;
use rusmpp::tlvs::MessageSubmissionRequestTlvValue;
use rusmpp::{Command, CommandId, CommandStatus};
use smsdesk_engine::access::{Caller, KeyLimits};
use smsdesk_engine::domain::MessageKind;
use smsdesk_engine::smpp_server::NewSmppAccount;

use crate::common::bound_engine;
use crate::smpp_server::{answer_to, bind, engine_with_account, message_id, next, submit};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_message_in_sar_parts_is_joined_into_one_and_every_part_answered_with_its_id() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, password) = engine_with_account(&dir, "lab", 100, vec![MessageKind::Transactional]).await;
    let (mut wire, _) = bind(&engine, "lab", &password).await;
    let texts = ["Your results are ready. ", "Please call the lab ", "before Friday."];
    // Sent out of order: the parts are put in their places.
    for (seq, place) in [(2u32, 2u8), (3, 1), (4, 3)] {
        let mut s = submit("33612345654", texts[usize::from(place) - 1].as_bytes(), 0);
        s.set_tlvs(vec![
            MessageSubmissionRequestTlvValue::SarMsgRefNum(0x1234),
            MessageSubmissionRequestTlvValue::SarTotalSegments(3),
            MessageSubmissionRequestTlvValue::SarSegmentSeqnum(place),
        ]);
        wire.send(Command::new(CommandStatus::EsmeRok, seq, s)).await.unwrap();
    }
    // Answered together, in the parts' order: any order here.
    let mut answered = Vec::new();
    while answered.len() < 3 {
        let got = next(&mut wire).await;
        if got.id() == CommandId::SubmitSmResp {
            answered.push((got.sequence_number(), message_id(&got)));
        }
    }
    answered.sort();
    let ids: Vec<String> = answered.iter().map(|(_, id)| id.clone()).collect();
    assert_eq!(answered.iter().map(|(s, _)| *s).collect::<Vec<_>>(), [2, 3, 4]);
    assert!(ids.iter().all(|i| *i == ids[0]), "{ids:?}");
    let d = engine
        .service()
        .message(&Caller::window(), ids[0].parse().unwrap())
        .await
        .unwrap();
    assert_eq!(d.message.body, texts.concat());
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_passwords_slow_the_binds_from_that_address_down_as_sign_ins_are_never_locking_out() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, password) = engine_with_account(&dir, "pbx", 10, vec![MessageKind::Transactional]).await;
    for _ in 0..5 {
        assert_eq!(bind(&engine, "pbx", "guess").await.1, CommandStatus::EsmeRinvpaswd);
    }
    // The sixth try comes too soon: refused before the password is even checked.
    assert_eq!(bind(&engine, "pbx", &password).await.1, CommandStatus::EsmeRbindfail);
    // A second later, the right password binds.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    assert_eq!(bind(&engine, "pbx", &password).await.1, CommandStatus::EsmeRok);
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_its_daily_limit_an_account_is_told_the_queue_is_full() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("smsdesk.toml"),
        "[smpp_server]\nenabled = true\nport = 0\n",
    )
    .unwrap();
    let engine = bound_engine(dir.path()).await;
    let created = engine
        .service()
        .create_smpp_account(
            &Caller::command_line(),
            NewSmppAccount {
                name: "crm".into(),
                limits: KeyLimits {
                    per_day: Some(2),
                    ..KeyLimits::default()
                },
                ..NewSmppAccount::default()
            },
        )
        .await
        .unwrap();
    let (mut wire, _) = bind(&engine, "crm", &created.password).await;
    let mut receipts = Vec::new();
    let mut statuses = Vec::new();
    for seq in 2..5 {
        wire.send(Command::new(
            CommandStatus::EsmeRok,
            seq,
            submit(&format!("336123456{}", 60 + seq), b"Hi", 0),
        ))
        .await
        .unwrap();
        statuses.push(answer_to(&mut wire, seq, &mut receipts).await.status());
    }
    assert_eq!(
        statuses,
        [
            CommandStatus::EsmeRok,
            CommandStatus::EsmeRok,
            CommandStatus::EsmeRmsgqful
        ]
    );
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_holds_a_thousand_parts_of_unfinished_messages_at_most() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, password) = engine_with_account(&dir, "pbx", 10_000, vec![MessageKind::Transactional]).await;
    let (mut wire, _) = bind(&engine, "pbx", &password).await;
    // First parts of 1,001 two-part messages, each with a reference of its own; no second part.
    for i in 0..1_001u32 {
        let mut bytes = vec![0x06, 0x08, 0x04, (i >> 8) as u8, i as u8, 0x02, 0x01];
        bytes.extend_from_slice(b"first half");
        let mut s = submit("33612345655", &bytes, 0);
        s.esm_class = rusmpp::values::EsmClass::from(0x40);
        wire.feed(Command::new(CommandStatus::EsmeRok, 2 + i, s)).await.unwrap();
    }
    SinkExt::<Command>::flush(&mut wire).await.unwrap();
    let refused = next(&mut wire).await;
    assert_eq!(
        (refused.sequence_number(), refused.status()),
        (1_002, CommandStatus::EsmeRmsgqful),
        "the thousand first parts wait, unanswered; the next is refused"
    );
    engine.shutdown().await;
}
