//! A connection with several binds, against the sandbox SMSC over real TCP: they share the
//! connection's rate, each carries its share, and a transmitter + receiver pair takes its
//! receipts on the receiver.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusmpp::pdus::SubmitSm;
use rusmpp::types::OctetString;
use rusmpp::values::{EsmClass, RegisteredDelivery};

use super::cstr;
use super::session::{BindMode, BindRole, InboundHandler, LinkState, Session, SessionConfig, SessionHandle};
use crate::receipts::ingest::SmppReceived;
use crate::sandbox::{Sandbox, SandboxConfig};

/// Keeps every report it is handed, and says each is stored.
#[derive(Default)]
struct Heard(Mutex<Vec<SmppReceived>>);

impl InboundHandler for Heard {
    fn deliver(&self, reports: Vec<SmppReceived>) -> Pin<Box<dyn Future<Output = Vec<bool>> + Send + '_>> {
        let n = reports.len();
        self.0.lock().unwrap().extend(reports);
        Box::pin(async move { vec![true; n] })
    }
}

impl Heard {
    fn sessions(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .map(|r| r.session_id.clone().unwrap_or_default())
            .collect()
    }
}

async fn sandbox() -> Sandbox {
    Sandbox::start(SandboxConfig {
        receipt_delay: Duration::from_millis(20),
        ..Default::default()
    })
    .await
    .unwrap()
}

fn config(sandbox: &Sandbox, mode: BindMode, binds: usize, window: usize, tps: f64) -> SessionConfig {
    SessionConfig {
        bind_mode: mode,
        binds,
        window,
        tps,
        response_timeout: Duration::from_secs(2),
        reconnect_min: Duration::from_millis(20),
        reconnect_max: Duration::from_millis(200),
        ..SessionConfig::new("acme", "127.0.0.1", sandbox.addr().port())
    }
}

fn submit_sm(n: usize) -> SubmitSm {
    SubmitSm::builder()
        .source_addr(cstr("SHOP"))
        .destination_addr(cstr(&format!("+3361{n:06}00")))
        .esm_class(EsmClass::from(0))
        .registered_delivery(RegisteredDelivery::from(1))
        .short_message(OctetString::from_vec(format!("message {n}").into_bytes()).unwrap())
        .build()
}

