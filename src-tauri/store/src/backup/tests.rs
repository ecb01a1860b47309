//! Backups of a store in use: real files, a real writer writing meanwhile.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;

use rusqlite::Connection;

use super::*;
use crate::tables::NewAudit;
use crate::Store;
use smsdesk_core::audit::AuditAction;

/// The `n`th row this test writes, numbered in its note.
fn audit(n: i64) -> NewAudit {
    NewAudit {
        note: Some(format!("row {n}")),
        ..NewAudit::new("system", AuditAction::SettingsUpdate)
    }
}

fn count(path: &Path, sql: &str) -> i64 {
    Connection::open(path)
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_copy_taken_while_the_writer_commits_holds_every_row_committed_before_it_started() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(&dir.path().join("smsdesk.db")).unwrap());
    for n in 0..2_000 {
        store
            .writer()
            .write_blocking(move |tx| tx.audit().append(&audit(n)))
            .unwrap();
    }
    // A writer keeps committing, one row per transaction, for as long as the copy takes.
    let (stop, committed) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicI64::new(2_000)));
    let writing = {
        let (store, stop, committed) = (store.clone(), stop.clone(), committed.clone());
        std::thread::spawn(move || {
            let mut n = 2_000;
            while !stop.load(Ordering::SeqCst) {
                store
                    .writer()
                    .write_blocking(move |tx| tx.audit().append(&audit(n)))
                    .unwrap();
                n += 1;
                committed.store(n, Ordering::SeqCst);
            }
        })
    };
    while committed.load(Ordering::SeqCst) < 2_100 {
        std::thread::yield_now();
    }
    let before = committed.load(Ordering::SeqCst);
    let dest = dir.path().join("copy.db");
    let copied = copy_file(store.path(), &dest).unwrap();
    let after = committed.load(Ordering::SeqCst);
    stop.store(true, Ordering::SeqCst);
    writing.join().unwrap();

    let rows = count(&dest, "SELECT count(*) FROM audit WHERE note LIKE 'row %'");
    assert!(
        rows >= before,
        "the copy has {rows} rows; {before} were committed before it started"
    );
    assert!(
        rows <= after,
        "the copy has {rows} rows; only {after} were committed when it ended"
    );
    // The rows form a prefix: one commit's state, not a mix of pages from several.
    let highest = count(
        &dest,
        "SELECT max(CAST(substr(note, 5) AS INTEGER)) FROM audit WHERE note LIKE 'row %'",
    );
    assert_eq!(highest, rows - 1, "the copy is the database as one commit left it");
    assert_eq!(copied.bytes, std::fs::metadata(&dest).unwrap().len());
    assert_eq!(copied.schema_version, crate::migrations::latest_version());
    assert_eq!(check_copy(&dest, &dest).unwrap(), crate::migrations::latest_version());
    store.shutdown();
}

#[cfg(unix)]
#[test]
fn a_copy_is_its_owners_alone_and_leaves_no_temporary_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
    let backups = dir.path().join("backups").join("daily");
    ensure_dir(&backups).unwrap();
    let dest = backups.join("copy.db");
    copy_file(store.path(), &dest).unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dest), 0o600);
    assert_eq!(mode(&backups), 0o700);
    let names: Vec<_> = std::fs::read_dir(&backups)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        names,
        vec![std::ffi::OsString::from("copy.db")],
        "no partial file, no journal"
    );
    store.shutdown();
}

#[test]
fn a_copy_never_replaces_a_file_and_needs_a_database_to_copy() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("smsdesk.db");
    let store = Store::open(&db).unwrap();
    let taken = dir.path().join("taken.db");
    std::fs::write(&taken, b"mine").unwrap();
    assert!(matches!(copy_file(&db, &taken), Err(BackupError::Exists(_))));
    assert_eq!(std::fs::read(&taken).unwrap(), b"mine");
    assert!(
        matches!(copy_file(&db, &db), Err(BackupError::Exists(_))),
        "never over the database itself"
    );
    let missing = dir.path().join("none.db");
    assert!(matches!(
        copy_file(&missing, &dir.path().join("x.db")),
        Err(BackupError::NoDatabase(_))
    ));
    store.shutdown();
}

