//! Trusting a database file: refused when empty, not SQLite, or damaged, and left untouched
//! either way; a sound one opens. Real files in a temporary directory.

use std::path::Path;

use super::tables::NewAudit;
use super::*;
use rusqlite::Connection;
use smsdesk_core::audit::AuditAction;

fn refusal(path: &Path) -> String {
    match Store::open(path) {
        Ok(_) => panic!("{} must be refused", path.display()),
        Err(e) => {
            assert!(matches!(e, StoreError::Unusable { .. }), "{e:?}");
            e.to_string()
        }
    }
}

/// What every refusal must say: which file, and the two ways out.
fn says_what_to_do(message: &str, path: &Path) {
    assert!(
        message.contains(&path.display().to_string()),
        "names the file: {message}"
    );
    assert!(message.contains("Restore it from a backup"), "{message}");
    assert!(message.contains("move it away"), "{message}");
}

#[test]
fn a_zero_byte_database_file_is_refused_not_started_empty() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("smsdesk.db");
    std::fs::write(&path, b"").unwrap();
    let message = refusal(&path);
    assert!(message.contains("empty (0 bytes)"), "{message}");
    says_what_to_do(&message, &path);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 0, "the file is left as it was");
    assert!(
        !dir.path().join("smsdesk.db-wal").exists(),
        "nothing was written beside it"
    );
}

#[test]
fn a_file_that_is_not_an_sqlite_database_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("smsdesk.db");
    let text = b"destination,text\n+33612345678,hello\n";
    std::fs::write(&path, text).unwrap();
    let message = refusal(&path);
    assert!(message.contains("not an SQLite database"), "{message}");
    says_what_to_do(&message, &path);
    assert_eq!(std::fs::read(&path).unwrap(), text, "the file is left as it was");
}

/// Appends `rows` audit rows of about 200 bytes.
fn fill(store: &Store, rows: usize) {
    store
        .writer()
        .write_blocking(move |tx| {
            for i in 0..rows {
                tx.audit().append(&NewAudit {
                    note: Some(format!("row {i} {}", "x".repeat(200))),
                    ..NewAudit::new("test.row", AuditAction::SettingsUpdate)
                })?;
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
}

/// A database holding `rows` audit rows, closed, with everything copied into the database file
/// (no WAL left beside it).
fn closed_database(path: &Path, rows: usize) {
    let store = Store::open(path).unwrap();
    fill(&store, rows);
    store.shutdown();
    drop(store);
    // What the test does to the file next must show in its modification time, which the file
    // system keeps to a tick of a few milliseconds (see `clean_stop`).
    std::thread::sleep(std::time::Duration::from_millis(30));
    let c = Connection::open(path).unwrap();
    c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
    c.pragma_update(None, "journal_mode", "DELETE").unwrap();
}

#[test]
fn a_database_with_a_damaged_page_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("smsdesk.db");
    closed_database(&path, 500);
    let (page_size, page): (u64, u64) = {
        let c = Connection::open(&path).unwrap();
        let size = c.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
        // The last page of the file: a leaf of the audit table, the last thing written.
        let count: u64 = c.query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap();
        (size, count)
    };
    let mut bytes = std::fs::read(&path).unwrap();
    let at = ((page - 1) * page_size) as usize;
    for (i, b) in bytes[at..at + page_size as usize].iter_mut().enumerate() {
        *b = (i * 7 + 13) as u8;
    }
    std::fs::write(&path, &bytes).unwrap();

    let message = refusal(&path);
    assert!(message.contains("quick_check"), "{message}");
    says_what_to_do(&message, &path);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        bytes,
        "the damaged file is left as it was"
    );
}

#[test]
fn a_healthy_database_opens_again_and_a_missing_one_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("smsdesk.db");
    assert!(trust::check_header(&path).unwrap(), "no file yet: a new database");
    closed_database(&path, 10);
    assert!(!trust::check_header(&path).unwrap(), "an SQLite database");
    let store = Store::open(&path).expect("a sound database opens");
    let rows: i64 = store
        .reader()
        .read_blocking(|c| {
            Ok::<_, StoreError>(c.query_row("SELECT count(*) FROM audit WHERE actor = 'test.row'", [], |r| r.get(0))?)
        })
        .unwrap();
    assert_eq!(rows, 10);
    store.shutdown();
}