/// Waits until every bind of `session` is bound.
async fn all_bound(session: &SessionHandle) {
    tokio::time::timeout(Duration::from_secs(5), async {
        while !session
            .binds()
            .iter()
            .all(|(_, s)| matches!(s, LinkState::Bound { .. }))
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("every bind bound in time");
}

/// Sends as fast as the session grants permits, `senders` at a time, for `run` of wall time:
/// each accepted submit's session id and the time its frame was written.
async fn send_for(session: &SessionHandle, senders: usize, run: Duration) -> Vec<(String, i64)> {
    let written = Arc::new(Mutex::new(Vec::new()));
    let until = tokio::time::Instant::now() + run;
    let tasks: Vec<_> = (0..senders)
        .map(|s| {
            let (session, written) = (session.clone(), written.clone());
            tokio::spawn(async move {
                let mut n = s;
                while tokio::time::Instant::now() < until {
                    let permit = session.reserve().await.expect("a permit");
                    let id = permit.session_id().to_owned();
                    let answer = permit.submit(submit_sm(n)).await.expect("answered");
                    assert_eq!(answer.command_status, 0, "accepted");
                    written.lock().unwrap().push((id, answer.written_at));
                    n += senders;
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let written = written.lock().unwrap().clone();
    written
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_binds_share_the_connections_rate_and_each_carries_its_share() {
    let sandbox = sandbox().await;
    let tps = 100.0;
    let session = Session::start(
        config(&sandbox, BindMode::Transceiver, 2, 10, tps),
        Arc::new(Heard::default()),
    );
    let handle = session.handle();
    all_bound(&handle).await;
    let roles: Vec<BindRole> = handle.binds().into_iter().map(|(r, _)| r).collect();
    assert_eq!(roles, [BindRole::Transceiver, BindRole::Transceiver]);

    // A second of warm-up, then 10 s measured by when each frame was written.
    let written = send_for(&handle, 40, Duration::from_secs(12)).await;
    let start = written.iter().map(|(_, at)| *at).min().unwrap() + 1_000;
    let measured: Vec<&(String, i64)> = written
        .iter()
        .filter(|(_, at)| *at >= start && *at < start + 10_000)
        .collect();
    let expected = tps * 10.0;
    let rate_error = (measured.len() as f64 - expected).abs() / expected;
    assert!(
        rate_error <= 0.05,
        "{} submits in 10 s across both binds, against the connection's {expected} (within 5 %)",
        measured.len()
    );
    let on = |label: &str| measured.iter().filter(|(id, _)| id.starts_with(label)).count();
    let (first, second) = (on("acme/trx1#"), on("acme/trx2#"));
    eprintln!(
        "two binds at {tps}/s: {} submits in 10 s (trx1 {first}, trx2 {second})",
        measured.len()
    );
    assert_eq!(
        first + second,
        measured.len(),
        "every submit names its bind: {measured:?}"
    );
    for (label, n) in [("trx1", first), ("trx2", second)] {
        assert!(
            n as f64 >= measured.len() as f64 * 0.4,
            "bind {label} carried {n} of {}",
            measured.len()
        );
    }
    assert_eq!(sandbox.binds(), 2, "two binds, each bound once");
    session.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transmitter_and_receiver_pair_sends_on_the_transmitter_and_takes_receipts_on_the_receiver() {
    let sandbox = sandbox().await;
    let heard = Arc::new(Heard::default());
    let session = Session::start(
        config(&sandbox, BindMode::TransmitterReceiver, 1, 10, 1_000.0),
        heard.clone(),
    );
    let handle = session.handle();
    all_bound(&handle).await;
    let roles: Vec<BindRole> = handle.binds().into_iter().map(|(r, _)| r).collect();
    assert_eq!(roles, [BindRole::Transmitter, BindRole::Receiver]);

    let written = send_for(&handle, 4, Duration::from_millis(300)).await;
    assert!(!written.is_empty());
    assert!(
        written.iter().all(|(id, _)| id.starts_with("acme/tx1#")),
        "submits go out on the transmitter: {written:?}"
    );
    tokio::time::timeout(Duration::from_secs(5), async {
        while heard.sessions().len() < written.len() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("every receipt came");
    let sessions = heard.sessions();
    assert!(
        sessions.iter().all(|id| id.starts_with("acme/rx1#")),
        "every receipt came on the receiver: {sessions:?}"
    );
    assert!(heard.0.lock().unwrap().iter().all(|r| r.connection == "acme"));
    session.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lone_transceiver_keeps_its_ids_and_a_pair_binds_again_after_a_loss() {
    let sandbox = sandbox().await;
    let lone = Session::start(
        config(&sandbox, BindMode::Transceiver, 1, 10, 1_000.0),
        Arc::new(Heard::default()),
    );
    all_bound(&lone.handle()).await;
    let permit = lone.handle().reserve().await.unwrap();
    assert!(
        permit.session_id().starts_with("acme#1@"),
        "a lone transceiver's ids read as before: {}",
        permit.session_id()
    );
    drop(permit);
    lone.stop().await;

    // A pair whose links are lost is down until its transmitter binds again, then sends.
    let session = Session::start(
        config(&sandbox, BindMode::TransmitterReceiver, 1, 10, 1_000.0),
        Arc::new(Heard::default()),
    );
    let handle = session.handle();
    all_bound(&handle).await;
    sandbox.refuse_binds(true);
    sandbox.drop_connections();
    let mut state = handle.state();
    tokio::time::timeout(
        Duration::from_secs(5),
        state.wait_for(|s| !matches!(s, LinkState::Bound { .. })),
    )
    .await
    .expect("the connection is down once its transmitter is")
    .unwrap();
    sandbox.refuse_binds(false);
    let bound = tokio::time::timeout(
        Duration::from_secs(5),
        state.wait_for(|s| matches!(s, LinkState::Bound { .. })),
    )
    .await
    .expect("bound again")
    .unwrap()
    .clone();
    assert!(matches!(bound, LinkState::Bound { ref session_id, .. } if session_id.starts_with("acme/tx1#2@")));
    let written = send_for(&handle, 2, Duration::from_millis(100)).await;
    assert!(!written.is_empty());
    session.stop().await;
}
