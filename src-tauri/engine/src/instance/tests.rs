//! The locks, with real files and a real database: a second holder of the data directory or of
//! the database is refused however it reached it (another spelling, a symbolic link, a hard
//! link), naming the holder; a copy reads beside a holder of the same name and is refused through
//! another; the row inside the database is claimed, beaten and released.

use super::*;

fn info(pid: u32, url: &str) -> InstanceInfo {
    InstanceInfo {
        pid,
        mode: RunMode::Serve,
        version: "x".into(),
        http_url: Some(url.into()),
        started_at_ms: 0,
    }
}

#[test]
fn a_second_instance_on_the_same_data_directory_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = DataDir::new(tmp.path());
    let db = dir.database("smsdesk.db");
    let first = InstanceLock::acquire(&dir, &db).unwrap();
    first.publish(&info(42, "http://127.0.0.1:1")).unwrap();
    let err = InstanceLock::acquire(&dir, &db).unwrap_err().to_string();
    assert!(
        err.contains("already running") && err.contains("http://127.0.0.1:1"),
        "{err}"
    );
    drop(first);
    assert!(!dir.instance_file().exists(), "instance.json must go with the instance");
    InstanceLock::acquire(&dir, &db).expect("the lock must be free once the first instance is gone");
}

/// The refusal a second data directory gets for `database` while `first` holds it.
fn refused(second: &DataDir, database: &Path) -> String {
    match InstanceLock::acquire(second, database) {
        Err(e @ InstanceError::DatabaseInUse { .. }) => e.to_string(),
        other => panic!(
            "{} must be refused while the first holds it: {other:?}",
            database.display()
        ),
    }
}

#[test]
fn a_database_in_use_is_refused_through_another_data_directory_however_its_path_is_spelled() {
    let tmp = tempfile::tempdir().unwrap();
    let a = DataDir::new(tmp.path().join("a"));
    let b = DataDir::new(tmp.path().join("b"));
    std::fs::create_dir_all(b.root()).unwrap();
    let first = InstanceLock::acquire(&a, &a.database("smsdesk.db")).unwrap();
    first.publish(&info(std::process::id(), "http://127.0.0.1:7")).unwrap();

    let mut spellings = vec![
        a.database("smsdesk.db"),
        b.database("../a/smsdesk.db"),
        b.database("../a/./smsdesk.db"),
    ];
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(a.database("smsdesk.db"), b.database("link.db")).unwrap();
        std::os::unix::fs::symlink(a.root(), tmp.path().join("alias")).unwrap();
        spellings.push(b.database("link.db"));
        spellings.push(tmp.path().join("alias").join("smsdesk.db"));
    }
    for database in spellings {
        let err = refused(&b, &database);
        assert!(
            err.contains(&format!("process {}", std::process::id())),
            "names the holder: {err}"
        );
        assert!(err.contains("http://127.0.0.1:7"), "says where it listens: {err}");
        assert!(
            err.contains(&a.root().display().to_string()),
            "names its data directory: {err}"
        );
        assert!(
            !b.instance_file().exists(),
            "a refused start publishes nothing in its own data directory"
        );
    }
    // The first holds the database before the database exists: a new database is one too.
    assert!(!a.database("smsdesk.db").exists());
    drop(first);
    InstanceLock::acquire(&b, &b.database("../a/smsdesk.db")).expect("the database is free once its holder is gone");
}

#[test]
fn a_database_held_by_a_command_line_tool_is_refused_naming_its_process() {
    let tmp = tempfile::tempdir().unwrap();
    let a = DataDir::new(tmp.path().join("a"));
    let b = DataDir::new(tmp.path().join("b"));
    std::fs::create_dir_all(b.root()).unwrap();
    let _tool = InstanceLock::acquire(&a, &a.database("smsdesk.db")).unwrap();
    let err = refused(&b, &b.database("../a/smsdesk.db"));
    assert!(err.contains(&format!("process {}", std::process::id())), "{err}");
    assert!(!err.contains("open http"), "a tool does not listen: {err}");
}

/// A database held as an engine holds it: both locks, the row claimed and its address in it.
fn hold(dir: &DataDir, url: &str) -> (InstanceLock, Arc<Store>) {
    let db = dir.database("smsdesk.db");
    let mut lock = InstanceLock::acquire(dir, &db).unwrap();
    let store = Arc::new(Store::open(&db).unwrap());
    lock.hold(&store).unwrap();
    lock.publish(&info(std::process::id(), url)).unwrap();
    (lock, store)
}

