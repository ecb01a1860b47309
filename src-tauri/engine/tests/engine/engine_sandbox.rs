//! The engine as `smsdesk serve` runs it, on its default configuration: the embedded sandbox SMSC
//! is the connection, so a queued message goes out over SMPP and its receipt comes back, at the
//! sandbox's own pace rather than the provider account's limits.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use smsdesk_engine::access::Caller;
use smsdesk_engine::api::RunMode;
use smsdesk_engine::domain::{DeliveryState, IntakeChannel, MessageKind, QueueStatus};
use smsdesk_engine::engine::Prepared;
use smsdesk_engine::messages::{self, NewMessage};
use smsdesk_engine::pace::{PaceConnection, SANDBOX_TPS, SANDBOX_WINDOW};
use smsdesk_engine::sandbox::{Sandbox, SandboxConfig};
use smsdesk_engine::settings::SettingsUpdate;
use smsdesk_engine::views;
use smsdesk_engine::{Engine, EngineOptions};

use crate::common::wait_bound;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_first_run_a_message_goes_to_the_sandbox_and_is_reported_delivered() {
    let dir = tempfile::tempdir().unwrap();
    let env = [("SMSDESK_HTTP_PORT".to_owned(), "0".to_owned())];
    let prepared = Prepared::load(dir.path().to_owned(), env).unwrap();
    assert!(prepared.config.smpp.sandbox, "the sandbox is the default connection");
    let engine = Engine::start(
        prepared,
        EngineOptions {
            mode: RunMode::Serve,
            http_port: None,
            door: None,
        },
    )
    .await
    .unwrap();
    assert_eq!(engine.connection(), "sandbox");
    wait_bound(&engine).await;

    let m = NewMessage::text(
        IntakeChannel::Cli,
        "+33612345600",
        "Welcome to smsdesk",
        MessageKind::Transactional,
        &engine.connection(),
    );
    let id = engine
        .store()
        .writer()
        .write(move |tx| messages::insert(tx, &m))
        .await
        .unwrap();
    let store = engine.store().clone();
    let r = tokio::time::timeout(Duration::from_secs(15), async move {
        loop {
            let r = store
                .reader()
                .read(move |c| views::message_detail(c, id))
                .await
                .unwrap()
                .unwrap();
            if r.state.state == DeliveryState::Delivered {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the sandbox's receipt reaches the message");
    assert_eq!(r.queue.status, QueueStatus::Accepted);
    engine.shutdown().await;
}

/// An engine on a fresh data directory whose config file is `toml`, with its session bound.
async fn bound_engine(dir: &tempfile::TempDir, toml: &str) -> Engine {
    std::fs::write(dir.path().join("smsdesk.toml"), toml).unwrap();
    crate::common::bound_engine(dir.path()).await
}

/// Saves `values` as the settings screen does, applied while the engine runs.
async fn change(engine: &Engine, values: &[(&str, &str)]) -> bool {
    let values: BTreeMap<String, String> = values.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect();
    let saved = engine
        .service()
        .update_settings(
            &Caller::window(),
            SettingsUpdate {
                values,
                ..SettingsUpdate::default()
            },
        )
        .await
        .unwrap();
    saved.reconnected
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sandbox_sends_at_its_own_pace_and_a_provider_at_the_accounts_limits() {
    let dir = tempfile::tempdir().unwrap();
    let engine = bound_engine(&dir, "[smpp]\nwindow = 4\ntps = 5\n").await;
    let sandbox_limits = (SANDBOX_WINDOW as usize, f64::from(SANDBOX_TPS));
    assert_eq!(
        engine.session().unwrap().limits(),
        sandbox_limits,
        "smpp.window and smpp.tps are the provider account's, not the sandbox's"
    );
    let pace = engine.service().pace().await.unwrap();
    assert_eq!(
        (pace.connection, pace.window, pace.tps_limit, pace.max_rate_per_s),
        (PaceConnection::Sandbox, SANDBOX_WINDOW, SANDBOX_TPS, SANDBOX_TPS)
    );

    // Limits changed while running apply to the running session by the same rule.
    assert!(!change(&engine, &[("smpp.window", "7"), ("smpp.tps", "3")]).await);
    assert_eq!(
        engine.session().unwrap().limits(),
        sandbox_limits,
        "the sandbox keeps its pace"
    );

    // The provider (another SMSC on this computer) is sent to at the account's limits.
    let provider = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let port = provider.addr().port().to_string();
    assert!(
        change(
            &engine,
            &[
                ("smpp.sandbox", "false"),
                ("smpp.host", "127.0.0.1"),
                ("smpp.port", &port)
            ]
        )
        .await
    );
    wait_bound(&engine).await;
    assert_eq!(engine.session().unwrap().limits(), (7, 3.0));
    let pace = engine.service().pace().await.unwrap();
    assert_eq!(
        (pace.connection, pace.window, pace.tps_limit, pace.max_rate_per_s),
        (PaceConnection::Provider, 7, 3, 3)
    );
    assert_eq!(
        (pace.sandbox_window, pace.sandbox_tps_limit),
        (SANDBOX_WINDOW, SANDBOX_TPS)
    );
    assert!(!change(&engine, &[("smpp.tps", "40")]).await);
    assert_eq!(
        engine.session().unwrap().limits(),
        (7, 40.0),
        "and follows them as they change"
    );

    // Back to the sandbox: its own pace again.
    assert!(change(&engine, &[("smpp.sandbox", "true")]).await);
    assert_eq!(engine.session().unwrap().limits(), sandbox_limits);
    engine.shutdown().await;
    provider.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_to_the_sandbox_goes_out_far_faster_than_the_provider_default_of_ten_a_second() {
    const BURST: i64 = 200;
    let dir = tempfile::tempdir().unwrap();
    // The provider defaults (window 10, tps 10) are in the settings: at 10/s the burst would take
    // 20 s at the very least.
    let engine = bound_engine(&dir, "").await;
    let before = engine.service().pace().await.unwrap();
    assert_eq!((before.queued, before.eta_seconds), (0, 0));

    let connection = engine.connection();
    let ids = engine
        .store()
        .writer()
        .write(move |tx| {
            (0..BURST)
                .map(|i| {
                    // Numbers ending in 00: the sandbox's plain "accepted, then delivered".
                    let m = NewMessage::text(
                        IntakeChannel::Cli,
                        &format!("+336{i:06}00"),
                        "Your order has shipped",
                        MessageKind::Bulk,
                        &connection,
                    );
                    messages::insert(tx, &m)
                })
                .collect::<Result<Vec<i64>, _>>()
        })
        .await
        .unwrap();
    assert_eq!(ids.len() as i64, BURST);

    let started = Instant::now();
    let bound = Duration::from_secs(15);
    let counts = loop {
        let queue = queue_counts(&engine).await;
        if queue.get(&QueueStatus::Accepted) == Some(&BURST) || started.elapsed() > bound {
            break queue;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(
        counts.get(&QueueStatus::Accepted),
        Some(&BURST),
        "all {BURST} accepted within {bound:?} (at 10/s it takes 20 s): {counts:?}"
    );
    assert_eq!(
        counts.values().sum::<i64>(),
        BURST,
        "nothing failed, held or left: {counts:?}"
    );
    let db = rusqlite::Connection::open(&engine.info().database_path).unwrap();
    let (attempts, messages): (i64, i64) = db
        .query_row(
            "SELECT count(*), count(DISTINCT message_id) FROM attempt WHERE outcome = 'accepted'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        (attempts, messages),
        (BURST, BURST),
        "one accepted submit per message, none twice"
    );

    let after = engine.service().pace().await.unwrap();
    assert_eq!((after.queued, after.eta_seconds), (0, 0), "nothing left to send");
    assert!(after.sent_last_minute_per_s > 0.0, "{after:?}");
    engine.shutdown().await;
}

/// Messages by queue status, as the dashboard counts them.
async fn queue_counts(engine: &Engine) -> BTreeMap<QueueStatus, i64> {
    let d = engine.service().dashboard().await.unwrap();
    d.queue
        .into_iter()
        .filter(|q| q.count > 0)
        .map(|q| (q.status, q.count))
        .collect()
}
