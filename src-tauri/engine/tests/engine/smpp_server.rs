//! smsdesk's SMPP server as `smsdesk serve` runs it, driven over TCP by a bare SMPP client: binds
//! (and refused binds), submits that become messages, long and UCS-2 texts, the rate, receipts in
//! SMPP's format that wait for the client, and query_sm and cancel_sm of its own messages only.

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use rusmpp::pdus::{BindTransceiver, CancelSm, QuerySm, SubmitSm};
use rusmpp::tokio_codec::CommandCodec;
use rusmpp::types::{COctetString, OctetString};
use rusmpp::values::{DataCoding, EsmClass, RegisteredDelivery, ServiceType, Ton};
use rusmpp::{Command, CommandId, CommandStatus, Pdu};
use smsdesk_engine::access::Caller;
use smsdesk_engine::domain::MessageKind;
use smsdesk_engine::smpp_server::NewSmppAccount;
use smsdesk_engine::Engine;
use tokio::net::TcpStream;
use tokio_util::codec::Framed;

use crate::common::bound_engine;

pub(crate) type Wire = Framed<TcpStream, CommandCodec>;

pub(crate) fn c<const MIN: usize, const MAX: usize>(s: &str) -> COctetString<MIN, MAX> {
    smsdesk_engine::smpp::cstr(s)
}