fn stop(mut lock: InstanceLock, store: Arc<Store>) {
    lock.release();
    store.shutdown();
    drop(store);
    drop(lock);
}

#[cfg(unix)]
#[test]
fn a_hard_link_of_a_held_database_is_refused_naming_the_holder_from_the_row_inside_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (DataDir::new(tmp.path().join("a")), DataDir::new(tmp.path().join("b")));
    std::fs::create_dir_all(b.root()).unwrap();
    let (lock, store) = hold(&a, "http://127.0.0.1:7");
    std::fs::hard_link(a.database("smsdesk.db"), b.database("smsdesk.db")).unwrap();
    let err = refused(&b, &b.database("smsdesk.db"));
    assert!(
        err.contains(&format!("process {}", std::process::id())),
        "a second name of the same file is refused, naming the holder: {err}"
    );
    assert!(err.contains("http://127.0.0.1:7"), "says where it listens: {err}");
    assert!(
        err.contains(&a.root().display().to_string()),
        "names its data directory: {err}"
    );
    assert!(err.contains(" since "), "says since when: {err}");
    stop(lock, store);
    let (lock, store) = hold(&b, "http://127.0.0.1:8");
    let row = store
        .reader()
        .read_blocking(crate::store::tables::instance::current)
        .unwrap()
        .unwrap();
    assert!(
        row.data_dir.ends_with('b') && row.released_at_ms.is_none(),
        "once the first let go, the database is held through its other name: {row:?}"
    );
    stop(lock, store);
}

#[cfg(unix)]
#[test]
fn a_copy_reads_beside_a_holder_of_the_same_name_and_is_refused_through_another() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (DataDir::new(tmp.path().join("a")), DataDir::new(tmp.path().join("b")));
    std::fs::create_dir_all(b.root()).unwrap();
    let (lock, store) = hold(&a, "http://127.0.0.1:9");
    std::fs::hard_link(a.database("smsdesk.db"), b.database("smsdesk.db")).unwrap();
    assert!(
        lock_for_copy(&a.database("smsdesk.db")).unwrap().is_none(),
        "a copy through the holder's own name reads beside it, holding nothing"
    );
    let err = lock_for_copy(&b.database("smsdesk.db")).unwrap_err().to_string();
    assert!(
        err.contains(&format!("process {}", std::process::id())) && err.contains("another name"),
        "a copy through another name of a held database is refused, naming the holder: {err}"
    );
    stop(lock, store);
    let copying = lock_for_copy(&b.database("smsdesk.db"))
        .unwrap()
        .expect("with nobody holding it, a copy holds the database");
    let err = refused(&a, &a.database("smsdesk.db"));
    assert!(
        err.contains("in use"),
        "nothing starts on a database being copied: {err}"
    );
    drop(copying);
    InstanceLock::acquire(&a, &a.database("smsdesk.db")).expect("free once the copy is done");
}

#[test]
fn a_clean_stop_releases_the_row_and_a_crash_on_this_computer_leaves_it_to_be_taken_over() {
    let tmp = tempfile::tempdir().unwrap();
    let a = DataDir::new(tmp.path().join("a"));
    let (lock, store) = hold(&a, "http://127.0.0.1:10");
    stop(lock, store);
    let row = crate::store::tables::instance::read_file(&a.database("smsdesk.db"))
        .unwrap()
        .unwrap();
    assert!(
        row.released_at_ms.is_some(),
        "a clean stop says nobody holds the database"
    );

    let (mut lock, store) = hold(&a, "http://127.0.0.1:11");
    // A crash: the row stays as it was, the locks go with the process.
    if let Some(heartbeat) = lock.heartbeat.take() {
        std::mem::forget(heartbeat);
    }
    store.shutdown();
    drop(store);
    drop(lock);
    let row = crate::store::tables::instance::read_file(&a.database("smsdesk.db"))
        .unwrap()
        .unwrap();
    assert!(row.released_at_ms.is_none(), "a crash leaves the row held");
    let started = std::time::Instant::now();
    let (lock, store) = hold(&a, "http://127.0.0.1:12");
    assert!(
        started.elapsed() < STALE,
        "a row left on this computer is taken over at once: the lock on the file proves its holder gone"
    );
    stop(lock, store);
}