#[test]
fn a_clean_stop_copies_the_wal_into_the_database_and_leaves_it_empty() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("smsdesk.db");
    let wal = dir.path().join("smsdesk.db-wal");
    let store = Store::open(&path).unwrap();
    // A reader connection stays open across the stop, as the engine's pool does.
    let rows = move |store: &Store| {
        store
            .reader()
            .read_blocking(|c| Ok::<i64, StoreError>(c.query_row("SELECT count(*) FROM audit", [], |r| r.get(0))?))
            .unwrap()
    };
    fill(&store, 2_000);
    let written = rows(&store);
    assert!(
        std::fs::metadata(&wal).unwrap().len() > 0,
        "the rows are in the WAL before the stop"
    );
    store.shutdown();
    assert_eq!(
        std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0),
        0,
        "no WAL content is left after a clean stop"
    );
    drop(store);
    // Everything is in the database file itself: read it alone, without any WAL.
    std::fs::remove_file(&wal).ok();
    let c = Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let n: i64 = c.query_row("SELECT count(*) FROM audit", [], |r| r.get(0)).unwrap();
    assert_eq!(n, written);
}

/// Opens `path`, writes a few rows and stops cleanly (or, with `clean` false, stops the writer
/// without the stop's last checkpoint, as a crash would leave it).
fn run_once(path: &Path, clean: bool) {
    let store = Store::open(path).unwrap();
    store
        .writer()
        .write_blocking(|tx| {
            tx.audit()
                .append(&NewAudit::new("test.row", AuditAction::SettingsUpdate))
        })
        .unwrap();
    if clean {
        store.shutdown();
    } else {
        std::mem::forget(store);
    }
}

#[test]
fn a_clean_stop_leaves_a_mark_that_the_next_open_takes_and_a_crash_leaves_none() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("smsdesk.db");
    let mark = dir.path().join("smsdesk.db.clean-stop");
    run_once(&path, true);
    assert!(mark.exists(), "a clean stop leaves its mark");
    assert!(clean_stop::take(&path), "the file is as the stop left it");
    assert!(!mark.exists(), "opening takes the mark away before anything writes");
    assert!(!clean_stop::take(&path), "without a mark, the file is checked in full");

    // A crash leaves no mark: the next start checks the whole file.
    let crashed = dir.path().join("crashed.db");
    run_once(&crashed, true);
    run_once(&crashed, false);
    assert!(!dir.path().join("crashed.db.clean-stop").exists());
    assert!(!clean_stop::take(&crashed));
}

#[test]
fn a_database_changed_after_a_clean_stop_is_checked_in_full() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("smsdesk.db");
    run_once(&path, true);
    std::thread::sleep(std::time::Duration::from_millis(30));
    let c = Connection::open(&path).unwrap();
    c.execute("DELETE FROM view_count WHERE scope = 'no such scope'", [])
        .unwrap();
    c.execute_batch("CREATE TABLE touched (x); DROP TABLE touched;")
        .unwrap();
    drop(c);
    assert!(
        !clean_stop::take(&path),
        "a file written after the stop is not trusted by its mark"
    );
}

#[test]
fn a_read_still_running_at_the_stop_is_interrupted_and_the_stop_is_clean() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("smsdesk.db");
    let store = std::sync::Arc::new(Store::open(&path).unwrap());
    fill(&store, 100);
    let (started, running) = std::sync::mpsc::channel();
    let reader = store.reader().clone();
    let read = std::thread::spawn(move || {
        reader.read_blocking(|c| {
            started.send(()).unwrap();
            // Minutes of work unless interrupted.
            Ok::<i64, StoreError>(c.query_row(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000000000)
                 SELECT count(*) FROM n, audit",
                [],
                |r| r.get(0),
            )?)
        })
    });
    running.recv().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(50));
    store.shutdown();
    assert!(
        dir.path().join("smsdesk.db.clean-stop").exists(),
        "the WAL was emptied and the stop marked clean, the read notwithstanding"
    );
    assert!(read.join().unwrap().is_err(), "the read was interrupted");
}

fn page_bytes(path: &Path) -> i64 {
    let c = rusqlite::Connection::open(path).unwrap();
    c.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap()
}

#[test]
fn a_new_database_takes_the_page_size_and_an_existing_one_keeps_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("new.db");
    Store::open(&new).unwrap().shutdown();
    assert_eq!(page_bytes(&new), pragmas::PAGE_BYTES);
    assert_ne!(
        pragmas::PAGE_BYTES,
        4_096,
        "the test needs a size other than SQLite's default"
    );

    let older = dir.path().join("older.db");
    rusqlite::Connection::open(&older)
        .unwrap()
        .execute_batch("PRAGMA page_size = 4096; CREATE TABLE earlier (x);")
        .unwrap();
    Store::open(&older).unwrap().shutdown();
    assert_eq!(page_bytes(&older), 4_096, "an existing file is not rewritten");
}
