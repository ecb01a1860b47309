//! One engine per database file: a second engine whose configuration reaches a live database
//! through another data directory (`[store] database`, as `SMSDESK_STORE_DATABASE` sets it) is
//! refused before it opens the database, naming the first (its process and address), however the
//! path is spelled or the file reached (a hard link); the first goes on untouched. A holder on
//! another computer, which the lock on the file does not reach, is seen by its heartbeat inside
//! the database: refused while it beats, taken over once it stopped; an engine whose row was
//! taken over stops sending. And a database file the store cannot trust refuses the start,
//! naming the file.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use smsdesk_engine::api::RunMode;
use smsdesk_engine::door::{Door, DoorContext, Serving};
use smsdesk_engine::engine::{EngineError, Prepared};
use smsdesk_engine::instance::InstanceError;
use smsdesk_engine::{Engine, EngineOptions};
use smsdesk_store::tables::instance::{self, NewHolder};
use smsdesk_store::{Store, StoreError};

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
        std::fs::hard_link(&live, b.join("hard.db")).unwrap();
        spellings.push("link.db".to_owned());
        spellings.push(tmp.path().join("alias/smsdesk.db").display().to_string());
        spellings.push("hard.db".to_owned());
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

/// The holder another computer's engine writes (another kernel's boot id).
fn elsewhere() -> NewHolder {
    NewHolder {
        token: "run-elsewhere".into(),
        pid: 4242,
        host: "office-server-2".into(),
        boot_id: "another-kernel".into(),
        data_dir: "/srv/smsdesk".into(),
    }
}

/// Writes a holder row as another computer's engine would (another kernel's boot id), and keeps
/// its counter moving every `every` until `stop` turns true.
fn another_computer(db: &Path, stop: Arc<AtomicBool>, every: Duration) -> std::thread::JoinHandle<()> {
    let store = Arc::new(Store::open(db).unwrap());
    let new = elsewhere();
    let (claimed, is_claimed) = std::sync::mpsc::channel();
    let beating = std::thread::spawn(move || {
        store
            .writer()
            .write_blocking(move |tx| instance::claim(tx, &new, |_| true))
            .unwrap()
            .unwrap();
        // As a running holder's checkpoints do: the row is in the file itself.
        store.checkpoint_truncate().unwrap();
        claimed.send(()).unwrap();
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(every);
            store
                .writer()
                .write_blocking(|tx| instance::beat(tx, "run-elsewhere"))
                .unwrap();
        }
        // It dies: no clean stop, the row stays as it was.
        store.shutdown();
    });
    is_claimed.recv().unwrap();
    beating
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_holder_on_another_computer_is_refused_while_it_beats_and_taken_over_once_it_stopped() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    start(&a, None).await.unwrap().shutdown().await;
    let db = a.join("smsdesk.db");
    let stop = Arc::new(AtomicBool::new(false));
    let beating = another_computer(&db, stop.clone(), Duration::from_millis(500));

    let err = match start(&a, None).await {
        Ok(second) => {
            second.shutdown().await;
            panic!("an engine started while another computer's holder beats");
        }
        Err(e) => e,
    };
    let message = err.to_string();
    assert!(
        matches!(err, EngineError::Instance(InstanceError::DatabaseInUse { .. })),
        "{message}"
    );
    for named in ["process 4242", "office-server-2", "/srv/smsdesk", "another computer"] {
        assert!(
            message.contains(named),
            "the refusal names the holder ({named}): {message}"
        );
    }

    stop.store(true, Ordering::Relaxed);
    beating.join().unwrap();
    let started = std::time::Instant::now();
    let engine = start(&a, None)
        .await
        .expect("a holder whose heartbeat stopped is taken over");
    assert!(
        started.elapsed() >= smsdesk_engine::instance::STALE,
        "a counter must stand still for the whole stale period before its row is taken over"
    );
    let holder = engine.store().reader().read(instance::current).await.unwrap().unwrap();
    assert_eq!(
        (holder.pid, holder.released_at_ms),
        (std::process::id(), None),
        "the row names the engine that took it over"
    );
    engine.shutdown().await;
}

/// The queue status of message `id`, as the engine's store has it.
async fn queue_status(engine: &Engine, id: i64) -> smsdesk_engine::domain::QueueStatus {
    engine
        .store()
        .reader()
        .read(move |c| smsdesk_engine::views::message_detail(c, id))
        .await
        .unwrap()
        .unwrap()
        .queue
        .status
}

/// Queues a message to the sandbox, as the command line does.
async fn queue_one(engine: &Engine, text: &str) -> i64 {
    use smsdesk_engine::domain::{IntakeChannel, MessageKind};
    use smsdesk_engine::messages::{self, NewMessage};
    let m = NewMessage::text(
        IntakeChannel::Cli,
        "+33612345600",
        text,
        MessageKind::Transactional,
        &engine.connection(),
    );
    engine
        .store()
        .writer()
        .write(move |tx| messages::insert(tx, &m))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_whose_row_another_took_over_stops_sending() {
    use smsdesk_engine::domain::QueueStatus;
    let tmp = tempfile::tempdir().unwrap();
    let engine = crate::common::bound_engine(tmp.path()).await;
    let before = queue_one(&engine, "Sent while the row is ours").await;
    tokio::time::timeout(Duration::from_secs(15), async {
        while queue_status(&engine, before).await != QueueStatus::Accepted {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("while the engine holds the row, it sends");

    // Another computer's engine judged this one dead (its beats did not reach the file it reads)
    // and took the row over: from the next heartbeat on, this engine must not send.
    let new = elsewhere();
    engine
        .store()
        .writer()
        .write(move |tx| instance::claim(tx, &new, |_| true))
        .await
        .unwrap()
        .unwrap();
    tokio::time::sleep(smsdesk_engine::instance::HEARTBEAT + Duration::from_secs(2)).await;
    let after = queue_one(&engine, "Queued once the row was lost").await;
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(
        queue_status(&engine, after).await,
        QueueStatus::Queued,
        "an engine that lost the row sends nothing more: two senders on one queue send twice"
    );
    let holder = engine.store().reader().read(instance::current).await.unwrap().unwrap();
    assert_eq!(holder.pid, 4242, "the row stays the new holder's");
    engine.shutdown().await;
}
