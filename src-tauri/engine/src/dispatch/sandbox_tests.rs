//! The dispatcher end to end over real TCP: queue, SMPP session, sandbox SMSC, receipts back into
//! the store. Each test checks the message's status, its attempts and exceptions, and, from the
//! sandbox's own counters, that nothing was accepted twice.

use std::sync::Arc;
use std::time::Duration;

use super::worker::{Dispatcher, DispatcherConfig};
use crate::domain::{DeliveryState, ExceptionKind, IntakeChannel, MessageKind, QueueStatus};
use crate::messages::{self, NewMessage};
use crate::receipts::ingest::Ingestor;
use crate::receipts::policy::ReceiptPolicy;
use crate::sandbox::{Sandbox, SandboxConfig};
use crate::smpp::session::{Session, SessionConfig};
use crate::store::Text;
use crate::store::{Store, StoreError};
use crate::test_support as report;
use smsdesk_core::retry::RetryPolicy;

struct World {
    _dir: tempfile::TempDir,
    _sweeper: AbortOnDrop,
    store: Arc<Store>,
    sandbox: Sandbox,
    session: Option<Session>,
    dispatcher: Option<Dispatcher>,
}

/// A background task that ends with its owner.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

fn fast_retries() -> [RetryPolicy; 3] {
    let p = |max_attempts| RetryPolicy {
        base_ms: 50,
        cap_ms: 200,
        max_attempts,
        unlisted_max_attempts: 2,
        max_age_ms: 3_600_000,
    };
    [p(2), p(5), p(5)]
}

async fn world() -> World {
    world_at(500.0, 10).await
}

/// A world for a test whose time is paused: the dispatcher and the sweeper look once a second,
/// as in the product, since each look costs real work however fast paused time goes.
async fn world_paused() -> World {
    world_full(
        500.0,
        10,
        SandboxConfig::default(),
        ReceiptPolicy::default(),
        Duration::from_secs(1),
    )
    .await
}

/// A world whose session sends at most `tps` submits a second with `window` awaiting answers.
async fn world_at(tps: f64, window: usize) -> World {
    world_with(tps, window, SandboxConfig::default()).await
}

/// A world whose receipts are read by `policy`.
async fn world_reading(policy: ReceiptPolicy) -> World {
    world_full(500.0, 10, SandboxConfig::default(), policy, FAST_POLL).await
}

/// The same, with a sandbox configured so (its receipts always come 20 ms after acceptance).
async fn world_with(tps: f64, window: usize, sandbox: SandboxConfig) -> World {
    world_full(tps, window, sandbox, ReceiptPolicy::default(), FAST_POLL).await
}

/// How often the dispatcher and the sweeper look, in tests on real time.
const FAST_POLL: Duration = Duration::from_millis(20);

async fn world_full(tps: f64, window: usize, sandbox: SandboxConfig, policy: ReceiptPolicy, poll: Duration) -> World {
    let config = DispatcherConfig {
        idle_poll: poll,
        retry: fast_retries(),
        ..Default::default()
    };
    world_configured(tps, window, sandbox, policy, config).await
}

/// A world whose dispatcher runs by `config`.
async fn world_configured(
    tps: f64,
    window: usize,
    sandbox: SandboxConfig,
    policy: ReceiptPolicy,
    config: DispatcherConfig,
) -> World {
    let poll = config.idle_poll;
    let dir = tempfile::tempdir().unwrap();
    // One clock for the store, the session and the dispatcher: tokio's, which a test that pauses
    // time moves without waiting.
    let clock = crate::clock::following_tokio();
    let store = Arc::new(Store::open_with_clock(&dir.path().join("smsdesk.db"), clock.clone()).unwrap());
    let sandbox = Sandbox::start(SandboxConfig {
        receipt_delay: Duration::from_millis(20),
        ..sandbox
    })
    .await
    .unwrap();
    let session = Session::start(
        SessionConfig {
            response_timeout: Duration::from_millis(300),
            reconnect_min: Duration::from_millis(20),
            reconnect_max: Duration::from_millis(100),
            tps,
            window,
            clock,
            ..SessionConfig::new("sandbox", "127.0.0.1", sandbox.addr().port())
        },
        Arc::new(Ingestor::new(store.writer().clone(), policy.clone())),
    );
    let dispatcher = Dispatcher::start(store.clone(), session.handle(), policy.clone(), config)
        .await
        .unwrap();
    // As the engine does: receipts that match no message wait, then open their exceptions.
    let sweeper = tokio::spawn(crate::receipts::uncorrelated::keep_sweeping(
        store.clone(),
        move || policy.clone(),
        poll.max(Duration::from_millis(50)),
    ));
    World {
        _dir: dir,
        store,
        sandbox,
        _sweeper: AbortOnDrop(sweeper),
        session: Some(session),
        dispatcher: Some(dispatcher),
    }
}

impl World {
    async fn send(&self, destination: &str, body: &str) -> i64 {
        let m = NewMessage::text(
            IntakeChannel::Api,
            destination,
            body,
            MessageKind::Transactional,
            "sandbox",
        );
        self.queue(m).await
    }

    /// A one-time code valid for `valid_ms` from now.
    async fn send_otp(&self, destination: &str, body: &str, valid_ms: i64) -> i64 {
        let mut m = NewMessage::text(IntakeChannel::Api, destination, body, MessageKind::Otp, "sandbox");
        m.valid_until = Some(self.store.clock().now_ms() + valid_ms);
        self.queue(m).await
    }

    async fn queue(&self, m: NewMessage) -> i64 {
        self.store
            .writer()
            .write(move |tx| messages::insert(tx, &m))
            .await
            .unwrap()
    }

    async fn report(&self, id: i64) -> report::MessageReport {
        self.store
            .reader()
            .read(move |c| report::message_report(c, id))
            .await
            .unwrap()
            .unwrap()
    }

    /// Waits until the message's report satisfies `done`.
    async fn until(&self, id: i64, done: impl Fn(&report::MessageReport) -> bool) -> report::MessageReport {
        self.until_within(id, Duration::from_secs(10), done).await
    }