/// An engine with the SMPP server on a free port, and an account `name` (its password).
pub(crate) async fn engine_with_account(
    dir: &tempfile::TempDir,
    name: &str,
    tps: u32,
    kinds: Vec<MessageKind>,
) -> (Engine, String) {
    std::fs::write(
        dir.path().join("smsdesk.toml"),
        "[smpp_server]\nenabled = true\nport = 0\n\n[intake]\ndefault_region = \"FR\"\n",
    )
    .unwrap();
    let engine = bound_engine(dir.path()).await;
    let created = engine
        .service()
        .create_smpp_account(
            &Caller::command_line(),
            NewSmppAccount {
                name: name.into(),
                tps: Some(tps),
                window: Some(20),
                kinds: Some(kinds),
                ..NewSmppAccount::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(created.password.len(), 8);
    (engine, created.password)
}

pub(crate) async fn bind(engine: &Engine, name: &str, password: &str) -> (Wire, CommandStatus) {
    let stream = TcpStream::connect(engine.smpp_server_addr().unwrap()).await.unwrap();
    let mut wire = Framed::new(stream, CommandCodec::new());
    let pdu = BindTransceiver::builder()
        .system_id(c(name))
        .password(c(password))
        .build();
    wire.send(Command::new(CommandStatus::EsmeRok, 1, pdu)).await.unwrap();
    let answer = next(&mut wire).await;
    assert_eq!(answer.id(), CommandId::BindTransceiverResp);
    (wire, answer.status())
}

pub(crate) async fn next(wire: &mut Wire) -> Command {
    tokio::time::timeout(Duration::from_secs(10), wire.next())
        .await
        .expect("an answer in time")
        .expect("the connection is open")
        .expect("a readable PDU")
}

pub(crate) fn submit(to: &str, text: &[u8], coding: u8) -> SubmitSm {
    SubmitSm::builder()
        .source_addr(c("Clinic"))
        .dest_addr_ton(Ton::International)
        .destination_addr(c(to))
        .registered_delivery(RegisteredDelivery::from(1))
        .data_coding(DataCoding::from(coding))
        .short_message(OctetString::from_vec(text.to_vec()).unwrap())
        .build()
}

/// Reads until the answer to `seq` (receipts that come meanwhile are kept in `receipts`).
pub(crate) async fn answer_to(wire: &mut Wire, seq: u32, receipts: &mut Vec<Command>) -> Command {
    loop {
        let got = next(wire).await;
        if got.id() == CommandId::DeliverSm {
            receipts.push(got);
        } else if got.sequence_number() == seq {
            return got;
        }
    }
}

pub(crate) fn message_id(resp: &Command) -> String {
    match resp.pdu() {
        Some(Pdu::SubmitSmResp(r)) => r.message_id().to_string(),
        other => panic!("not a submit_sm_resp: {other:?}"),
    }
}

pub(crate) fn receipt_text(d: &Command) -> String {
    match d.pdu() {
        Some(Pdu::DeliverSm(d)) => String::from_utf8_lossy(d.short_message().as_ref()).into_owned(),
        other => panic!("not a deliver_sm: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_password_is_refused_and_a_bound_client_hands_in_messages_it_gets_receipts_for() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, password) = engine_with_account(&dir, "pbx", 100, vec![MessageKind::Transactional]).await;
    let (_, refused) = bind(&engine, "pbx", "wrong").await;
    assert_eq!(refused, CommandStatus::EsmeRinvpaswd);
    let (_, unknown) = bind(&engine, "nobody", &password).await;
    assert_eq!(
        unknown,
        CommandStatus::EsmeRinvpaswd,
        "an unknown account is not told apart"
    );

    let (mut wire, ok) = bind(&engine, "pbx", &password).await;
    assert_eq!(ok, CommandStatus::EsmeRok);
    let status = engine.service().smpp_server().await.unwrap();
    assert_eq!(status.sessions.len(), 1);
    assert_eq!(status.sessions[0].account, "pbx");

    // GSM text, UCS-2 text, and a long message in three UDH parts: three messages.
    let mut receipts = Vec::new();
    wire.send(Command::new(
        CommandStatus::EsmeRok,
        2,
        submit("33612345650", b"Your appointment is at 10", 0),
    ))
    .await
    .unwrap();
    let plain = answer_to(&mut wire, 2, &mut receipts).await;
    assert_eq!(plain.status(), CommandStatus::EsmeRok);
    let ucs2: Vec<u8> = "Привет, до завтра".encode_utf16().flat_map(u16::to_be_bytes).collect();
    wire.send(Command::new(
        CommandStatus::EsmeRok,
        3,
        submit("+33612345651", &ucs2, 8),
    ))
    .await
    .unwrap();
    let cyrillic = answer_to(&mut wire, 3, &mut receipts).await;
    assert_eq!(cyrillic.status(), CommandStatus::EsmeRok);
    let long_text = "x".repeat(150);
    for (i, part) in long_text.as_bytes().chunks(60).enumerate() {
        let mut bytes = vec![0x05, 0x00, 0x03, 0x42, 0x03, i as u8 + 1];
        bytes.extend_from_slice(part);
        let mut s = submit("33612345652", &bytes, 0);
        s.esm_class = EsmClass::from(0x40);
        wire.send(Command::new(CommandStatus::EsmeRok, 10 + i as u32, s))
            .await
            .unwrap();
    }
    let mut part_ids = Vec::new();
    for seq in 10..13 {
        part_ids.push(message_id(&answer_to(&mut wire, seq, &mut receipts).await));
    }
    assert!(
        part_ids.iter().all(|id| *id == part_ids[0]),
        "every part is answered with one id: {part_ids:?}"
    );

    let ids = [message_id(&plain), message_id(&cyrillic), part_ids[0].clone()];
    let texts: Vec<String> = futures::future::join_all(ids.iter().map(|id| async {
        let d = engine
            .service()
            .message(&Caller::window(), id.parse().unwrap())
            .await
            .unwrap();
        d.message.body
    }))
    .await;
    assert_eq!(
        texts,
        ["Your appointment is at 10", "Привет, до завтра", long_text.as_str()]
    );

    // The sandbox delivers: each message's receipt, in SMPP's format, with its id.
    while receipts.len() < 3 {
        receipts.push(next(&mut wire).await);
    }
    let mut seen = Vec::new();
    for r in &receipts {
        assert_eq!(r.id(), CommandId::DeliverSm);
        let text = receipt_text(r);
        assert!(text.contains(" stat:DELIVRD err:000 "), "{text}");
        let id = text.strip_prefix("id:").unwrap().split(' ').next().unwrap().to_owned();
        seen.push(id);
        wire.send(Command::new(
            CommandStatus::EsmeRok,
            r.sequence_number(),
            Pdu::DeliverSmResp(Default::default()),
        ))
        .await
        .unwrap();
    }
    seen.sort();
    let mut expected = ids.to_vec();
    expected.sort();
    assert_eq!(
        seen, expected,
        "one receipt per message, named by the id its submit was answered with"
    );
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beyond_its_rate_a_client_is_throttled_and_a_kind_it_may_not_send_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, password) = engine_with_account(&dir, "lab", 5, vec![MessageKind::Transactional]).await;
    let (mut wire, _) = bind(&engine, "lab", &password).await;
    for seq in 2..22 {
        wire.send(Command::new(
            CommandStatus::EsmeRok,
            seq,
            submit(&format!("336123456{seq:02}"), b"Results ready", 0),
        ))
        .await
        .unwrap();
    }
    // Refusals answer at once, acceptances once committed: in any order.
    let mut statuses = Vec::new();
    let mut receipts = Vec::new();
    while statuses.len() < 20 {
        let got = next(&mut wire).await;
        match got.id() {
            CommandId::SubmitSmResp => statuses.push(got.status()),
            _ => receipts.push(got),
        }
    }
    let ok = statuses.iter().filter(|s| **s == CommandStatus::EsmeRok).count();
    let throttled = statuses.iter().filter(|s| **s == CommandStatus::EsmeRthrottled).count();
    assert_eq!(ok + throttled, 20, "{statuses:?}");
    assert!(
        (5..=7).contains(&ok),
        "a burst gets its second's worth (5), then throttled: {statuses:?}"
    );

    // A second later the rate has room again: what refuses this one is its kind.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let mut otp = submit("33612345660", b"Code 123456", 0);
    otp.service_type = ServiceType::new(c("OTP"));
    wire.send(Command::new(CommandStatus::EsmeRok, 30, otp)).await.unwrap();
    assert_eq!(
        answer_to(&mut wire, 30, &mut receipts).await.status(),
        CommandStatus::EsmeRinvsertyp
    );
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn receipts_wait_for_the_client_to_bind_again_and_query_and_cancel_reach_its_own_messages_only() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, password) = engine_with_account(&dir, "crm", 100, vec![MessageKind::Transactional]).await;
    let other = engine
        .service()
        .create_smpp_account(
            &Caller::command_line(),
            NewSmppAccount {
                name: "other".into(),
                ..NewSmppAccount::default()
            },
        )
        .await
        .unwrap();
    let (mut wire, _) = bind(&engine, "crm", &password).await;
    let mut receipts = Vec::new();
    wire.send(Command::new(
        CommandStatus::EsmeRok,
        2,
        submit("33612345670", b"Delivered later", 0),
    ))
    .await
    .unwrap();
    let sent = message_id(&answer_to(&mut wire, 2, &mut receipts).await);
    // Scheduled for tomorrow: still in the queue, so it can be cancelled.
    let mut later = submit("33612345671", b"Tomorrow", 0);
    later.schedule_delivery_time =
        rusmpp::types::EmptyOrFullCOctetString::from_vec(b"000001000000000R\0".to_vec()).unwrap();
    wire.send(Command::new(CommandStatus::EsmeRok, 3, later)).await.unwrap();
    let waiting = message_id(&answer_to(&mut wire, 3, &mut receipts).await);
    // Gone before the receipt came: it waits.
    drop(wire);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(engine.service().smpp_server().await.unwrap().waiting >= 1);

    // Another account asks about crm's messages: nothing.
    let (mut stranger, _) = bind(&engine, "other", &other.password).await;
    let q = QuerySm::builder().message_id(c(&sent)).source_addr(c("Clinic")).build();
    stranger.send(Command::new(CommandStatus::EsmeRok, 2, q)).await.unwrap();
    assert_eq!(next(&mut stranger).await.status(), CommandStatus::EsmeRqueryfail);
    let cancel = CancelSm::builder().message_id(c(&waiting)).build();
    stranger
        .send(Command::new(CommandStatus::EsmeRok, 3, cancel))
        .await
        .unwrap();
    assert_eq!(next(&mut stranger).await.status(), CommandStatus::EsmeRcancelfail);

    // crm binds again: the receipt owed comes, and its own queries and cancels work.
    let (mut wire, _) = bind(&engine, "crm", &password).await;
    let owed = next(&mut wire).await;
    assert!(
        receipt_text(&owed).starts_with(&format!("id:{sent} ")),
        "{}",
        receipt_text(&owed)
    );
    wire.send(Command::new(
        CommandStatus::EsmeRok,
        owed.sequence_number(),
        Pdu::DeliverSmResp(Default::default()),
    ))
    .await
    .unwrap();
    let q = QuerySm::builder().message_id(c(&sent)).source_addr(c("Clinic")).build();
    wire.send(Command::new(CommandStatus::EsmeRok, 4, q)).await.unwrap();
    let answer = answer_to(&mut wire, 4, &mut receipts).await;
    match answer.pdu() {
        Some(Pdu::QuerySmResp(r)) => assert_eq!(r.message_state, rusmpp::values::MessageState::Delivered),
        other => panic!("{other:?}"),
    }
    let cancel = CancelSm::builder().message_id(c(&waiting)).build();
    wire.send(Command::new(CommandStatus::EsmeRok, 5, cancel))
        .await
        .unwrap();
    assert_eq!(
        answer_to(&mut wire, 5, &mut receipts).await.status(),
        CommandStatus::EsmeRok
    );
    let d = engine
        .service()
        .message(&Caller::window(), waiting.parse().unwrap())
        .await
        .unwrap();
    assert_eq!(d.queue.status, smsdesk_engine::domain::QueueStatus::Cancelled);
    // Its cancellation is a receipt too (DELETED), since it asked for one.
    let deleted = loop {
        let r = next(&mut wire).await;
        if r.id() == CommandId::DeliverSm {
            break r;
        }
    };
    assert!(
        receipt_text(&deleted).contains("stat:DELETED"),
        "{}",
        receipt_text(&deleted)
    );
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_submit_to_an_opted_out_number_is_refused_as_an_invalid_destination_and_audited() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, password) = engine_with_account(&dir, "pbx", 100, vec![MessageKind::Transactional]).await;
    engine
        .service()
        .add_opt_out(
            &Caller::window(),
            smsdesk_engine::service::NewOptOut {
                phone: "+33612345680".into(),
                note: Some("asked by phone".into()),
                kinds: None,
            },
        )
        .await
        .unwrap();
    let (mut wire, _) = bind(&engine, "pbx", &password).await;
    wire.send(Command::new(
        CommandStatus::EsmeRok,
        2,
        submit("33612345680", b"Hello", 0),
    ))
    .await
    .unwrap();
    let mut receipts = Vec::new();
    assert_eq!(
        answer_to(&mut wire, 2, &mut receipts).await.status(),
        CommandStatus::EsmeRinvdstadr
    );
    let db = rusqlite::Connection::open(&engine.info().database_path).unwrap();
    let (note, details): (Option<String>, String) = db
        .query_row(
            "SELECT note, details_json FROM audit WHERE action = 'smpp.submit_refused'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(note, None, "no English sentence: the audit log words the facts");
    let details: serde_json::Value = serde_json::from_str(&details).unwrap();
    assert_eq!(details["reason"], "opted_out");
    assert_eq!(details["number_ends"], "5680", "the number's last 4 digits, no more");
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_tls_the_server_binds_clients_over_tls_only() {
    use smsdesk_engine::sandbox::{SandboxCa, SandboxTls};
    use smsdesk_engine::smpp::session::{probe, Probe, SessionConfig, TlsSettings};
    let dir = tempfile::tempdir().unwrap();
    let ca = SandboxCa::new().unwrap();
    let cert = SandboxTls::issued(&ca, &["127.0.0.1"], -1, 30).unwrap();
    let (cert_file, key_file, ca_file) = (
        dir.path().join("server.pem"),
        dir.path().join("server.key"),
        dir.path().join("ca.pem"),
    );
    std::fs::write(&cert_file, &cert.cert_chain_pem).unwrap();
    std::fs::write(&key_file, &cert.key_pem).unwrap();
    std::fs::write(&ca_file, ca.cert_pem()).unwrap();
    std::fs::write(
        dir.path().join("smsdesk.toml"),
        format!(
            "[smpp_server]\nenabled = true\nport = 0\ntls = true\ntls_cert_file = \"{}\"\ntls_key_file = \"{}\"\n",
            cert_file.display(),
            key_file.display()
        ),
    )
    .unwrap();
    let engine = bound_engine(dir.path()).await;
    let created = engine
        .service()
        .create_smpp_account(
            &Caller::command_line(),
            NewSmppAccount {
                name: "pbx".into(),
                ..NewSmppAccount::default()
            },
        )
        .await
        .unwrap();
    let port = engine.smpp_server_addr().unwrap().port();
    let client = |tls: Option<TlsSettings>| SessionConfig {
        system_id: "pbx".into(),
        password: created.password.clone(),
        response_timeout: Duration::from_secs(3),
        tls,
        ..SessionConfig::new("pbx", "127.0.0.1", port)
    };
    let over_tls = probe(&client(Some(TlsSettings {
        ca_file: Some(ca_file.clone()),
        ..TlsSettings::default()
    })))
    .await;
    assert_eq!(over_tls, Probe::Bound);
    let status = engine.service().smpp_server().await.unwrap();
    assert!(status.tls && status.listening.is_some(), "{status:?}");
    // In clear, the bind (and its password) is never read as SMPP.
    let in_clear = probe(&client(None)).await;
    assert_ne!(in_clear, Probe::Bound, "{in_clear:?}");
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_to_a_message_a_client_sent_goes_to_that_client() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, password) = engine_with_account(&dir, "pbx", 100, vec![MessageKind::Transactional]).await;
    let (mut wire, _) = bind(&engine, "pbx", &password).await;
    let mut receipts = Vec::new();
    wire.send(Command::new(
        CommandStatus::EsmeRok,
        2,
        submit("33612345653", b"See you tomorrow", 0),
    ))
    .await
    .unwrap();
    answer_to(&mut wire, 2, &mut receipts).await;
    // The receipt first (answered), then the handset's reply.
    while receipts.is_empty() {
        receipts.push(next(&mut wire).await);
    }
    let r = &receipts[0];
    wire.send(Command::new(
        CommandStatus::EsmeRok,
        r.sequence_number(),
        Pdu::DeliverSmResp(Default::default()),
    ))
    .await
    .unwrap();
    engine
        .service()
        .sandbox_reply(
            &Caller::window(),
            smsdesk_engine::service::SandboxReply {
                from: "+33612345653".into(),
                text: "Merci, à demain".into(),
            },
        )
        .unwrap();
    let reply = loop {
        let got = next(&mut wire).await;
        if got.id() == CommandId::DeliverSm {
            break got;
        }
    };
    let Some(Pdu::DeliverSm(d)) = reply.pdu() else {
        unreachable!()
    };
    assert_eq!(u8::from(d.esm_class), 0, "a message, not a receipt");
    assert_eq!(d.source_addr.to_string(), "33612345653");
    assert_eq!(u8::from(d.data_coding), 8);
    let units: Vec<u16> = d
        .short_message()
        .as_ref()
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(String::from_utf16(&units).unwrap(), "Merci, à demain");
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_account_is_unbound_at_its_next_request_and_binds_no_more() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, password) = engine_with_account(&dir, "crm", 100, vec![MessageKind::Transactional]).await;
    let (mut wire, _) = bind(&engine, "crm", &password).await;
    let id = engine.service().smpp_accounts().await.unwrap()[0].id;
    engine.service().revoke_key(&Caller::command_line(), id).await.unwrap();
    wire.send(Command::new(
        CommandStatus::EsmeRok,
        2,
        submit("33612345690", b"Too late", 0),
    ))
    .await
    .unwrap();
    let refused = next(&mut wire).await;
    assert_eq!(
        (refused.sequence_number(), refused.status()),
        (2, CommandStatus::EsmeRinvbndsts)
    );
    assert_eq!(next(&mut wire).await.id(), CommandId::Unbind);
    let (_, again) = bind(&engine, "crm", &password).await;
    assert_eq!(again, CommandStatus::EsmeRinvpaswd);
    engine.shutdown().await;
}
