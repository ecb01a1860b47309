//! One engine per database file: a second engine whose configuration reaches a live database
//! through another data directory (`[store] database`, as `SMSDESK_STORE_DATABASE` sets it) is
//! refused before it opens the database, naming the first (its process and address), however the
//! path is spelled; the first goes on untouched. And a database file the store cannot trust
//! refuses the start, naming the file.

use std::net::SocketAddr;
use std::path::Path;

use smsdesk_engine::api::RunMode;
use smsdesk_engine::door::{Door, DoorContext, Serving};
use smsdesk_engine::engine::{EngineError, Prepared};
use smsdesk_engine::instance::InstanceError;
use smsdesk_engine::{Engine, EngineOptions};
use smsdesk_store::StoreError;

/// A door that listens (so the engine has an address to publish) and answers nothing.
struct Closed;

impl Door for Closed {
    fn serve(
        &self,
        _listener: tokio::net::TcpListener,
        _ctx: DoorContext,
        shutdown: tokio::sync::oneshot::Receiver<()>,
    ) -> Serving {
        Box::pin(async move {
            let _ = shutdown.await;
            Ok(())
        })
    }
}

async fn start(dir: &Path, database: Option<&str>) -> Result<Engine, EngineError> {
    let mut env = vec![("SMSDESK_HTTP_PORT".to_owned(), "0".to_owned())];
    if let Some(db) = database {
        env.push(("SMSDESK_STORE_DATABASE".to_owned(), db.to_owned()));
    }
    let prepared = Prepared::load(dir.to_owned(), env).unwrap();
    let options = EngineOptions {
        mode: RunMode::Serve,
        http_port: None,
        door: Some(std::sync::Arc::new(Closed)),
    };
    Engine::start(prepared, options).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_engine_on_a_live_database_is_refused_however_its_path_is_spelled() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let first = start(&a, None).await.unwrap();
    let url = first.info().http_url.clone().unwrap();
    let url_addr: SocketAddr = url.trim_start_matches("http://").parse().unwrap();
    assert_ne!(url_addr.port(), 0);
    let live = a.join("smsdesk.db");

    let mut spellings = vec![live.display().to_string(), "../a/smsdesk.db".to_owned()];
    #[cfg(unix)]
    {
        std::fs::create_dir_all(&b).unwrap();
        std::os::unix::fs::symlink(&live, b.join("link.db")).unwrap();
        std::os::unix::fs::symlink(&a, tmp.path().join("alias")).unwrap();
        spellings.push("link.db".to_owned());
        spellings.push(tmp.path().join("alias/smsdesk.db").display().to_string());
    }
    for database in &spellings {
        let err = match start(&b, Some(database)).await {
            Ok(second) => {
                second.shutdown().await;
                panic!("a second engine started on the live database as {database}");
            }
            Err(e) => e,
        };
        assert!(
            matches!(err, EngineError::Instance(InstanceError::DatabaseInUse { .. })),
            "{database}: {err:?}"
        );
        let message = err.to_string();
        assert!(
            message.contains(&format!("process {}", std::process::id())),
            "{message}"
        );
        assert!(message.contains(&url), "names where the first listens: {message}");
    }
    // The first goes on: it still writes.
    first
        .store()
        .writer()
        .probe()
        .await
        .expect("the first engine still writes");
    first.shutdown().await;

    let second = start(&b, Some("../a/smsdesk.db"))
        .await
        .expect("once the first has stopped, the database is free");
    second.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_refuses_to_start_on_a_database_file_it_cannot_trust() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, content) in [("empty", &b""[..]), ("text", &b"order,phone\n7,+33612345678\n"[..])] {
        let dir = tmp.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("smsdesk.db"), content).unwrap();
        let err = match start(&dir, None).await {
            Ok(e) => {
                e.shutdown().await;
                panic!("{name}: started on a database it cannot trust");
            }
            Err(e) => e,
        };
        assert!(
            matches!(err, EngineError::Store(StoreError::Unusable { .. })),
            "{name}: {err:?}"
        );
        let message = err.to_string();
        assert!(
            message.contains(&dir.join("smsdesk.db").display().to_string()),
            "{message}"
        );
        assert!(message.contains("Restore it from a backup"), "{message}");
        assert_eq!(
            std::fs::read(dir.join("smsdesk.db")).unwrap(),
            content,
            "{name}: left as it was"
        );
        // The refused start let go of the data directory: it starts on another database.
        start(&dir, Some("fresh.db")).await.unwrap().shutdown().await;
    }
}
