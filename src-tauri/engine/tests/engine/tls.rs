//! A connection with `tls = true`, as `smsdesk serve` runs it, against an SMSC (the sandbox) that
//! serves TLS with a certificate from its own authority: a thousand messages out and their
//! receipts back, all over TLS, none in clear.

use std::time::{Duration, Instant};

use smsdesk_engine::domain::{IntakeChannel, MessageKind};
use smsdesk_engine::messages::{self, NewMessage};
use smsdesk_engine::sandbox::{Sandbox, SandboxCa, SandboxConfig, SandboxTls};

use crate::common::bound_engine;

const MESSAGES: i64 = 1_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_messages_go_out_over_tls_and_their_receipts_come_back_with_nothing_in_clear() {
    let dir = tempfile::tempdir().unwrap();
    let ca = SandboxCa::new().unwrap();
    let smsc = Sandbox::start(SandboxConfig {
        receipt_delay: Duration::from_millis(20),
        tls: Some(SandboxTls::issued(&ca, &["smpp.example.net"], -1, 30).unwrap()),
        ..SandboxConfig::default()
    })
    .await
    .unwrap();
    let ca_file = dir.path().join("provider-ca.pem");
    std::fs::write(&ca_file, ca.cert_pem()).unwrap();
    std::fs::write(
        dir.path().join("smsdesk.toml"),
        format!(
            "[smpp]\nsandbox = false\nhost = \"127.0.0.1\"\nport = {}\nwindow = 50\ntps = 5000\n\
             tls = true\ntls_ca_file = \"{}\"\ntls_server_name = \"smpp.example.net\"\n",
            smsc.tls_addr().unwrap().port(),
            ca_file.display()
        ),
    )
    .unwrap();
    let engine = bound_engine(dir.path()).await;

    let connection = engine.connection();
    engine
        .store()
        .writer()
        .write(move |tx| {
            for i in 0..MESSAGES {
                // Last two digits from 50: the sandbox's plain "accepted, then delivered".
                let to = format!("+336{:06}{:02}", i, 50 + i % 50);
                let m = NewMessage::text(
                    IntakeChannel::Cli,
                    &to,
                    "Your order has shipped",
                    MessageKind::Bulk,
                    &connection,
                );
                messages::insert(tx, &m)?;
            }
            Ok::<_, smsdesk_store::StoreError>(())
        })
        .await
        .unwrap();

    let db = rusqlite::Connection::open(&engine.info().database_path).unwrap();
    let delivered = || -> i64 {
        db.query_row("SELECT count(*) FROM projection WHERE state = 'delivered'", [], |r| {
            r.get(0)
        })
        .unwrap()
    };
    let started = Instant::now();
    while delivered() < MESSAGES && started.elapsed() < Duration::from_secs(60) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(delivered(), MESSAGES, "every receipt came back and was applied");
    let (submits, accepted, twice) = smsc.totals();
    assert_eq!(
        (submits, accepted, twice),
        (MESSAGES as u64, MESSAGES as u64, 0),
        "each sent once"
    );
    let (clear, tls) = smsc.connections();
    assert_eq!(clear, 0, "nothing reached the clear port");
    assert!(tls >= 1);
    engine.shutdown().await;
    smsc.stop();
}
