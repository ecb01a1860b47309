//! The SMPP session against the sandbox SMSC over real TCP.

use std::sync::Arc;
use std::time::Duration;

use rusmpp::pdus::SubmitSm;
use rusmpp::types::OctetString;
use rusmpp::values::{EsmClass, RegisteredDelivery};

use super::cstr;
use super::session::{LinkState, Session, SessionConfig, SessionHandle, SubmitFailure};
use crate::domain::{DeliveryState, IntakeChannel, MessageKind};
use crate::messages::{self, NewMessage};
use crate::receipts::ingest::Ingestor;
use crate::receipts::policy::ReceiptPolicy;
use crate::sandbox::{Sandbox, SandboxConfig};
use crate::store::{Store, StoreError};
use crate::test_support as report;

struct World {
    _dir: tempfile::TempDir,
    store: Arc<Store>,
    sandbox: Sandbox,
    session: Session,
}

fn config(sandbox: &Sandbox) -> SessionConfig {
    SessionConfig {
        response_timeout: Duration::from_millis(300),
        reconnect_min: Duration::from_millis(20),
        reconnect_max: Duration::from_millis(200),
        tps: 1_000.0,
        // tokio's time: a test that pauses it moves it without waiting.
        clock: crate::clock::following_tokio(),
        ..SessionConfig::new("sandbox", "127.0.0.1", sandbox.addr().port())
    }
}

async fn world_with(adjust: impl FnOnce(&mut SessionConfig)) -> World {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::start(SandboxConfig {
        receipt_delay: Duration::from_millis(20),
        ..Default::default()
    })
    .await
    .unwrap();
    let mut cfg = config(&sandbox);
    adjust(&mut cfg);
    let store = Arc::new(Store::open_with_clock(&dir.path().join("smsdesk.db"), cfg.clock.clone()).unwrap());
    let ingestor = Ingestor::new(store.writer().clone(), ReceiptPolicy::default());
    let session = Session::start(cfg, Arc::new(ingestor));
    World {
        _dir: dir,
        store,
        sandbox,
        session,
    }
}

async fn until(state: &mut tokio::sync::watch::Receiver<LinkState>, pred: impl Fn(&LinkState) -> bool) -> LinkState {
    until_within(Duration::from_secs(5), state, pred).await
}

/// As `until`, for up to `limit` of tokio's time (paused or not).
async fn until_within(
    limit: Duration,
    state: &mut tokio::sync::watch::Receiver<LinkState>,
    pred: impl Fn(&LinkState) -> bool,
) -> LinkState {
    tokio::time::timeout(limit, state.wait_for(|s| pred(s)))
        .await
        .expect("state reached in time")
        .unwrap()
        .clone()
}

pub(super) fn submit_sm(destination: &str, text: &str) -> SubmitSm {
    SubmitSm::builder()
        .source_addr(cstr("SHOP"))
        .destination_addr(cstr(destination))
        .esm_class(EsmClass::from(0))
        .registered_delivery(RegisteredDelivery::from(1))
        .short_message(OctetString::from_vec(text.as_bytes().to_vec()).unwrap())
        .build()
}

