//! TLS to the SMSC, against the sandbox's TLS port over real TCP: what binds, what is refused and
//! in which words, and that nothing ever reaches the clear port.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::session::{pin_of, probe, LinkState, Probe, Session, SessionConfig, TlsSettings};
use crate::receipts::ingest::Ingestor;
use crate::receipts::policy::ReceiptPolicy;
use crate::sandbox::{Sandbox, SandboxCa, SandboxConfig, SandboxTls};
use crate::store::Store;

/// A sandbox whose TLS port shows `cert`.
async fn sandbox(cert: SandboxTls) -> Sandbox {
    Sandbox::start(SandboxConfig {
        tls: Some(cert),
        ..SandboxConfig::default()
    })
    .await
    .unwrap()
}

/// Binding to `sandbox`'s TLS port as `tls` says.
fn config(sandbox: &Sandbox, tls: TlsSettings) -> SessionConfig {
    SessionConfig {
        response_timeout: Duration::from_secs(3),
        tls: Some(tls),
        ..SessionConfig::new("provider", "127.0.0.1", sandbox.tls_addr().unwrap().port())
    }
}

fn ca_file(dir: &Path, ca: &SandboxCa) -> TlsSettings {
    let path = dir.join("ca.pem");
    std::fs::write(&path, ca.cert_pem()).unwrap();
    TlsSettings {
        ca_file: Some(path),
        ..TlsSettings::default()
    }
}

/// The words of a TLS refusal; anything else fails the test.
fn refusal(found: Probe) -> String {
    match found {
        Probe::Tls(words) => words,
        other => panic!("expected a TLS refusal, found {other:?}"),
    }
}

/// What the sandbox saw: no connection on its clear port, and no submit.
fn nothing_in_clear(sandbox: &Sandbox) {
    assert_eq!(sandbox.connections().0, 0, "nothing went to the clear port");
    assert_eq!(sandbox.totals().0, 0, "nothing was submitted");
}

#[tokio::test]
async fn a_certificate_signed_by_the_trusted_authority_for_the_right_name_binds() {
    let dir = tempfile::tempdir().unwrap();
    let ca = SandboxCa::new().unwrap();
    let s = sandbox(SandboxTls::issued(&ca, &["smpp.example.net"], -1, 30).unwrap()).await;
    let tls = TlsSettings {
        server_name: Some("smpp.example.net".into()),
        ..ca_file(dir.path(), &ca)
    };
    assert_eq!(probe(&config(&s, tls)).await, Probe::Bound);
    assert_eq!(s.connections(), (0, 1), "one connection, on the TLS port");
    assert_eq!(s.binds(), 1, "the bind went through TLS");
}

#[tokio::test]
async fn a_certificate_for_another_name_is_refused_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let ca = SandboxCa::new().unwrap();
    let s = sandbox(SandboxTls::issued(&ca, &["smpp.example.net"], -1, 30).unwrap()).await;
    let words = refusal(probe(&config(&s, ca_file(dir.path(), &ca))).await);
    assert!(
        words.contains("the server's certificate is for smpp.example.net, not 127.0.0.1"),
        "{words}"
    );
    assert_eq!(s.binds(), 0, "no bind, so no password, went out");
    nothing_in_clear(&s);
}

#[tokio::test]
async fn an_expired_certificate_is_refused_with_its_date() {
    let dir = tempfile::tempdir().unwrap();
    let ca = SandboxCa::new().unwrap();
    let s = sandbox(SandboxTls::issued(&ca, &["127.0.0.1"], -30, -2).unwrap()).await;
    let words = refusal(probe(&config(&s, ca_file(dir.path(), &ca))).await);
    assert!(words.contains("the server's certificate expired on 20"), "{words}");
    assert_eq!(s.binds(), 0);
    nothing_in_clear(&s);
}