    /// The message's report once `done` holds, looking every thousandth of `limit` (at least
    /// every 20 ms); fails the test once `limit` has passed both on tokio's clock and in real
    /// time. With tokio's time paused, its clock jumps ahead whenever the runtime waits, also
    /// while bytes are on their way through a real socket to or from the sandbox: on a loaded
    /// machine `limit` of paused time can pass before a receipt has crossed the loopback, so the
    /// real time that work takes is waited for as well (without letting the paused clock run).
    async fn until_within(
        &self,
        id: i64,
        limit: Duration,
        done: impl Fn(&report::MessageReport) -> bool,
    ) -> report::MessageReport {
        let deadline = tokio::time::Instant::now() + limit;
        let real_deadline = std::time::Instant::now() + limit;
        let every = (limit / 1_000).max(Duration::from_millis(20));
        loop {
            let r = self.report(id).await;
            if done(&r) {
                return r;
            }
            if tokio::time::Instant::now() >= deadline && std::time::Instant::now() < real_deadline {
                // A blocking task keeps the paused clock still while real time passes.
                tokio::task::spawn_blocking(|| std::thread::sleep(Duration::from_millis(10)))
                    .await
                    .unwrap();
                continue;
            }
            if tokio::time::Instant::now() >= deadline {
                let tries: Vec<String> = self
                    .store
                    .reader()
                    .read(move |c| {
                        let mut s = c.prepare(
                            "SELECT segment_no, attempt_no, outcome, coalesce(error, '') FROM attempt
                             WHERE message_id = ?1 ORDER BY id",
                        )?;
                        let rows = s
                            .query_map([id], |r| {
                                Ok(format!(
                                    "part {} try {}: {} {}",
                                    r.get::<_, i64>(0)?,
                                    r.get::<_, i64>(1)?,
                                    r.get::<_, String>(2)?,
                                    r.get::<_, String>(3)?
                                ))
                            })?
                            .collect::<Result<Vec<_>, _>>()?;
                        Ok::<_, StoreError>(rows)
                    })
                    .await
                    .unwrap();
                panic!("message {id} never got there: {r:?}; its tries: {tries:?}");
            }
            tokio::time::sleep(every).await;
        }
    }

    async fn attempts(&self, id: i64) -> i64 {
        self.store
            .reader()
            .read(move |c| {
                Ok::<_, StoreError>(
                    c.query_row("SELECT count(*) FROM attempt WHERE message_id = ?1", [id], |r| r.get(0))?,
                )
            })
            .await
            .unwrap()
    }

