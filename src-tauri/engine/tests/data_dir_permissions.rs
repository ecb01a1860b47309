//! The data directory holds one-time codes, webhook signing secrets and callback secrets: other
//! users of the computer must not read it. Its own run proves it (the process's umask is part of
//! what is tested, so these tests have a process of their own).
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use smsdesk_engine::api::RunMode;
use smsdesk_engine::engine::Prepared;
use smsdesk_engine::{Engine, EngineOptions};
use smsdesk_store::Store;

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777
}

/// Every file and folder under `root` (itself included), with its mode.
fn modes(root: &Path) -> Vec<(PathBuf, u32)> {
    let mut out = vec![(root.to_owned(), mode(root))];
    for entry in std::fs::read_dir(root).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(modes(&path));
        } else {
            out.push((path.clone(), mode(&path)));
        }
    }
    out
}

fn options() -> EngineOptions {
    EngineOptions {
        mode: RunMode::Serve,
        http_port: None,
        door: None,
    }
}

fn env() -> Vec<(String, String)> {
    vec![("SMSDESK_HTTP_PORT".to_owned(), "0".to_owned())]
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_file_a_run_creates_in_the_data_directory_is_readable_by_its_owner_only() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("data");
    let prepared = Prepared::load(root.clone(), env()).unwrap();
    let _log = smsdesk_engine::logging::init(&prepared.dir.logs(), &prepared.config.log).unwrap();
    tracing::warn!("a line, so the day's log file exists");
    let engine = Engine::start(prepared, options()).await.unwrap();
    let store = engine.store().clone();
    store
        .writer()
        .write(|tx| {
            tx.audit().append(&smsdesk_store::tables::NewAudit::new(
                "test",
                smsdesk_engine::audit::AuditAction::SettingsUpdate,
            ))
        })
        .await
        .unwrap();
    // While it runs: the database with its -wal and -shm, the config, the lock, the instance
    // file, the operator token, the log file.
    let running = modes(&root);
    for name in ["smsdesk.db", "smsdesk.db-wal", "smsdesk.db-shm", "smsdesk.toml", "logs"] {
        assert!(
            running.iter().any(|(p, _)| p.ends_with(name)),
            "{name} exists while running: {running:?}"
        );
    }
    assert!(
        running
            .iter()
            .any(|(p, _)| p.parent().is_some_and(|d| d.ends_with("logs"))),
        "a log file exists: {running:?}"
    );
    for (path, m) in &running {
        assert_eq!(
            m & 0o077,
            0,
            "{} is {m:o}: other users of the computer must not read or enter anything in the data directory",
            path.display()
        );
    }
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_data_directory_left_open_to_other_users_is_closed_at_start_and_what_changed_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("data");
    std::fs::create_dir_all(root.join("logs")).unwrap();
    // As an earlier version left it: the database (and so its -wal and -shm), the config with a
    // callback secret in it and the logs, all readable by everyone.
    tokio::task::spawn_blocking({
        let db = root.join("smsdesk.db");
        move || Store::open(&db).unwrap().shutdown()
    })
    .await
    .unwrap();
    std::fs::write(
        root.join("smsdesk.toml"),
        "[callbacks]\nproviders = { vonage = { secret = \"s3cret-callback-of-vonage\" } }\n",
    )
    .unwrap();
    std::fs::write(root.join("logs/smsdesk.2026-01-01.log"), "an old line\n").unwrap();
    for (path, m) in modes(&root) {
        chmod(&path, if path.is_dir() { m | 0o755 } else { 0o644 });
    }
    let open: Vec<PathBuf> = modes(&root).into_iter().map(|(p, _)| p).collect();

    let prepared = Prepared::load(root.clone(), env()).unwrap();
    let named: Vec<PathBuf> = prepared.permissions.tightened.iter().map(|t| t.path.clone()).collect();
    for path in &open {
        assert!(
            named.contains(path),
            "{} was open to others: what was changed is named, to be logged ({named:?})",
            path.display()
        );
    }
    let engine = Engine::start(prepared, options()).await.unwrap();
    for (path, m) in modes(&root) {
        let want = if path.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(m, want, "{} must be {want:o} after a start, is {m:o}", path.display());
    }
    engine.shutdown().await;
}
