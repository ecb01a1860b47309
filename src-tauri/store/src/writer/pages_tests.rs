//! The idle writer lets its cached pages go (`thread::KEEP_PAGES` after its last batch), once,
//! and keeps working after. On a real database file.

use std::time::{Duration, Instant};

use crate::tables::NewAudit;
use crate::{Store, StoreError};
use smsdesk_core::audit::AuditAction;

async fn write_something(store: &Store) {
    store
        .writer()
        .write(|tx| tx.audit().append(&NewAudit::new("test", AuditAction::SettingsUpdate)))
        .await
        .unwrap();
}

#[tokio::test]
async fn an_idle_writer_lets_its_cached_pages_go_once_and_keeps_working() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
    let writer = store.writer().clone();
    assert_eq!(writer.pages_released(), 0, "no batch ran: nothing to let go");
    write_something(&store).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while writer.pages_released() == 0 {
        assert!(
            Instant::now() < deadline,
            "the writer kept its pages 10 s after its last batch"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Nothing was read since: an idle writer does not let go again and again.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    assert_eq!(writer.pages_released(), 1);
    write_something(&store).await;
    let count: i64 = store
        .reader()
        .read(|c| {
            Ok::<_, StoreError>(c.query_row("SELECT count(*) FROM audit WHERE actor = 'test'", [], |r| r.get(0))?)
        })
        .await
        .unwrap();
    assert_eq!(count, 2);
    store.shutdown();
}