#[test]
fn the_check_refuses_a_damaged_copy_a_newer_schema_and_a_database_that_is_not_smsdesks() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("smsdesk.db");
    let store = Store::open(&db).unwrap();
    for n in 0..500 {
        store
            .writer()
            .write_blocking(move |tx| tx.audit().append(&audit(n)))
            .unwrap();
    }
    let good = dir.path().join("good.db");
    copy_file(&db, &good).unwrap();
    store.shutdown();

    let damaged = dir.path().join("damaged.db");
    let mut bytes = std::fs::read(&good).unwrap();
    let page: usize = Connection::open(&good)
        .unwrap()
        .query_row("PRAGMA page_size", [], |r| r.get(0))
        .unwrap();
    for b in &mut bytes[page * 3..page * 5] {
        *b = 0x5a;
    }
    std::fs::write(&damaged, bytes).unwrap();
    assert!(matches!(
        check_copy(&damaged, &damaged),
        Err(BackupError::Unusable { .. })
    ));

    let newer = dir.path().join("newer.db");
    std::fs::copy(&good, &newer).unwrap();
    Connection::open(&newer)
        .unwrap()
        .execute_batch("INSERT INTO schema_migration VALUES (999, 'future', 'x', 0)")
        .unwrap();
    assert!(matches!(
        check_copy(&newer, &newer),
        Err(BackupError::TooNew { found: 999, .. })
    ));

    let other = dir.path().join("other.db");
    Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x)")
        .unwrap();
    assert!(matches!(check_copy(&other, &other), Err(BackupError::Unusable { .. })));
    let text = dir.path().join("text.db");
    std::fs::write(&text, b"not a database at all, just some text").unwrap();
    assert!(matches!(check_copy(&text, &text), Err(BackupError::Unusable { .. })));
}

#[test]
fn opening_an_older_schema_backs_it_up_first_and_a_current_or_new_one_is_not_copied() {
    let dir = tempfile::tempdir().unwrap();
    let (db, backups) = (dir.path().join("smsdesk.db"), dir.path().join("backups"));
    {
        let mut c = Connection::open(&db).unwrap();
        crate::migrations::migrate_to(&mut c, 5, &smsdesk_core::time::Clock::system()).unwrap();
    }
    let store = Store::open_keeping_backups(&db, &backups).unwrap();
    assert_eq!(store.migration().from_version, 5);
    store.shutdown();
    let latest = crate::migrations::latest_version();
    let found = names::list(&backups).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].kind, names::Kind::BeforeMigration(latest));
    assert_eq!(
        check_copy(&found[0].path, &found[0].path).unwrap(),
        5,
        "the copy holds the schema before the upgrade"
    );

    let store = Store::open_keeping_backups(&db, &backups).unwrap();
    store.shutdown();
    assert_eq!(
        names::list(&backups).unwrap().len(),
        1,
        "a current database is not copied again"
    );
    let fresh = dir.path().join("fresh.db");
    Store::open_keeping_backups(&fresh, &dir.path().join("none"))
        .unwrap()
        .shutdown();
    assert!(!dir.path().join("none").exists(), "a new database has nothing to keep");
}

#[test]
fn an_installed_copy_replaces_the_database_and_what_was_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("smsdesk.db");
    let store = Store::open(&db).unwrap();
    store
        .writer()
        .write_blocking(|tx| tx.audit().append(&audit(1)))
        .unwrap();
    let copy = dir.path().join("copy.db");
    copy_file(&db, &copy).unwrap();
    store
        .writer()
        .write_blocking(|tx| tx.audit().append(&audit(2)))
        .unwrap();
    store.shutdown();
    let beside = |s: &str| dir.path().join(format!("smsdesk.db{s}"));
    std::fs::write(beside("-wal"), b"stale frames").unwrap();
    std::fs::write(beside("-shm"), b"stale").unwrap();
    assert!(beside(".clean-stop").exists(), "a clean stop left its mark");

    let bytes = install(&copy, &db).unwrap();
    assert_eq!(bytes, std::fs::metadata(&copy).unwrap().len());
    for s in ["-wal", "-shm", ".clean-stop"] {
        assert!(!beside(s).exists(), "smsdesk.db{s} is gone");
    }
    assert_eq!(count(&db, "SELECT count(*) FROM audit WHERE note LIKE 'row %'"), 1);
    assert!(copy.exists(), "the copy is only read");
    let store = Store::open(&db).unwrap();
    store.shutdown();
}
