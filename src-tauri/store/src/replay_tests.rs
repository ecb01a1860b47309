//! Operations that may run more than once share a savepoint; when one of them fails or panics,
//! the outcome is exactly that of operations run one by one (see `writer::replay`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc as std_mpsc;
use std::sync::Arc;
use std::time::Duration;

use super::tables::NewAudit;
use super::*;
use smsdesk_core::audit::AuditAction;

#[derive(Debug, thiserror::Error)]
enum TestError {
    #[error("refused on purpose")]
    Refused,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// An audit row told apart from others by its note, `label`.
fn row(label: &str) -> NewAudit {
    NewAudit {
        note: Some(label.into()),
        ..NewAudit::new("system", AuditAction::SettingsUpdate)
    }
}

/// How many rows [`row`] wrote with `label`.
fn count(store: &Store, label: &'static str) -> i64 {
    store
        .reader()
        .read_blocking(move |c| {
            Ok::<_, StoreError>(c.query_row("SELECT count(*) FROM audit WHERE note = ?1", [label], |r| r.get(0))?)
        })
        .unwrap()
}

/// Holds the writer in a batch until `release` is sent, so that what is queued meanwhile lands
/// in the next batch together. Answers once the holding operation runs: on a loaded machine a
/// spawned task may not have reached the writer in any given time.
pub(crate) async fn hold(writer: &Writer) -> (std_mpsc::Sender<()>, tokio::task::JoinHandle<u64>) {
    let (release, gate) = std_mpsc::channel::<()>();
    let (entered, inside) = tokio::sync::oneshot::channel::<()>();
    let w = writer.clone();
    let blocker = tokio::spawn(async move {
        w.write(move |tx| {
            let _ = entered.send(());
            gate.recv().unwrap();
            Ok::<_, StoreError>(tx.batch())
        })
        .await
        .unwrap()
    });
    inside.await.expect("the writer runs the holding operation");
    (release, blocker)
}

/// A replayable operation that appends a `good` row and answers with its batch and the id of the
/// row; `runs` counts how often it ran.
fn good(writer: &Writer, runs: &Arc<AtomicUsize>) -> tokio::task::JoinHandle<Result<(u64, i64), StoreError>> {
    let (w, runs) = (writer.clone(), runs.clone());
    tokio::spawn(async move {
        w.write_replayable(move |tx| {
            runs.fetch_add(1, Ordering::SeqCst);
            let id = tx.audit().append(&row("good"))?;
            Ok::<_, StoreError>((tx.batch(), id))
        })
        .await
    })
}

/// Waits until `n` jobs sit in the writer's queue, so that the operations spawned so far arrive
/// in the order they were spawned (spawned tasks otherwise race each other to the queue).
pub(crate) async fn until_queued(writer: &Writer, n: usize) {
    while writer.queued() < n {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

fn stored_ids(store: &Store) -> Vec<i64> {
    store
        .reader()
        .read_blocking(|c| {
            let mut s = c.prepare("SELECT id FROM audit WHERE note = 'good' ORDER BY id")?;
            let ids = s.query_map([], |r| r.get(0))?.collect::<Result<Vec<i64>, _>>()?;
            Ok::<_, StoreError>(ids)
        })
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replayable_operations_that_all_succeed_run_once_and_commit_together() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
    let writer = store.writer().clone();
    let (release, blocker) = hold(&writer).await;
    let runs = Arc::new(AtomicUsize::new(0));
    let mut ops = Vec::new();
    for n in 1..=5 {
        ops.push(good(&writer, &runs));
        until_queued(&writer, n).await;
    }
    release.send(()).unwrap();
    let first = blocker.await.unwrap();
    let mut answered = Vec::new();
    for op in ops {
        answered.push(op.await.unwrap().unwrap());
    }
    assert!(answered.iter().all(|(b, _)| *b == first + 1), "one batch: {answered:?}");
    assert_eq!(runs.load(Ordering::SeqCst), 5, "nothing failed, so nothing ran twice");
    let mut ids: Vec<i64> = answered.iter().map(|(_, id)| *id).collect();
    ids.sort();
    assert_eq!(ids, stored_ids(&store), "each caller's value is its committed row");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_or_panicking_replayable_operation_leaves_the_others_whole_and_itself_out() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
    let writer = store.writer().clone();
    let (release, blocker) = hold(&writer).await;
    let runs = Arc::new(AtomicUsize::new(0));
    let mut goods = Vec::new();
    for n in 1..=3 {
        goods.push(good(&writer, &runs));
        until_queued(&writer, n).await;
    }
    let failing = {
        let w = writer.clone();
        tokio::spawn(async move {
            w.write_replayable(|tx| {
                // Write first, then fail: the write must not survive.
                tx.audit().append(&row("half"))?;
                Err::<u64, _>(TestError::Refused)
            })
            .await
        })
    };
    until_queued(&writer, 4).await;
    let panicking = {
        let w = writer.clone();
        tokio::spawn(async move {
            w.write_replayable(|tx| {
                tx.audit().append(&row("panicked")).unwrap();
                if tx.batch() > 0 {
                    panic!("an operation that panics mid-way");
                }
                Ok::<u64, StoreError>(0)
            })
            .await
        })
    };
    until_queued(&writer, 5).await;
    // An ordinary operation among them, and more replayable ones after.
    let once = {
        let w = writer.clone();
        tokio::spawn(async move { w.write(|tx| tx.audit().append(&row("once"))).await })
    };
    until_queued(&writer, 6).await;
    for n in 7..=8 {
        goods.push(good(&writer, &runs));
        until_queued(&writer, n).await;
    }
    release.send(()).unwrap();

    let first = blocker.await.unwrap();
    let mut answered = Vec::new();
    for g in goods {
        answered.push(g.await.unwrap().expect("a good operation is answered with its value"));
    }
    assert!(answered.iter().all(|(b, _)| *b == first + 1), "one batch: {answered:?}");
    assert!(
        matches!(failing.await.unwrap(), Err(TestError::Refused)),
        "the failing caller gets its own error"
    );
    assert!(
        matches!(panicking.await.unwrap(), Err(StoreError::Aborted)),
        "a panicked operation reports Aborted"
    );
    once.await.unwrap().unwrap();
    assert_eq!(count(&store, "good"), 5, "every good operation is committed once");
    assert_eq!(count(&store, "once"), 1);
    assert_eq!(count(&store, "half"), 0, "a failed operation does not half-apply");
    assert_eq!(count(&store, "panicked"), 0, "a panicked operation does not half-apply");
    assert!(
        runs.load(Ordering::SeqCst) > 5,
        "the good ones that ran with a failing one ran again"
    );
    let mut ids: Vec<i64> = answered.iter().map(|(_, id)| *id).collect();
    ids.sort();
    assert_eq!(
        ids,
        stored_ids(&store),
        "each caller's value comes from the run that committed"
    );

    writer
        .write_replayable(|tx| tx.audit().append(&row("after")))
        .await
        .unwrap();
    assert_eq!(count(&store, "after"), 1, "the writer still works afterwards");
}
