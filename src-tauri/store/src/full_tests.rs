//! A full disk: the write refused as storage full, nothing of it applied, and the same write taken
//! once there is room again. Real files in a temporary directory.

use super::tables::NewAudit;
use super::*;
use smsdesk_core::audit::AuditAction;

/// The rows this test writes: told apart by their actor.
fn audit(note: String) -> NewAudit {
    NewAudit {
        note: Some(note),
        ..NewAudit::new("test.full", AuditAction::SettingsUpdate)
    }
}

fn count_full(store: &Store) -> i64 {
    store
        .reader()
        .read_blocking(|c| {
            Ok::<_, StoreError>(c.query_row("SELECT count(*) FROM audit WHERE actor = 'test.full'", [], |r| r.get(0))?)
        })
        .unwrap()
}

#[test]
fn a_write_the_full_disk_refuses_is_storage_full_and_applies_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
    // SQLite answers SQLITE_FULL once the database would need more pages than this, as it does
    // when the disk has no room for them.
    store
        .writer()
        .write_blocking(|tx| {
            let pages: i64 = tx.conn().query_row("PRAGMA page_count", [], |r| r.get(0))?;
            tx.conn().pragma_update(None, "max_page_count", pages)?;
            Ok::<_, StoreError>(())
        })
        .unwrap();
    let big = "y".repeat(64 * 1024);
    let err = store
        .writer()
        .write_blocking(move |tx| {
            for _ in 0..4 {
                tx.audit().append(&audit(big.clone()))?;
            }
            Ok::<_, StoreError>(())
        })
        .unwrap_err();
    assert!(
        err.is_storage_full(),
        "a full disk must be told apart from other failures: {err:?}"
    );
    assert_eq!(count_full(&store), 0, "nothing of the refused write is stored");

    store
        .writer()
        .write_blocking(|tx| Ok::<_, StoreError>(tx.conn().pragma_update(None, "max_page_count", 1_000_000)?))
        .unwrap();
    let big = "y".repeat(64 * 1024);
    store
        .writer()
        .write_blocking(move |tx| {
            for _ in 0..4 {
                tx.audit().append(&audit(big.clone()))?;
            }
            Ok::<_, StoreError>(())
        })
        .expect("once there is room, the same write is taken");
    assert_eq!(count_full(&store), 4);
    store.shutdown();
}

#[test]
fn a_commit_the_full_disk_refuses_is_storage_full_for_every_caller_and_applies_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
    store.writer().fail_commits_for_tests(true);
    let err = store
        .writer()
        .write_blocking(|tx| tx.audit().append(&audit("first".into())))
        .unwrap_err();
    assert!(matches!(err, StoreError::StorageFull(_)), "{err:?}");
    assert!(err.is_storage_full());
    assert_eq!(count_full(&store), 0, "nothing of the failed transaction is stored");
    store.writer().fail_commits_for_tests(false);
    store
        .writer()
        .write_blocking(|tx| tx.audit().append(&audit("again".into())))
        .expect("once there is room, writes commit again");
    assert_eq!(count_full(&store), 1);
    store.shutdown();
}

fn new_message(store: &Store) -> Result<i64, StoreError> {
    use smsdesk_core::domain::{IntakeChannel, MessageKind};
    let m = smsdesk_core::message::NewMessage::text(
        IntakeChannel::Api,
        "+33612345613",
        "Order 7 shipped",
        MessageKind::Transactional,
        "sandbox",
    );
    store.writer().write_blocking(move |tx| tables::message::insert(tx, &m))
}

#[test]
fn below_the_reserve_a_new_message_is_refused_as_storage_full_and_other_writes_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
    new_message(&store).expect("no reserve: a new message is taken");
    // More than any disk has: the disk is below it as soon as the checkpoint thread measures it.
    store.set_reserve(u64::MAX - 1);
    let started = std::time::Instant::now();
    while store.room().free_bytes.is_none() && started.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    if store.room().free_bytes.is_none() {
        eprintln!("skipped: the free room of this file system cannot be measured here");
        return;
    }
    assert!(store.room().below_reserve());
    let err = new_message(&store).unwrap_err();
    assert!(
        err.is_storage_full() && err.to_string().contains("store.reserve_mib"),
        "below the reserve, a new message is refused as storage full, naming the setting: {err}"
    );
    store
        .writer()
        .write_blocking(|tx| tx.audit().append(&audit("below the reserve".into())))
        .expect("below the reserve, what is already in the house is still written");
    assert_eq!(count_full(&store), 1);
    store.set_reserve(0);
    new_message(&store).expect("once above the reserve, new messages are taken again");
    store.shutdown();
}

#[test]
fn a_commit_the_full_disk_refuses_says_the_writes_fail_until_one_that_wrote_commits() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
    assert_eq!(store.room().failing_since_ms, None);
    store.writer().fail_commits_for_tests(true);
    let _ = store
        .writer()
        .write_blocking(|tx| tx.audit().append(&audit("refused".into())));
    let room = store.room();
    assert!(
        room.failing_since_ms.is_some() && room.short(),
        "a commit refused for want of room must be known as writes failing: {room:?}"
    );
    store.writer().fail_commits_for_tests(false);
    store.writer().write_blocking(|_| Ok::<_, StoreError>(())).unwrap();
    assert!(
        store.room().failing_since_ms.is_some(),
        "a commit that wrote nothing proves nothing about room"
    );
    store
        .writer()
        .write_blocking(|tx| tx.audit().append(&audit("taken".into())))
        .unwrap();
    assert_eq!(
        store.room().failing_since_ms,
        None,
        "a commit that wrote says writes succeed"
    );
    store.shutdown();
}

/// The size of the WAL beside `db`, 0 when there is none.
fn wal_len(db: &std::path::Path) -> u64 {
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    std::fs::metadata(std::path::PathBuf::from(wal)).map_or(0, |m| m.len())
}

/// Waits up to 10 s for `done`, checking every 20 ms; whether it came.
fn within_ten_seconds(done: impl Fn() -> bool) -> bool {
    let started = std::time::Instant::now();
    while !done() && started.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    done()
}

#[test]
fn while_the_disk_is_short_the_wal_is_cut_back_to_nothing_and_only_then() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("smsdesk.db");
    let store = Store::open(&db).unwrap();
    let write = |n: usize| {
        for i in 0..n {
            store
                .writer()
                .write_blocking(move |tx| tx.audit().append(&audit(format!("row {i}"))))
                .unwrap();
        }
    };
    write(20);
    // With room, the background passes copy the WAL into the database and leave the file as it
    // is, for the next writes to reuse.
    std::thread::sleep(std::time::Duration::from_secs(1));
    let with_room = wal_len(&db);
    assert!(with_room > 0, "with room, the WAL is left to be reused");
    store.set_reserve(u64::MAX - 1);
    if !within_ten_seconds(|| store.room().free_bytes.is_some()) {
        eprintln!("skipped: the free room of this file system cannot be measured here");
        return;
    }
    assert!(
        within_ten_seconds(|| wal_len(&db) == 0),
        "below the reserve, the WAL is cut back to nothing: {} bytes left of {with_room}",
        wal_len(&db)
    );
    // What may still be written below the reserve does not let it grow back for long.
    write(20);
    assert!(
        within_ten_seconds(|| wal_len(&db) == 0),
        "below the reserve, the WAL written since is cut back again: {} bytes",
        wal_len(&db)
    );
    assert_eq!(count_full(&store), 40, "nothing written was lost by the cuts");
    store.shutdown();
}
