//! The first request after a start does not wait for what the engine could have made ready as it
//! started. The numbering data (some 80 ms to load) is loaded by the start itself, before any
//! message is handed in. A process of its own: nothing else here may read a number first.

use std::time::{Duration, Instant};

use smsdesk_engine::api::RunMode;
use smsdesk_engine::engine::Prepared;
use smsdesk_engine::{Engine, EngineOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_numbering_data_is_loaded_as_the_engine_starts_before_any_request() {
    assert!(
        !smsdesk_engine::intake::numbering_ready(),
        "nothing has started yet in this process"
    );
    let tmp = tempfile::tempdir().unwrap();
    let env = vec![
        ("SMSDESK_HTTP_PORT".to_owned(), "0".to_owned()),
        ("SMSDESK_INTAKE_DEFAULT_REGION".to_owned(), "BE".to_owned()),
    ];
    let prepared = Prepared::load(tmp.path().join("data"), env).unwrap();
    let options = EngineOptions {
        mode: RunMode::Serve,
        http_port: None,
        door: None,
    };
    let engine = Engine::start(prepared, options).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !smsdesk_engine::intake::numbering_ready() {
        assert!(
            Instant::now() < deadline,
            "the numbering data was not loaded after the start"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    engine.shutdown().await;
}
