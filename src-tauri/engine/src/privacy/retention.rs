//! The retention run: what is older than its `[retention]` period is redacted in short batches,
//! the file's freed bytes overwritten and the WAL emptied, the run audited with its counts.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::audit::AuditAction;
use crate::config::RetentionSettings;
use crate::domain::MessageKind;
use crate::store::privacy::retention::{batch, Cursor, Due, Tombstones};
use crate::store::privacy::{self, Redacted};
use crate::store::tables::NewAudit;
use crate::store::{Store, StoreError};

/// Rows one batch redacts at most: each batch is one short write transaction (a few ms), so
/// messages and receipts keep being written between them.
const BATCH: u32 = 200;
/// How often the daily run looks whether a day has passed since the last one.
const LOOK_EVERY: Duration = Duration::from_secs(3_600);
/// The first look after a start: not while the start's own work goes on.
const FIRST_LOOK: Duration = Duration::from_secs(60);
const DAY_MS: i64 = 86_400_000;

/// What a run did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct RetentionRun {
    #[ts(type = "number")]
    pub started_at_ms: i64,
    #[ts(type = "number")]
    pub took_ms: u64,
    /// What it redacted, in all.
    pub redacted: Redacted,
    /// The write transactions it took.
    pub batches: u32,
    /// The longest of them, in milliseconds: how long the writer was held at most.
    pub longest_batch_ms: u64,
    /// Whether the WAL could be emptied after (no reader held it): otherwise the next
    /// checkpoint overwrites the old frames.
    pub wal_emptied: bool,
}

/// The cut-offs of the settings at `now`.
pub fn due(s: &RetentionSettings, now: i64) -> Due {
    let before = |d: crate::config::Days| d.as_ms().map(|ms| now - ms);
    Due {
        text_before: [
            (MessageKind::Otp, s.otp_text_days),
            (MessageKind::Transactional, s.transactional_text_days),
            (MessageKind::Bulk, s.bulk_text_days),
        ]
        .into_iter()
        .filter_map(|(k, d)| before(d).map(|b| (k, b)))
        .collect(),
        number_before: before(s.destination_days),
        replies_before: before(s.replies_days),
        audit_before: before(s.audit_days),
    }
}

/// Runs retention once, as `actor`: batches until nothing more is due, then the WAL emptied and
/// the run audited.
pub async fn run(store: &Arc<Store>, settings: &RetentionSettings, actor: &str) -> Result<RetentionRun, StoreError> {
    let started = Instant::now();
    let started_at_ms = store.clock().now_ms();
    let due = due(settings, started_at_ms);
    let who = actor.to_owned();
    let tombstones = store
        .writer()
        .write(move |tx| {
            // Codes that failed and can no longer be sent again are not kept sealed either.
            crate::store::tables::queue::drop_spent_seals(tx, started_at_ms)?;
            Tombstones::begin(tx, &who)
        })
        .await?;
    let (mut cursor, mut total) = (Cursor::default(), Redacted::default());
    let (mut batches, mut longest) = (0u32, Duration::ZERO);
    while !cursor.finished {
        let d = due.clone();
        let (done, c, held) = store
            .writer()
            .write(move |tx| {
                let t0 = Instant::now();
                let done = batch(tx, &d, &tombstones, BATCH, &mut cursor)?;
                Ok::<_, StoreError>((done, cursor, t0.elapsed()))
            })
            .await?;
        cursor = c;
        total.add(&done);
        batches += 1;
        longest = longest.max(held);
    }
    let wal_emptied = super::empty_wal(store).await?;
    let run = RetentionRun {
        started_at_ms,
        took_ms: started.elapsed().as_millis() as u64,
        redacted: total,
        batches,
        longest_batch_ms: longest.as_millis() as u64,
        wal_emptied,
    };
    record(store, tombstones, &run, actor).await?;
    tracing::info!(
        redacted = run.redacted.total(),
        batches = run.batches,
        longest_batch_ms = run.longest_batch_ms,
        took_ms = run.took_ms,
        "retention: personal content past its period removed"
    );
    Ok(run)
}

/// Writes what each rule of the run removed into its tombstone, and audits the run.
async fn record(store: &Store, tombstones: Tombstones, run: &RetentionRun, actor: &str) -> Result<(), StoreError> {
    let (actor, report) = (actor.to_owned(), run.clone());
    store
        .writer()
        .write(move |tx| {
            let r = &report.redacted;
            // A receipt's content goes with the first of its message's text or number: the text's.
            let texts = Redacted {
                texts: r.texts,
                receipts: r.receipts,
                ..Redacted::default()
            };
            let numbers = Redacted {
                numbers: r.numbers,
                ..Redacted::default()
            };
            let replies = Redacted {
                replies: r.replies,
                ..Redacted::default()
            };
            let audit = Redacted {
                audit: r.audit,
                ..Redacted::default()
            };
            privacy::finish(tx, tombstones.text, &texts)?;
            privacy::finish(tx, tombstones.number, &numbers)?;
            privacy::finish(tx, tombstones.replies, &replies)?;
            privacy::finish(tx, tombstones.audit, &audit)?;
            tx.audit().append(&NewAudit {
                details_json: Some(serde_json::to_string(&report).expect("a run serialises")),
                ..NewAudit::new(actor, AuditAction::RetentionRun)
            })?;
            Ok::<_, StoreError>(())
        })
        .await?;
    Ok(())
}

/// The daily run: a minute after the start, then whenever a day has passed since the last run.
pub async fn keep_redacting(store: Arc<Store>, settings: impl Fn() -> RetentionSettings + Send + 'static) {
    tokio::time::sleep(FIRST_LOOK).await;
    loop {
        let last = store.reader().read(privacy::last_run_at).await;
        let due = match last {
            Ok(Some(at)) => store.clock().now_ms() - at >= DAY_MS,
            Ok(None) => true,
            Err(e) => {
                tracing::warn!(error = %e, "retention: cannot read when it last ran");
                false
            }
        };
        if due {
            if let Err(e) = run(&store, &settings(), "retention").await {
                tracing::error!(error = %e, "retention: the run failed; it is tried again within the hour");
            }
        }
        tokio::time::sleep(LOOK_EVERY).await;
    }
}
