//! SMS pumping, end to end: seven days of ordinary one-time codes to France and Britain (written
//! with the store's clock held at each past hour), then bots asking for 500 codes to one British
//! number range within minutes. The per-prefix limit refuses most, the unusual-volume hold
//! catches the codes that slipped under it, and the SMSC (a sandbox over TCP, not the engine's
//! own) receives no more than the allowed number. The exceptions and the audit name the key.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::bound_engine;
use smsdesk_core::domain::{IntakeChannel, MessageKind};
use smsdesk_core::message::NewMessage;
use smsdesk_core::time::Clock;
use smsdesk_engine::access::{Caller, KeyLimits, Scope};
use smsdesk_engine::apikeys::NewApiKey;
use smsdesk_engine::intake::SubmitMessage;
use smsdesk_engine::service::ServiceError;
use smsdesk_sandbox::{Sandbox, SandboxConfig};
use smsdesk_store::Store;

const HOUR_MS: i64 = 3_600_000;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A week of codes before now: 3 an hour to France, 2 an hour to Britain (each valid 5 minutes,
/// so none is left to send).
fn seed_a_week(db: &std::path::Path, now: i64) {
    let at = Arc::new(AtomicI64::new(0));
    let clock = {
        let at = at.clone();
        Clock::from_fn(move || at.load(Ordering::Relaxed))
    };
    let store = Store::open_with_clock(db, clock).unwrap();
    for hour in (1..=168).rev() {
        at.store(now - hour * HOUR_MS, Ordering::Relaxed);
        let t = now - hour * HOUR_MS;
        store
            .writer()
            .write_blocking(move |tx| {
                for (i, (to, country)) in [
                    ("+3361234", "FR"),
                    ("+3361235", "FR"),
                    ("+3361236", "FR"),
                    ("+4477001", "GB"),
                    ("+4477002", "GB"),
                ]
                .into_iter()
                .enumerate()
                {
                    let mut m = NewMessage::text(
                        IntakeChannel::Api,
                        &format!("{to}{:04}", (hour as usize * 5 + i) % 10_000),
                        "Code ******",
                        MessageKind::Otp,
                        "smpp",
                    );
                    m.country = Some(country.into());
                    m.valid_until = Some(t + 300_000);
                    smsdesk_store::tables::message::insert(tx, &m)?;
                }
                Ok::<_, smsdesk_store::StoreError>(())
            })
            .unwrap();
    }
    store.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_asking_500_codes_to_one_foreign_range_get_a_few_through_the_rest_refused_or_held() {
    let port = free_port();
    let smsc = Sandbox::start(SandboxConfig {
        port,
        ..SandboxConfig::default()
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("smsdesk.toml"),
        format!(
            "[smpp]\nsandbox = false\nhost = \"127.0.0.1\"\nport = {port}\n\n[intake]\ndefault_region = \"FR\"\n\n\
             [guardrails]\notp_countries = \"FR, GB\"\n"
        ),
    )
    .unwrap();
    let now = smsdesk_core::time::Clock::system().now_ms();
    let db = dir.path().join("smsdesk.db");
    tokio::task::spawn_blocking(move || seed_a_week(&db, now))
        .await
        .unwrap();
    let engine = bound_engine(dir.path()).await;
    let s = engine.service();
    let created = s
        .create_key(
            &Caller::command_line(),
            NewApiKey {
                name: "website".into(),
                scopes: Some(vec![Scope::Send]),
                ..NewApiKey::default()
            },
        )
        .await
        .unwrap();
    let website = Caller::Key {
        id: created.info.id,
        name: "website".into(),
        scopes: vec![Scope::Send],
        limits: KeyLimits::default(),
    };

    // The bots: 500 codes to 500 numbers of one premium range, each number asked once (the
    // per-number limit never holds), as fast as the website takes them.
    let (mut accepted, mut held_ids, mut refused, mut answered_held) = (Vec::new(), 0, 0, 0);
    for i in 0..500 {
        let req = SubmitMessage {
            // One range (+44 7400101), last two digits from 50: the sandbox's plain delivery.
            destination: format!("+447400101{}{:02}", i / 50, 50 + i % 50),
            text: format!("Your code: {:06}", 100_000 + i),
            kind: Some(MessageKind::Otp),
            ..SubmitMessage::default()
        };
        match s.submit(&website, IntakeChannel::Api, req, None).await {
            Ok(a) => {
                if a.value.status.as_str() == "held" {
                    answered_held += 1;
                }
                accepted.push(a.value.id)
            }
            Err(ServiceError::Refused(r)) => {
                refused += 1;
                assert_eq!(r.errors[0].code.as_str(), "velocity_limit", "{r:?}");
                assert_eq!(r.errors[0].params["limit"], "prefix");
                assert!(r.retry_after_secs.is_some_and(|s| s <= 3_600));
            }
            Err(e) => panic!("bot code {i}: {e}"),
        }
    }
    for id in &accepted {
        let d = s.message(&Caller::command_line(), *id).await.unwrap();
        if d.queue.status.as_str() == "held" {
            held_ids += 1;
        }
    }
    // The prefix allows 30 an hour: the rest were refused, nothing of them stored.
    assert_eq!(accepted.len(), 30, "{refused} refused");
    assert_eq!(refused, 470);
    // Britain's usual 2 an hour times 5 is 10, and at least 20 make a surge: from the 20th
    // code of the hour on, each is held for a person.
    assert_eq!(held_ids, 11, "codes 20 to 30 are held");
    assert_eq!(answered_held, held_ids, "the answer says which were held");
    let sendable = accepted.len() - held_ids;

    // The SMSC, over TCP, receives the codes that were not held, and no more.
    let end = Instant::now() + Duration::from_secs(20);
    while smsc.totals().0 < sendable as u64 {
        assert!(
            Instant::now() < end,
            "the {sendable} codes reach the SMSC: {:?}",
            smsc.totals()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        smsc.totals().0,
        sendable as u64,
        "held and refused codes never reach the SMSC"
    );

    // Each hold is an open exception, audited with the key that asked; each refusal is counted
    // and audited with it too; the Guardrails overview says so.
    let overview = s.guardrails_overview().await.unwrap();
    assert_eq!(overview.held, held_ids as i64);
    let count = |reason: &str| {
        overview
            .counts
            .iter()
            .filter(|c| c.reason.as_str() == reason && c.label == "website" && c.country == "GB")
            .map(|c| c.n)
            .sum::<i64>()
    };
    assert_eq!(
        (count("velocity_limit"), count("unusual_volume")),
        (470, held_ids as i64)
    );
    let db = rusqlite::Connection::open(dir.path().join("smsdesk.db")).unwrap();
    let audited = |action: &str| -> i64 {
        db.query_row(
            "SELECT count(*) FROM audit WHERE action = ?1 AND details_json LIKE '%\"key\":\"website\"%'",
            [action],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert_eq!(audited("guardrail.refused"), 470);
    assert_eq!(audited("message.hold_unusual_volume"), held_ids as i64);
    let summary: String = db
        .query_row(
            "SELECT summary FROM exception WHERE kind = 'unusual_volume' ORDER BY id LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        summary.contains("20 one-time codes to GB") && summary.contains("2.0 an hour"),
        "{summary}"
    );
    // Ordinary codes to France still go.
    let req = SubmitMessage {
        destination: "+33612345678".into(),
        text: "Votre code : 482913".into(),
        kind: Some(MessageKind::Otp),
        ..SubmitMessage::default()
    };
    let ok = s.submit(&website, IntakeChannel::Api, req, None).await.unwrap();
    let d = s.message(&Caller::command_line(), ok.value.id).await.unwrap();
    assert_ne!(d.queue.status.as_str(), "held");
    engine.shutdown().await;
}
