//! The engine as `smsdesk serve` runs it, on its default configuration: the embedded sandbox SMSC
//! is the connection, so a queued message goes out over SMPP and its receipt comes back.

use std::time::Duration;

use smsdesk_engine::api::RunMode;
use smsdesk_engine::domain::{DeliveryState, IntakeChannel, MessageKind, QueueStatus};
use smsdesk_engine::engine::Prepared;
use smsdesk_engine::messages::{self, NewMessage};
use smsdesk_engine::smpp::session::LinkState;
use smsdesk_engine::views;
use smsdesk_engine::{Engine, EngineOptions};

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
    let mut link = engine.session().unwrap().state();
    tokio::time::timeout(
        Duration::from_secs(10),
        link.wait_for(|s| matches!(s, LinkState::Bound { .. })),
    )
    .await
    .expect("the session binds to the sandbox")
    .unwrap();

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