/// Sends message `id` on `session` as the dispatcher does: the try recorded with the permit's
/// connection, session and sequence number before the write, the acceptance after. The provider's
/// id for it.
pub(super) async fn send_by_hand(store: &Store, session: &SessionHandle, id: i64, pdu: SubmitSm) -> String {
    let permit = session.reserve().await.unwrap();
    let (connection, session_id, seq) = (
        permit.connection().to_owned(),
        permit.session_id().to_owned(),
        permit.sequence_number(),
    );
    let attempt = store
        .writer()
        .write(move |tx| {
            let wire = messages::Wire {
                connection: &connection,
                session_id: &session_id,
                sequence_number: seq,
                routing: None,
            };
            messages::begin_attempt(tx, id, 1, wire, 1)
        })
        .await
        .unwrap();
    let answer = permit.submit(pdu).await.unwrap();
    assert_eq!(answer.command_status, 0, "accepted");
    let provider_id = answer.message_id.expect("an accepted submit carries the provider's id");
    let recorded = provider_id.clone();
    store
        .writer()
        .write(move |tx| {
            crate::decisions::record_accepted(
                tx,
                attempt.id,
                Some(answer.written_at),
                &recorded,
                &ReceiptPolicy::default(),
            )
        })
        .await
        .unwrap();
    provider_id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_submit_is_answered_and_its_receipt_is_stored_before_it_is_acknowledged() {
    let w = world_with(|_| {}).await;
    let m = NewMessage::text(
        IntakeChannel::Cli,
        "+33612345600",
        "Your order shipped",
        MessageKind::Transactional,
        "sandbox",
    );
    let id = w
        .store
        .writer()
        .write(move |tx| messages::insert(tx, &m))
        .await
        .unwrap();

    // The attempt row names the session and sequence number before the PDU is written.
    send_by_hand(
        &w.store,
        &w.session.handle(),
        id,
        submit_sm("+33612345600", "Your order shipped"),
    )
    .await;

    let store = w.store.clone();
    let state = tokio::time::timeout(Duration::from_secs(5), async move {
        loop {
            let r = store
                .reader()
                .read(move |c| report::message_report(c, id))
                .await
                .unwrap()
                .unwrap();
            if r.reported_state != DeliveryState::Pending {
                return r.reported_state;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the receipt arrives over SMPP and is applied");
    assert_eq!(state, DeliveryState::Delivered);
    let (session, seq_no): (Option<String>, Option<i64>) = w
        .store
        .reader()
        .read(|c| {
            Ok::<_, StoreError>(c.query_row("SELECT session_id, sequence_number FROM receipt", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?)
        })
        .await
        .unwrap();
    assert!(
        session.is_some_and(|s| s.starts_with("sandbox#1@")) && seq_no.is_some(),
        "the receipt records its session"
    );
    assert_eq!(w.sandbox.counts("+33612345600", b"Your order shipped").accepted, 1);
    w.session.stop().await;
}

#[tokio::test(start_paused = true)]
async fn wrong_credentials_stop_the_session_instead_of_hammering() {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::start(SandboxConfig {
        password: Some("right".into()),
        ..Default::default()
    })
    .await
    .unwrap();
    let store = Store::open(&dir.path().join("x.db")).unwrap();
    let cfg = SessionConfig {
        password: "wrong".into(),
        ..config(&sandbox)
    };
    let session = Session::start(
        cfg,
        Arc::new(Ingestor::new(store.writer().clone(), ReceiptPolicy::default())),
    );
    let mut state = session.handle().state();
    let refused = until(&mut state, |s| matches!(s, LinkState::BindRefused { .. })).await;
    assert!(
        matches!(refused, LinkState::BindRefused { status: 0x0E, .. }),
        "{refused:?}"
    );
    // An hour later (paused time), well past any reconnect wait: still the one bind.
    tokio::time::sleep(Duration::from_secs(3600)).await;
    assert_eq!(sandbox.binds(), 1, "a refused password is not retried");
    assert!(
        matches!(session.handle().reserve().await, Err(SubmitFailure::NotSent(_))),
        "nothing is spent"
    );
    session.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_bind_refused_for_maintenance_is_retried_with_backoff() {
    // The product's own backoff, 1 s to 60 s, in paused time.
    let w = world_with(|c| {
        c.reconnect_min = Duration::from_secs(1);
        c.reconnect_max = Duration::from_secs(60);
    })
    .await;
    let mut state = w.session.handle().state();
    until(&mut state, |s| matches!(s, LinkState::Bound { .. })).await;
    w.sandbox.refuse_binds(true);
    w.sandbox.drop_connections();
    until(
        &mut state,
        |s| matches!(s, LinkState::Down { error, .. } if error.contains("ESME_RBINDFAIL")),
    )
    .await;
    // Every refusal is followed by a wait of at least the minimum (the schedule itself is
    // `reconnect_wait`'s unit test): watch three of them go by.
    let (min, max) = (Duration::from_secs(1), Duration::from_secs(60));
    let binds_before = w.sandbox.binds();
    let mut waits = Vec::new();
    tokio::time::timeout(Duration::from_secs(3600), async {
        while waits.len() < 8 {
            state.changed().await.unwrap();
            if let LinkState::Down { retry_in_ms, .. } = &*state.borrow_and_update() {
                waits.push(Duration::from_millis(*retry_in_ms));
            }
        }
    })
    .await
    .expect("the session keeps trying while the SMSC refuses");
    assert!(
        waits.iter().all(|w| *w >= min && *w <= max),
        "each retry waits between {min:?} and {max:?}, never a tight loop: {waits:?}"
    );
    // Full jitter makes each wait anything up to a bound that doubles: over eight refusals some
    // wait is past twice the minimum (all eight under it has a chance of about 1 in 100,000).
    assert!(
        waits.iter().any(|w| *w > 2 * min),
        "the waits grow while the SMSC keeps refusing: {waits:?}"
    );
    assert!(
        w.sandbox.binds() >= binds_before + 8,
        "each wait is followed by a new bind"
    );
    w.sandbox.refuse_binds(false);
    // The wait under way may be up to the maximum before the bind that succeeds.
    until_within(2 * max, &mut state, |s| matches!(s, LinkState::Bound { .. })).await;
    w.session.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_dropped_link_reconnects() {
    let w = world_with(|_| {}).await;
    let mut state = w.session.handle().state();
    let first = until(&mut state, |s| matches!(s, LinkState::Bound { .. })).await;
    w.sandbox.drop_connections();
    until(&mut state, |s| {
        matches!(s, LinkState::Down { .. } | LinkState::Connecting { .. })
    })
    .await;
    let again = until(&mut state, |s| matches!(s, LinkState::Bound { .. })).await;
    assert_ne!(first, again, "a new session after the drop");
    w.session.stop().await;
}

#[tokio::test(start_paused = true)]
async fn no_answer_or_a_lost_link_after_the_write_is_an_unknown_outcome() {
    let w = world_with(|_| {}).await;
    let h = w.session.handle();
    let silent = h.reserve().await.unwrap().submit(submit_sm("+33612345615", "a")).await;
    assert!(
        matches!(silent, Err(SubmitFailure::Timeout { written_at: Some(_) })),
        "written, then no answer: {silent:?}"
    );
    let dropped = h.reserve().await.unwrap().submit(submit_sm("+33612345616", "b")).await;
    assert!(
        matches!(dropped, Err(SubmitFailure::LinkLost { written_at: Some(_) })),
        "written, then the link dropped: {dropped:?}"
    );
    w.session.stop().await;
}

#[tokio::test(start_paused = true)]
async fn the_window_bounds_requests_in_flight() {
    let w = world_with(|c| {
        c.window = 2;
        c.response_timeout = Duration::from_millis(400);
    })
    .await;
    let h = w.session.handle();
    let mut waiting = Vec::new();
    for i in 0..2 {
        let p = h.reserve().await.unwrap();
        waiting.push(tokio::spawn(p.submit(submit_sm("+33612345615", &format!("w{i}")))));
    }
    let third = tokio::time::timeout(Duration::from_millis(150), h.reserve()).await;
    assert!(third.is_err(), "a third request waits while two are unanswered");
    for t in waiting {
        let result = t.await.unwrap();
        assert!(matches!(result, Err(SubmitFailure::Timeout { .. })), "{result:?}");
    }
    assert!(
        tokio::time::timeout(Duration::from_millis(500), h.reserve())
            .await
            .is_ok(),
        "slots free up after the timeouts"
    );
    w.session.stop().await;
}

#[tokio::test(start_paused = true)]
async fn keepalives_hold_the_link_and_stop_unbinds() {
    let w = world_with(|c| c.enquire_link_every = Duration::from_secs(30)).await;
    let mut state = w.session.handle().state();
    let bound = until(&mut state, |s| matches!(s, LinkState::Bound { .. })).await;
    // Two hours of keepalives every 30 s (paused time): 240 enquire_links, each answered.
    tokio::time::sleep(Duration::from_secs(2 * 3600)).await;
    assert_eq!(
        *state.borrow(),
        bound,
        "enquire_link answered: the same session stays bound"
    );
    assert_eq!(w.sandbox.binds(), 1, "and it never had to bind again");
    let handle = w.session.handle();
    w.session.stop().await;
    assert_eq!(*handle.state().borrow(), LinkState::Stopped);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rate_limit_spaces_submits_and_a_throttle_slows_it_down() {
    let w = world_with(|c| c.tps = 100.0).await;
    let h = w.session.handle();
    let timed = |h: super::session::SessionHandle| async move {
        let started = std::time::Instant::now();
        for _ in 0..9 {
            drop(h.reserve().await.unwrap());
        }
        started.elapsed()
    };
    timed(h.clone()).await; // settle the bucket
    let normal = timed(h.clone()).await;
    assert!(
        normal >= Duration::from_millis(80),
        "100/s spaces 9 submits at least 80 ms apart in all: {normal:?}"
    );
    h.slow_down();
    let slowed = timed(h.clone()).await;
    assert!(
        slowed >= Duration::from_millis(320),
        "after a throttle, a quarter of the rate: {slowed:?}"
    );
    w.session.stop().await;
}
