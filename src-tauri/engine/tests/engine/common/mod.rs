//! What the engine's integration tests share: an engine started as `smsdesk serve` starts it (on
//! a port the system picks), on a data directory of the test's own, with its SMPP session bound.

use std::path::Path;
use std::time::Duration;

use smsdesk_engine::api::RunMode;
use smsdesk_engine::engine::Prepared;
use smsdesk_engine::smpp::session::LinkState;
use smsdesk_engine::{Engine, EngineOptions};

/// An engine on `dir` (its config file, if the test wrote one), once its session is bound.
pub async fn bound_engine(dir: &Path) -> Engine {
    let env = [("SMSDESK_HTTP_PORT".to_owned(), "0".to_owned())];
    let prepared = Prepared::load(dir.to_owned(), env).unwrap();
    let options = EngineOptions {
        mode: RunMode::Serve,
        http_port: None,
        door: None,
    };
    let engine = Engine::start(prepared, options).await.unwrap();
    wait_bound(&engine).await;
    engine
}

/// Waits (10 s at most) until the engine's SMPP session is bound.
pub async fn wait_bound(engine: &Engine) {
    let mut link = engine.session().unwrap().state();
    tokio::time::timeout(
        Duration::from_secs(10),
        link.wait_for(|s| matches!(s, LinkState::Bound { .. })),
    )
    .await
    .expect("the session binds")
    .unwrap();
}