    /// One value of the database.
    async fn value<T: rusqlite::types::FromSql + Send + 'static>(&self, sql: &'static str, id: i64) -> T {
        self.store
            .reader()
            .read(move |c| Ok::<T, StoreError>(c.query_row(sql, [id], |r| r.get(0))?))
            .await
            .unwrap()
    }

    async fn open_exceptions(&self, kind: ExceptionKind) -> i64 {
        self.store
            .reader()
            .read(move |c| {
                Ok::<_, StoreError>(c.query_row(
                    "SELECT count(*) FROM exception WHERE kind = ?1 AND status = 'open'",
                    [Text(kind)],
                    |r| r.get(0),
                )?)
            })
            .await
            .unwrap()
    }

    async fn stop(mut self) {
        assert!(
            self.sandbox.accepted_twice().is_empty(),
            "nothing may be accepted twice: {:?}",
            self.sandbox.accepted_twice()
        );
        self.dispatcher.take().unwrap().stop().await;
        self.session.take().unwrap().stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_goes_out_and_its_receipt_comes_back() {
    let w = world().await;
    let id = w.send("+33612345600", "Your parcel is on its way").await;
    let r = w.until(id, |r| r.reported_state == DeliveryState::Delivered).await;
    assert_eq!(r.acceptance, QueueStatus::Accepted);
    assert_eq!(w.attempts(id).await, 1);
    assert_eq!(
        w.sandbox.counts("33612345600", b"Your parcel is on its way").accepted,
        1
    );
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permanent_error_fails_at_once_and_a_throttle_retries() {
    let w = world().await;
    let invalid = w.send("+33612345613", "x").await;
    let throttled = w.send("+33612345611", "y").await;
    let r = w.until(invalid, |r| r.acceptance == QueueStatus::Failed).await;
    assert_eq!(r.reported_state, DeliveryState::Pending);
    assert_eq!(w.attempts(invalid).await, 1, "a permanent error is not retried");
    w.until(throttled, |r| r.reported_state == DeliveryState::Delivered)
        .await;
    assert_eq!(w.attempts(throttled).await, 2, "throttled once, accepted on the retry");
    assert_eq!(w.sandbox.counts("33612345611", b"y").submits, 2);
    w.stop().await;
}

#[tokio::test(start_paused = true)]
async fn no_answer_becomes_an_exception_and_is_never_resent() {
    let w = world_paused().await;
    let id = w.send("+33612345615", "silence").await;
    w.until(id, |r| r.acceptance == QueueStatus::OutcomeUnknown).await;
    // Two hours pass (in paused time): its lease lapses, any retry would long be due, and yet.
    tokio::time::sleep(Duration::from_secs(2 * 3600)).await;
    assert_eq!(
        w.sandbox.counts("33612345615", b"silence").submits,
        1,
        "an unknown outcome is never resent blindly, not even hours later"
    );
    assert_eq!(w.attempts(id).await, 1, "and no attempt was begun for it");
    assert_eq!(w.open_exceptions(ExceptionKind::OutcomeUnknown).await, 1);
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_dropped_after_acceptance_still_brings_the_receipt() {
    let w = world().await;
    let id = w.send("+33612345617", "cut after").await;
    w.until(id, |r| r.reported_state == DeliveryState::Delivered).await;
    assert_eq!(w.sandbox.counts("33612345617", b"cut after").accepted, 1);
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_message_goes_out_in_concatenated_parts() {
    let w = world().await;
    let body = "Your appointment is confirmed. ".repeat(8);
    let id = w.send("+33612345600", &body).await;
    w.until(id, |r| r.reported_state == DeliveryState::Delivered).await;
    assert_eq!(w.attempts(id).await, 2, "one attempt row per part");
    w.stop().await;
}

#[tokio::test(start_paused = true)]
async fn nothing_is_spent_while_the_link_is_down_and_the_backlog_drains_after() {
    let w = world_paused().await;
    w.sandbox.refuse_binds(true);
    w.sandbox.drop_connections();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(w.send("+33612345600", &format!("backlog {i}")).await);
    }
    // Ten minutes of a refusing SMSC (paused time): the session keeps trying, nothing is spent.
    tokio::time::sleep(Duration::from_secs(600)).await;
    for &id in &ids {
        assert_eq!(w.attempts(id).await, 0, "no attempt is spent while the link is down");
    }
    w.sandbox.refuse_binds(false);
    for &id in &ids {
        w.until(id, |r| r.reported_state == DeliveryState::Delivered).await;
        assert_eq!(w.attempts(id).await, 1);
    }
    w.stop().await;
}

/// The text each scenario's message carries: long enough for three parts where the scenario is
/// about the parts of a long message.
fn scenario_body(suffix: &str) -> String {
    match suffix {
        "21" | "22" => format!("scenario {suffix}: ") + &"a long message in three parts. ".repeat(12),
        _ => format!("scenario {suffix}"),
    }
}

/// One message per sandbox scenario, all in one stream: its final queue status, computed state,
/// attempts (one row per part tried), flags, and the exceptions the stream leaves open. (Scenario
/// 19's state depends on which final came first: its own test checks it.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_sandbox_scenario_ends_where_it_should() {
    use DeliveryState as D;
    use QueueStatus as Q;
    let cases: [(&str, Q, D, i64, Option<&str>); 24] = [
        ("00", Q::Accepted, D::Delivered, 1, None),
        ("01", Q::Accepted, D::Undeliverable, 1, None),
        ("02", Q::Accepted, D::Expired, 1, None),
        ("03", Q::Accepted, D::Rejected, 1, None),
        ("04", Q::Accepted, D::Delivered, 1, None),
        ("05", Q::Accepted, D::Delivered, 1, None),
        ("06", Q::Accepted, D::Delivered, 1, Some("late")),
        ("07", Q::Accepted, D::Delivered, 1, Some("conflict")),
        ("08", Q::Accepted, D::Pending, 1, None),
        ("09", Q::Accepted, D::Pending, 1, None),
        ("10", Q::Accepted, D::Delivered, 1, None),
        ("11", Q::Accepted, D::Delivered, 2, None),
        ("12", Q::Accepted, D::Delivered, 2, None),
        ("13", Q::Failed, D::Pending, 1, None),
        ("14", Q::Accepted, D::Delivered, 2, None),
        ("15", Q::OutcomeUnknown, D::Pending, 1, None),
        ("16", Q::OutcomeUnknown, D::Pending, 1, None),
        ("17", Q::Accepted, D::Delivered, 1, None),
        // Hex in the response, decimal in the receipt: without the connection saying so, no match
        // is guessed (the policy test in receipts shows the match when it does).
        ("18", Q::Accepted, D::Pending, 1, None),
        // The TLV repeats the response's id, so the default rules match it; the text's decimal
        // id disagrees with it under those rules, and is flagged.
        ("20", Q::Accepted, D::Delivered, 1, Some("id_disagree")),
        // Part 2 refused for good: part 1 accepted (and reported delivered), part 3 never tried.
        ("21", Q::OutcomeUnknown, D::PartiallyDelivered, 2, None),
        // Every part accepted; part 2 reported undeliverable.
        ("22", Q::Accepted, D::PartiallyDelivered, 3, None),
        // `stat:??` changes nothing; the DELIVRD after it is the first final.
        ("23", Q::Accepted, D::Delivered, 1, None),
        // Accepted without an answer: held, and its receipt matches nothing.
        ("24", Q::OutcomeUnknown, D::Pending, 1, None),
    ];
    let w = world().await;
    // The scenarios that cut the connection go last, each alone, so that none can cut another's
    // submit before it is written (that submit is then tried again: a legitimate extra attempt,
    // which would blur what each case shows).
    let cuts = |c: &&(&str, Q, D, i64, Option<&str>)| matches!(c.0, "15" | "16" | "17");
    let steady: Vec<_> = cases.iter().filter(|c| !cuts(c)).collect();
    let mut phases = vec![steady];
    phases.extend(cases.iter().filter(cuts).map(|c| vec![c]));
    for phase in phases {
        let mut ids = Vec::new();
        for (suffix, ..) in &phase {
            ids.push(w.send(&format!("+336123456{suffix}"), &scenario_body(suffix)).await);
        }
        for ((suffix, status, state, attempts, flag), id) in phase.iter().zip(&ids) {
            w.until(*id, |r| r.acceptance == *status && r.reported_state == *state)
                .await;
            assert_eq!(w.attempts(*id).await, *attempts, "scenario {suffix}: attempts");
            if let Some(flag) = flag {
                w.until(*id, |r| r.flags.contains(flag)).await;
            }
        }
    }
    let expected = [
        (ExceptionKind::ConflictingFinal, 1),
        (ExceptionKind::Uncorrelated, 3),
        (ExceptionKind::Unparseable, 1),
        (ExceptionKind::OutcomeUnknown, 3),
        (ExceptionKind::PartlySent, 1),
        (ExceptionKind::StatusUnreadable, 1),
    ];
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    for (kind, n) in expected {
        while w.open_exceptions(kind).await != n {
            assert!(
                tokio::time::Instant::now() < deadline,
                "{kind}: {} open, expected {n}",
                w.open_exceptions(kind).await
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    for (suffix, _, _, attempts, _) in &cases {
        let counts = w
            .sandbox
            .counts(&format!("336123456{suffix}"), scenario_body(suffix).as_bytes());
        assert!(
            counts.accepted <= 1,
            "scenario {suffix} accepted {} times",
            counts.accepted
        );
        // The SMSC received no submit beyond the tries recorded: none sent again blindly.
        assert!(
            i64::from(counts.submits) <= *attempts,
            "scenario {suffix}: the SMSC received {} submits for {attempts} attempts",
            counts.submits
        );
    }
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_cut_mid_stream_loses_nothing_sends_nothing_twice_and_spends_nothing_while_down() {
    let w = world().await;
    let mut ids = Vec::new();
    for i in 0..300 {
        ids.push(w.send("+33612345600", &format!("stream {i}")).await);
    }
    // Once the stream is under way, the SMSC drops the link and refuses binds for a while.
    w.until(ids[20], |r| r.acceptance == QueueStatus::Accepted).await;
    w.sandbox.refuse_binds(true);
    w.sandbox.drop_connections();
    tokio::time::sleep(Duration::from_millis(150)).await;
    let attempts_when_down: i64 = w
        .store
        .reader()
        .read(|c| Ok::<_, StoreError>(c.query_row("SELECT count(*) FROM attempt", [], |r| r.get(0))?))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    let attempts_later: i64 = w
        .store
        .reader()
        .read(|c| Ok::<_, StoreError>(c.query_row("SELECT count(*) FROM attempt", [], |r| r.get(0))?))
        .await
        .unwrap();
    assert_eq!(
        attempts_later, attempts_when_down,
        "no attempt is spent while the link is down"
    );
    w.sandbox.refuse_binds(false);
    for &id in &ids {
        let r = w
            .until(id, |r| {
                matches!(r.acceptance, QueueStatus::Accepted | QueueStatus::OutcomeUnknown)
            })
            .await;
        let attempts = w.attempts(id).await;
        assert!(
            attempts <= 1 || r.acceptance == QueueStatus::Accepted,
            "message {id}: {attempts} attempts"
        );
    }
    let accepted = w.sandbox.totals().1;
    assert!(
        accepted >= 295,
        "the backlog drained after the link came back: {accepted} accepted"
    );
    w.stop().await;
}

/// The SMSC sends two incompatible finals back to back for each of 5,000 messages (10,000
/// receipts), one order for half of them and the other order for the rest. Each message's state
/// is the final that arrived first on the wire, and the receipt log keeps the wire order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn receipts_of_a_session_are_stored_and_applied_in_the_order_they_arrived() {
    const MESSAGES: usize = 5_000;
    let w = world_at(100_000.0, 100).await;
    let batch: Vec<NewMessage> = (0..MESSAGES)
        .map(|i| {
            NewMessage::text(
                IntakeChannel::Api,
                &format!("+336{i:06}19"),
                &format!("order {i}"),
                MessageKind::Transactional,
                "sandbox",
            )
        })
        .collect();
    w.store
        .writer()
        .write(move |tx| batch.iter().try_for_each(|m| messages::insert(tx, m).map(|_| ())))
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    let count = |sql: &'static str| {
        let store = w.store.clone();
        async move {
            store
                .reader()
                .read(move |c| Ok::<i64, StoreError>(c.query_row(sql, [], |r| r.get(0))?))
                .await
                .unwrap()
        }
    };
    while count("SELECT count(*) FROM receipt_outcome").await < 2 * MESSAGES as i64 {
        assert!(tokio::time::Instant::now() < deadline, "the receipts never all arrived");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // Within a session, the log's order, the recorded arrival positions and the SMSC's own
    // sequence numbers (it numbers its deliver_sm in the order it writes them) all agree.
    let out_of_order = count(
        "SELECT count(*) FROM receipt a JOIN receipt b ON b.session_id = a.session_id AND b.id > a.id
         WHERE b.arrival_no < a.arrival_no OR b.sequence_number < a.sequence_number",
    )
    .await;
    assert_eq!(
        out_of_order, 0,
        "receipts of one session are stored in the order they arrived"
    );
    assert_eq!(
        count("SELECT count(*) FROM receipt WHERE arrival_no IS NULL").await,
        0,
        "every report read off a session records its arrival position"
    );

    // Each message: the state is the first final on the wire; the second is kept as a conflict.
    let rows: Vec<(i64, String, String, bool)> = w
        .store
        .reader()
        .read(|c| {
            Ok::<_, StoreError>(
                c.prepare(
                    "SELECT p.message_id, p.state,
                        (SELECT r.stat FROM receipt r JOIN receipt_outcome o ON o.receipt_id = r.id
                         JOIN logical_event e ON e.id = o.logical_event_id
                         WHERE e.message_id = p.message_id ORDER BY r.session_id, r.sequence_number LIMIT 1),
                        p.flag_conflict
                     FROM projection p",
                )?
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                .collect::<Result<_, _>>()?,
            )
        })
        .await
        .unwrap();
    assert_eq!(rows.len(), MESSAGES);
    let state = |stat: &str| match stat {
        "DELIVRD" => "delivered",
        _ => "undeliverable",
    };
    let wrong: Vec<_> = rows.iter().filter(|(_, s, first, _)| s != state(first)).collect();
    assert!(
        wrong.is_empty(),
        "{} of {MESSAGES} messages do not show the final that arrived first, e.g. {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(5)]
    );
    assert!(
        rows.iter().all(|r| r.3),
        "the final that arrived second is kept as a conflict"
    );
    let firsts_delivered = rows.iter().filter(|r| r.2 == "DELIVRD").count();
    assert!(
        firsts_delivered > MESSAGES / 4 && firsts_delivered < 3 * MESSAGES / 4,
        "both orders occur ({firsts_delivered} of {MESSAGES} delivered first)"
    );
    w.stop().await;
}

/// The text of each part as the sandbox sees it (UDH included), for its counters.
fn parts_as_sent(id: i64, body: &str) -> Vec<Vec<u8>> {
    let (encoding, parts) = crate::sms::encoding::split(body);
    assert_eq!(encoding, crate::sms::encoding::Encoding::Gsm7);
    let total = parts.len() as u8;
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut v = crate::sms::encoding::concat_udh((id & 0xFF) as u8, i as u8 + 1, total).to_vec();
            v.extend_from_slice(&p.octets);
            v
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_message_whose_second_part_is_refused_is_held_and_no_part_goes_twice() {
    let w = world().await;
    let body = "Your appointment on Tuesday is confirmed; bring your card. ".repeat(6);
    let id = w.send("+33612345621", &body).await;
    // Part 1's receipt says delivered: the message is delivered in part.
    w.until(id, |r| {
        r.acceptance == QueueStatus::OutcomeUnknown && r.reported_state == DeliveryState::PartiallyDelivered
    })
    .await;
    let parts = parts_as_sent(id, &body);
    assert_eq!(parts.len(), 3);
    let counts: Vec<_> = parts.iter().map(|p| w.sandbox.counts("33612345621", p)).collect();
    assert_eq!(
        counts.iter().map(|c| (c.submits, c.accepted)).collect::<Vec<_>>(),
        vec![(1, 1), (1, 0), (0, 0)],
        "part 1 accepted once, part 2 refused once, part 3 never sent"
    );
    assert_eq!(w.open_exceptions(ExceptionKind::PartlySent).await, 1);
    let summary: String = w
        .value(
            "SELECT summary FROM exception WHERE message_id = ?1 AND kind = 'partly_sent'",
            id,
        )
        .await;
    assert!(
        summary.contains("Part 2 of 3: refused: ESME_RX_P_APPN") && summary.contains("Part 3 of 3: not sent"),
        "{summary}"
    );
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_message_throttled_part_by_part_sends_each_part_once_and_is_accepted_whole() {
    let w = world().await;
    let body = "Reminder: your car service is booked for Friday at 9:00. ".repeat(4);
    let id = w.send("+33612345611", &body).await;
    w.until(id, |r| r.acceptance == QueueStatus::Accepted).await;
    for (i, part) in parts_as_sent(id, &body).iter().enumerate() {
        let c = w.sandbox.counts("33612345611", part);
        assert_eq!(
            (c.submits, c.accepted),
            (2, 1),
            "part {}: throttled once, accepted once, never sent again after",
            i + 1
        );
    }
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_try_records_its_session_sequence_number_and_write_time_whatever_its_outcome() {
    let w = world().await;
    let accepted = w.send("+33612345600", "accepted").await;
    let refused = w.send("+33612345613", "refused").await;
    let silent = w.send("+33612345615", "silent").await;
    w.until(accepted, |r| r.acceptance == QueueStatus::Accepted).await;
    w.until(refused, |r| r.acceptance == QueueStatus::Failed).await;
    w.until(silent, |r| r.acceptance == QueueStatus::OutcomeUnknown).await;
    for id in [accepted, refused, silent] {
        let missing: i64 = w
            .value(
                "SELECT count(*) FROM attempt WHERE message_id = ?1
                 AND (session_id IS NULL OR sequence_number IS NULL OR sent_at IS NULL OR sent_at < created_at
                      OR connection <> 'sandbox' OR registered_delivery IS NULL)",
                id,
            )
            .await;
        assert_eq!(
            missing, 0,
            "message {id}: a try records where, when and as what it was written"
        );
    }
    let distinct: i64 = w
        .value(
            "SELECT count(DISTINCT session_id || '/' || sequence_number) - count(*) FROM attempt WHERE ?1 = ?1",
            0,
        )
        .await;
    assert_eq!(distinct, 0, "no two tries share a session's sequence number");
    w.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_one_time_code_expires_on_time_while_the_link_is_down() {
    let w = world_paused().await;
    w.sandbox.refuse_binds(true);
    w.sandbox.drop_connections();
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Valid five minutes, as a real code is; the link stays down longer (in paused time).
    let queued_at = w.store.clock().now_ms();
    let otp = w.send_otp("+33612345600", "Your code is 4821", 5 * 60_000).await;
    let r = w
        .until_within(otp, Duration::from_secs(600), |r| r.acceptance == QueueStatus::Expired)
        .await;
    let expired_after = w.store.clock().now_ms() - queued_at;
    assert!(
        (5 * 60_000..6 * 60_000).contains(&expired_after),
        "it expires once its five minutes are over, not before and not much later: {expired_after} ms"
    );
    assert_eq!(r.reported_state, DeliveryState::Pending);
    assert_eq!(w.attempts(otp).await, 0, "nothing was tried");
    w.sandbox.refuse_binds(false);
    tokio::time::sleep(Duration::from_secs(3600)).await;
    assert_eq!(
        w.sandbox.counts("33612345600", b"Your code is 4821").submits,
        0,
        "an expired code never goes out, not even once the link is back"
    );
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claimed_code_whose_validity_ends_while_it_waits_for_a_send_slot_never_goes_out() {
    // One request in flight at a time, and the SMSC takes 200 ms to answer: the second code, queued
    // with the first and claimed with it, waits for the window past its validity.
    let w = world_with(
        500.0,
        1,
        SandboxConfig {
            response_delay: Duration::from_millis(200),
            ..Default::default()
        },
    )
    .await;
    let now = w.store.clock().now_ms();
    let codes: Vec<NewMessage> = [("1111", 10_000), ("2222", 80)]
        .into_iter()
        .map(|(code, valid_ms)| {
            let body = format!("Your code is {code}");
            let mut m = NewMessage::text(IntakeChannel::Api, "+33612345600", &body, MessageKind::Otp, "sandbox");
            m.valid_until = Some(now + valid_ms);
            m
        })
        .collect();
    let ids = w
        .store
        .writer()
        .write(move |tx| {
            codes
                .iter()
                .map(|m| messages::insert(tx, m))
                .collect::<Result<Vec<_>, _>>()
        })
        .await
        .unwrap();
    let (first, second) = (ids[0], ids[1]);
    w.until(first, |r| r.acceptance == QueueStatus::Accepted).await;
    w.until(second, |r| r.acceptance == QueueStatus::Expired).await;
    assert_eq!(
        w.sandbox.counts("33612345600", b"Your code is 2222").submits,
        0,
        "a code past its validity is never written"
    );
    let tried: i64 = w
        .value(
            "SELECT count(*) FROM attempt WHERE message_id = ?1 AND outcome <> 'not_sent'",
            second,
        )
        .await;
    assert_eq!(tried, 0);
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_submit_the_link_never_wrote_is_not_sent() {
    let w = world().await;
    let h = w.session.as_ref().unwrap().handle();
    let permit = h.reserve().await.unwrap();
    w.sandbox.refuse_binds(true);
    w.sandbox.drop_connections();
    let mut state = h.state();
    while matches!(
        *state.borrow_and_update(),
        crate::smpp::session::LinkState::Bound { .. }
    ) {
        state.changed().await.unwrap();
    }
    let pdu = rusmpp::pdus::SubmitSm::builder().build();
    let result = permit.submit(pdu).await;
    assert!(
        matches!(result, Err(crate::smpp::session::SubmitFailure::NotSent(_))),
        "a submit handed over after the link ended never reached the wire: {result:?}"
    );
    w.sandbox.refuse_binds(false);
    w.stop().await;
}

/// Hex in the response and the TLV, decimal in the receipt text: declared so, every receipt finds
/// its message and nothing is flagged; the text's id read as hex instead would disagree, and is
/// flagged, and the TLV still wins.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hex_responses_and_tlvs_with_decimal_receipt_text_match_when_declared() {
    use crate::config::IdBase;
    let declared = ReceiptPolicy {
        response_id: IdBase::Hex,
        tlv_id: IdBase::Hex,
        receipt_id: IdBase::Decimal,
        ..ReceiptPolicy::default()
    };
    let w = world_reading(declared).await;
    let mut ids = Vec::new();
    for i in 0..20 {
        ids.push(w.send("+33612345620", &format!("mixed ids {i}")).await);
    }
    for &id in &ids {
        let r = w.until(id, |r| r.reported_state == DeliveryState::Delivered).await;
        assert!(r.flags.is_empty(), "message {id}: {:?}", r.flags);
    }
    assert_eq!(w.open_exceptions(ExceptionKind::Uncorrelated).await, 0);
    w.stop().await;

    let misread = ReceiptPolicy {
        response_id: IdBase::Hex,
        tlv_id: IdBase::Hex,
        receipt_id: IdBase::Hex,
        ..ReceiptPolicy::default()
    };
    let w = world_reading(misread).await;
    let id = w.send("+33612345620", "mixed ids, text misread").await;
    w.until(id, |r| {
        r.reported_state == DeliveryState::Delivered && r.flags.contains(&"id_disagree")
    })
    .await;
    w.stop().await;
}

/// The SMSC accepts a submit whose answer never comes, and its receipt follows. The receipt waits,
/// then asks a person; attaching it settles the unknown (accepted by evidence), and sending the
/// message again now needs the explicit duplicate confirmation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attaching_a_ghost_receipt_settles_the_unknown_and_a_resend_needs_confirmation() {
    use crate::decisions::{self as exceptions, Action, Resolution};
    use crate::queue::{self, ActionError, DuplicateRisk};
    let w = world().await;
    let id = w.send("+33612345624", "ghost").await;
    w.until(id, |r| r.acceptance == QueueStatus::OutcomeUnknown).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while w.open_exceptions(ExceptionKind::Uncorrelated).await == 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the ghost's receipt never asked a person"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let receipt_exception: i64 = w
        .value(
            "SELECT id FROM exception WHERE kind = 'uncorrelated' AND status = 'open' AND ?1 = ?1",
            0,
        )
        .await;
    let policy = ReceiptPolicy::default();
    w.store
        .writer()
        .write(move |tx| {
            exceptions::resolve(
                tx,
                &Resolution {
                    exception_id: receipt_exception,
                    action: Action::Attach {
                        message_id: id,
                        mismatches_seen: true,
                    },
                    note: "the provider's portal shows it delivered".into(),
                    actor: "ann".into(),
                },
                &policy,
            )
        })
        .await
        .unwrap();
    let r = w.report(id).await;
    assert_eq!(
        (r.acceptance, r.reported_state),
        (QueueStatus::Accepted, DeliveryState::Delivered),
        "accepted by evidence, reported delivered"
    );
    let (status, resolution): (String, String) = w
        .store
        .reader()
        .read(move |c| {
            Ok::<_, StoreError>(c.query_row(
                "SELECT status, resolution FROM exception WHERE message_id = ?1 AND kind = 'outcome_unknown'",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?)
        })
        .await
        .unwrap();
    assert_eq!(
        (status.as_str(), resolution.as_str()),
        ("resolved", "accepted_by_evidence")
    );
    let retry = w
        .store
        .writer()
        .write(move |tx| queue::retry(tx, id, false, queue::RetryLimits::defaults(), "ann", "send it again"))
        .await;
    assert!(
        matches!(retry, Err(ActionError::ConfirmationRequired(DuplicateRisk::Receipt))),
        "{retry:?}"
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        w.sandbox.counts("33612345624", b"ghost"),
        crate::sandbox::Counts {
            submits: 1,
            accepted: 1
        },
        "nothing went out again"
    );
    w.stop().await;
}

/// Receipts that overtake their submit's answer (scenario 10) wait for it quietly: in a stream of
/// them, not one asks a person, and every message ends reported delivered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn receipts_that_overtake_their_answer_never_open_an_exception() {
    let w = world_at(5_000.0, 50).await;
    // Whether a receipt is applied before its answer is recorded is a race the scenario only makes
    // likely: streams go out until some did (the premise), up to five of them.
    let mut overtaken = 0;
    for round in 0..5 {
        let mut ids = Vec::new();
        for i in 0..400 {
            ids.push(w.send("+33612345610", &format!("quick receipt {round}.{i}")).await);
        }
        for &id in &ids {
            w.until(id, |r| r.reported_state == DeliveryState::Delivered).await;
        }
        overtaken = w
            .value::<i64>(
                "SELECT count(*) FROM receipt_outcome o JOIN logical_event e ON e.id = o.logical_event_id
                 JOIN attempt a ON a.message_id = e.message_id AND a.outcome = 'accepted'
                 WHERE o.processed_at < a.responded_at AND ?1 = ?1",
                0,
            )
            .await;
        if overtaken > 0 {
            break;
        }
    }
    assert!(
        overtaken > 0,
        "no receipt was applied before its answer: the test shows nothing"
    );
    let opened: i64 = w
        .value(
            "SELECT count(*) FROM exception WHERE kind = 'uncorrelated' AND ?1 = ?1",
            0,
        )
        .await;
    assert_eq!(
        opened, 0,
        "no exception opened (and closed itself) for a receipt that found its message"
    );
    w.stop().await;
}

/// How many messages stand at each queue status, as "status: n" pairs.
async fn statuses(store: &Store) -> Vec<(String, i64)> {
    store
        .reader()
        .read(|c| {
            let mut s = c.prepare("SELECT status, count(*) FROM queue GROUP BY status ORDER BY status")?;
            let rows = s
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<Vec<_>, _>>()?;
            Ok::<_, StoreError>(rows)
        })
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_refused_for_a_while_leave_no_message_sending_past_its_lease_and_none_sent_twice() {
    let lease = Duration::from_secs(1);
    let config = DispatcherConfig {
        idle_poll: FAST_POLL,
        retry: fast_retries(),
        lease,
        ..Default::default()
    };
    let w = world_configured(100.0, 10, SandboxConfig::default(), ReceiptPolicy::default(), config).await;
    let texts: Vec<String> = (0..200).map(|i| format!("Order {i} shipped")).collect();
    let mut ids = Vec::new();
    for text in &texts {
        ids.push(w.send("+33612345600", text).await);
    }
    let last = *ids.last().unwrap();
    w.until(ids[9], |r| r.acceptance == QueueStatus::Accepted).await;

    // The disk fills mid-stream: every commit fails, for longer than the lease; then there is
    // room again.
    w.store.writer().fail_commits_for_tests(true);
    tokio::time::sleep(lease * 5 / 2).await;
    w.store.writer().fail_commits_for_tests(false);
    let room_again = tokio::time::Instant::now();

    // Every message ends accepted or held for a person; none stays "sending" (the lease, the
    // sweep, and the sends still under way, each within a lease or two).
    loop {
        let now = statuses(&w.store).await;
        let open = now
            .iter()
            .filter(|(s, _)| s == "sending" || s == "queued")
            .map(|(_, n)| n)
            .sum::<i64>();
        if open == 0 {
            break;
        }
        assert!(
            room_again.elapsed() < Duration::from_secs(15),
            "messages left mid-send once writes succeed again: {now:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    w.until(last, |r| r.acceptance != QueueStatus::Sending).await;
    let held = w.open_exceptions(ExceptionKind::OutcomeUnknown).await;
    let settled = statuses(&w.store).await;
    assert_eq!(
        settled.iter().map(|(_, n)| n).sum::<i64>(),
        200,
        "every message is somewhere: {settled:?}"
    );
    let unknown: i64 = settled
        .iter()
        .filter(|(s, _)| s == "outcome_unknown")
        .map(|(_, n)| *n)
        .sum();
    assert_eq!(
        held, unknown,
        "each message whose outcome is unknown is held with its exception"
    );
    let recovered: i64 = w
        .store
        .reader()
        .read(|c| {
            Ok::<_, StoreError>(c.query_row(
                "SELECT count(*) FROM audit WHERE action = 'queue.recovered'",
                [],
                |r| r.get(0),
            )?)
        })
        .await
        .unwrap();
    assert!(
        recovered > 0,
        "sends cut short by the refused writes were recovered while running"
    );
    for (id, text) in ids.iter().zip(&texts) {
        let counts = w.sandbox.counts("33612345600", text.as_bytes());
        assert!(counts.accepted <= 1, "message {id} accepted {} times", counts.accepted);
        if w.report(*id).await.acceptance == QueueStatus::OutcomeUnknown {
            assert_eq!(counts.submits, 1, "message {id}: an unknown outcome is never resent");
        }
    }
    w.stop().await;
}

/// A world whose sandbox answers each submit after `answer_in` (within the session's 300 ms), with
/// leases of `lease`.
async fn world_answering_in(answer_in: Duration, lease: Duration) -> World {
    let config = DispatcherConfig {
        idle_poll: FAST_POLL,
        retry: fast_retries(),
        lease,
        ..Default::default()
    };
    let sandbox = SandboxConfig {
        response_delay: answer_in,
        ..SandboxConfig::default()
    };
    world_configured(500.0, 10, sandbox, ReceiptPolicy::default(), config).await
}

/// Queues one message and waits until its try is recorded (so its PDU is being written) and its
/// answer not yet; then every commit fails for `outage`, as on a full disk.
async fn answer_during_an_outage(w: &World, text: &str, outage: Duration) -> i64 {
    let id = w.send("+33612345600", text).await;
    let started = tokio::time::Instant::now();
    while w.attempts(id).await == 0 {
        assert!(started.elapsed() < Duration::from_secs(10), "message {id} never tried");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    w.store.writer().fail_commits_for_tests(true);
    tokio::time::sleep(outage).await;
    w.store.writer().fail_commits_for_tests(false);
    id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_the_full_disk_could_not_record_at_once_is_recorded_once_there_is_room() {
    let w = world_answering_in(Duration::from_millis(150), Duration::from_secs(10)).await;
    let id = answer_during_an_outage(&w, "Answered while full", Duration::from_millis(1_500)).await;
    let r = w.until(id, |r| r.acceptance != QueueStatus::Sending).await;
    assert_eq!(
        r.acceptance,
        QueueStatus::Accepted,
        "the SMSC's answer is kept, not guessed at"
    );
    let provider_id: Option<String> = w
        .value("SELECT provider_message_id FROM attempt WHERE message_id = ?1", id)
        .await;
    assert!(provider_id.is_some(), "with the provider's id, for its receipts");
    assert_eq!(w.attempts(id).await, 1);
    assert_eq!(w.open_exceptions(ExceptionKind::OutcomeUnknown).await, 0);
    assert_eq!(w.sandbox.counts("33612345600", b"Answered while full").submits, 1);
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_still_unrecorded_after_a_lease_is_held_as_unknown_while_running_never_resent() {
    let lease = Duration::from_secs(1);
    let w = world_answering_in(Duration::from_millis(150), lease).await;
    let id = answer_during_an_outage(&w, "Lost in the outage", lease * 3).await;
    let r = w
        .until_within(id, lease * 10, |r| r.acceptance != QueueStatus::Sending)
        .await;
    assert_eq!(
        r.acceptance,
        QueueStatus::OutcomeUnknown,
        "a written submit whose answer was never recorded is held for a person"
    );
    assert_eq!(w.open_exceptions(ExceptionKind::OutcomeUnknown).await, 1);
    let error: String = w.value("SELECT error FROM attempt WHERE message_id = ?1", id).await;
    assert!(error.contains("could not be recorded"), "{error}");
    tokio::time::sleep(lease * 2).await;
    assert_eq!(
        w.sandbox.counts("33612345600", b"Lost in the outage").submits,
        1,
        "never resent by itself"
    );
    w.stop().await;
}

/// The receipt's `text:` echo is the first bytes the SMSC got: GSM codes for é and the escape of
/// €, raw UTF-16 for a UCS-2 text. None of that is a mismatch: only messages whose receipts
/// disagree with them need a look.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accented_euro_and_emoji_texts_whose_receipts_agree_raise_no_mismatch() {
    let texts = [
        "Réservation confirmée à 10h",
        "Votre commande est prête",
        "Total 10€ TTC, merci",
        "Ваш код 4821",
        "À demain 🙂",
        "Your parcel is on its way",
        "Rendez-vous lundi",
        "Ihr Paket ist da: Straße 5",
        "Código 7731 válido",
        "Your code is 1234",
    ];
    let w = world().await;
    let mut ids = Vec::new();
    for text in texts {
        ids.push(w.send("+33612345600", text).await);
    }
    for (text, id) in texts.iter().zip(&ids) {
        let r = w.until(*id, |r| r.reported_state == DeliveryState::Delivered).await;
        assert!(!r.flags.contains(&"mismatch"), "{text:?} was flagged: {:?}", r.flags);
    }
    w.stop().await;
}

/// "Needs a look" means needs a look: every scenario in which the SMSC's reports agree, each with
/// ten texts of which three are accented, carry a euro sign or an emoji (30 %), raises nothing a
/// person must look at (a repeat or a late intermediate is noted, not flagged), while the
/// incompatible finals of scenario 07, with the same texts, are all flagged.
#[tokio::test]
async fn every_agreeing_scenario_with_accented_euro_and_emoji_texts_flags_nothing() {
    use crate::domain::DeliveryState as S;
    const TEXTS: [&str; 10] = [
        "Réservation confirmée à 10h",
        "Your parcel is on its way",
        "Total 10€ TTC, merci",
        "Your code is 1234",
        "Rendez-vous lundi 9h30",
        "À demain 🙂",
        "Order 42 has shipped",
        "Appointment moved to Friday",
        "Table for 4 at 8 pm",
        "Pickup point: 12 Main Street",
    ];
    const AGREEING: [(&str, S); 11] = [
        ("00", S::Delivered),
        ("01", S::Undeliverable),
        ("02", S::Expired),
        ("03", S::Rejected),
        ("04", S::Delivered),
        ("05", S::Delivered),
        ("06", S::Delivered),
        ("10", S::Delivered),
        ("11", S::Delivered),
        ("12", S::Delivered),
        ("14", S::Delivered),
    ];
    const ATTENTION: [&str; 4] = ["conflict", "no_receipt", "mismatch", "id_disagree"];
    let w = world().await;
    let mut sent = Vec::new();
    for (scenario, state) in AGREEING {
        for text in TEXTS {
            sent.push((
                w.send(&format!("+336123456{scenario}"), text).await,
                scenario,
                state,
                text,
            ));
        }
    }
    let mut conflicts = Vec::new();
    for text in TEXTS {
        conflicts.push(w.send("+33612345607", text).await);
    }
    let mut flagged = Vec::new();
    for &(id, scenario, state, text) in &sent {
        let r = w
            .until_within(id, Duration::from_secs(30), |r| r.reported_state == state)
            .await;
        if r.flags.iter().any(|f| ATTENTION.contains(f)) {
            flagged.push(format!("{scenario} {text:?}: {:?}", r.flags));
        }
    }
    for &id in &conflicts {
        w.until_within(id, Duration::from_secs(30), |r| r.flags.contains(&"conflict"))
            .await;
    }
    // The repeats and late reports have arrived by now: they still flag nothing.
    for &(id, scenario, _, text) in &sent {
        let r = w.report(id).await;
        if r.flags.iter().any(|f| ATTENTION.contains(f)) && !flagged.iter().any(|f| f.starts_with(scenario)) {
            flagged.push(format!("{scenario} {text:?}: {:?}", r.flags));
        }
    }
    let non_ascii = sent.iter().filter(|(.., text)| !text.is_ascii()).count();
    println!(
        "false alarms: {} messages in {} agreeing scenarios ({non_ascii} with accents, € or emoji), {} flagged; {} with incompatible finals, all flagged",
        sent.len(),
        AGREEING.len(),
        flagged.len(),
        conflicts.len()
    );
    assert_eq!(
        flagged,
        Vec::<String>::new(),
        "messages whose receipts agree were flagged"
    );
    w.stop().await;
}