#[tokio::test]
async fn a_certificate_no_trusted_authority_signed_is_refused_with_what_to_set() {
    let dir = tempfile::tempdir().unwrap();
    let (ours, theirs) = (SandboxCa::new().unwrap(), SandboxCa::new().unwrap());
    let s = sandbox(SandboxTls::issued(&theirs, &["127.0.0.1"], -1, 30).unwrap()).await;
    let words = refusal(probe(&config(&s, ca_file(dir.path(), &ours))).await);
    assert!(
        words.contains("signed by an authority this connection does not trust"),
        "{words}"
    );
    assert!(words.contains("tls_pin_sha256"), "{words}");
    nothing_in_clear(&s);
}

#[tokio::test]
async fn a_self_signed_certificate_binds_with_its_pin_and_is_refused_with_another() {
    let cert = SandboxTls::self_signed(&["smsc.internal"]).unwrap();
    let pin = pin_of(&cert.leaf_der().unwrap());
    let s = sandbox(cert).await;
    // The pin is the whole trust: no authority, and the name is not what was dialled.
    let pinned = TlsSettings {
        pin_sha256: Some(pin),
        ..TlsSettings::default()
    };
    assert_eq!(probe(&config(&s, pinned)).await, Probe::Bound);

    let mut wrong = pin;
    wrong[0] ^= 0xff;
    let words = refusal(
        probe(&config(
            &s,
            TlsSettings {
                pin_sha256: Some(wrong),
                ..TlsSettings::default()
            },
        ))
        .await,
    );
    assert!(words.contains("not the pinned one"), "{words}");
    assert!(
        words.contains(&hex::encode(pin)),
        "names the certificate's own SHA-256: {words}"
    );
    assert_eq!(s.binds(), 1, "only the pinned connection bound");
    nothing_in_clear(&s);
}

#[tokio::test]
async fn the_clear_port_of_a_tls_server_is_not_mistaken_for_tls() {
    // TLS asked of a clear SMPP port: the handshake fails, and nothing else is written.
    let s = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let tls = TlsSettings {
        pin_sha256: Some([0; 32]),
        ..TlsSettings::default()
    };
    let found = probe(&SessionConfig {
        response_timeout: Duration::from_secs(2),
        tls: Some(tls),
        ..SessionConfig::new("provider", "127.0.0.1", s.addr().port())
    })
    .await;
    assert!(matches!(found, Probe::Tls(_) | Probe::TimedOut(_)), "{found:?}");
    assert_eq!(s.binds(), 0, "no bind was read in clear");
}

#[tokio::test]
async fn a_running_session_says_why_it_cannot_bind_and_keeps_trying_only_over_tls() {
    let dir = tempfile::tempdir().unwrap();
    let ca = SandboxCa::new().unwrap();
    let s = sandbox(SandboxTls::issued(&ca, &["smpp.example.net"], -1, 30).unwrap()).await;
    let store = Arc::new(Store::open(&dir.path().join("smsdesk.db")).unwrap());
    let ingestor = Ingestor::new(store.writer().clone(), ReceiptPolicy::default());
    let cfg = SessionConfig {
        reconnect_min: Duration::from_millis(20),
        reconnect_max: Duration::from_millis(50),
        ..config(&s, ca_file(dir.path(), &ca))
    };
    let session = Session::start(cfg, Arc::new(ingestor));
    let mut state = session.handle().state();
    let down = tokio::time::timeout(
        Duration::from_secs(5),
        state.wait_for(|s| matches!(s, LinkState::Down { .. })),
    )
    .await
    .unwrap()
    .unwrap()
    .clone();
    let LinkState::Down { error, .. } = down else {
        unreachable!()
    };
    assert!(
        error.contains("is for smpp.example.net, not 127.0.0.1"),
        "the dashboard's words: {error}"
    );
    // Several tries later, still nothing in clear.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(s.connections().1 >= 2, "it tried again, over TLS");
    nothing_in_clear(&s);
    session.stop().await;
}
