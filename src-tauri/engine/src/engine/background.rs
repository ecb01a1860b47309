//! The periodic work that runs beside the rest: overdue receipt deadlines, receipts that waited
//! long enough for their message, long replies whose missing parts waited long enough, the
//! daily backup, and the alert rules.

use std::sync::Arc;
use std::time::Duration;

use super::CHUNK;
use crate::backups::BackupPlan;
use crate::receipts::{deadline, uncorrelated};
use crate::service::Service;
use crate::store::Store;

/// How often receipts waiting for their message are looked at.
const UNCORRELATED_SWEEP_EVERY: Duration = Duration::from_secs(1);
/// How often overdue receipt deadlines are looked for.
const DEADLINE_SWEEP_EVERY: Duration = Duration::from_secs(60);

/// How many message ids the deadline frontier may move past in one sweep (tens of milliseconds
/// of the writer's time).
const FRONTIER_SPAN: i64 = 50_000;

/// How often long replies waiting for a missing part are looked at.
const REASSEMBLY_SWEEP_EVERY: Duration = Duration::from_secs(15);

/// Spawns the sweeps; the engine aborts them when it stops.
pub(super) fn background(
    store: &Arc<Store>,
    service: &Service,
    backups: BackupPlan,
) -> Vec<tokio::task::JoinHandle<()>> {
    vec![
        tokio::spawn(crate::backups::keep_backing_up(store.clone(), backups)),
        tokio::spawn(sweep_deadlines(store.clone(), service.clone())),
        tokio::spawn({
            let service = service.clone();
            uncorrelated::keep_sweeping(store.clone(), move || service.policy(), UNCORRELATED_SWEEP_EVERY)
        }),
        tokio::spawn(sweep_reassembly(store.clone(), service.clone())),
        tokio::spawn({
            let service = service.clone();
            crate::privacy::keep_redacting(store.clone(), move || service.retention_in_force())
        }),
        tokio::spawn(crate::alerts::keep_watching(service.clone())),
    ]
}

/// Shows the long replies whose missing parts waited past `inbox.reassembly_timeout_seconds` with
/// the parts that came. The look is a read; the writer is asked only when one is found.
async fn sweep_reassembly(store: Arc<Store>, service: Service) {
    let mut every = tokio::time::interval(REASSEMBLY_SWEEP_EVERY);
    loop {
        every.tick().await;
        let rules = service.policy().inbox.clone();
        let before = store.clock().now_ms() - rules.reassembly_ms;
        let any = store
            .reader()
            .read(move |c| crate::store::tables::inbound::overdue(c, before).map(|g| !g.is_empty()))
            .await;
        match any {
            Ok(false) => continue,
            Ok(true) => {}
            Err(e) => {
                tracing::error!(error = %e, "looking for long replies still waiting for a part failed");
                continue;
            }
        }
        match store
            .writer()
            .write(move |tx| crate::inbox::file_overdue(tx, &rules))
            .await
        {
            Ok(n) => tracing::info!(replies = n, "long replies shown without the parts that never came"),
            Err(e) => tracing::error!(error = %e, "showing long replies without their missing parts failed"),
        }
    }
}

/// Flags accepted messages whose final receipt is overdue, once a minute. The search runs on a
/// read connection; only the flagging goes through the writer.
async fn sweep_deadlines(store: Arc<Store>, service: Service) {
    let mut every = tokio::time::interval(DEADLINE_SWEEP_EVERY);
    loop {
        every.tick().await;
        // Read each time: the deadline is a setting that changes without a restart.
        let policy = service.policy();
        let now = store.clock().now_ms();
        // First past what settled since the last sweep, so that the search reads only what may
        // still become due (a bounded piece at a time: a database that never had a frontier gets
        // one within minutes, without holding the writer up).
        if let Err(e) = store
            .writer()
            .write(|tx| deadline::advance_frontier(tx, FRONTIER_SPAN))
            .await
        {
            tracing::error!(error = %e, "moving the deadline search's frontier failed");
        }
        let p = policy.clone();
        let due = match store
            .reader()
            .read(move |c| deadline::due(c, now, &p, None, CHUNK))
            .await
        {
            Ok(d) if d.is_empty() => continue,
            Ok(d) => d,
            Err(e) => {
                tracing::error!(error = %e, "deadline search failed");
                continue;
            }
        };
        let p = policy.clone();
        match store.writer().write(move |tx| deadline::flag(tx, &due, now, &p)).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(messages = n, "no final receipt by the deadline"),
            Err(e) => tracing::error!(error = %e, "deadline sweep failed"),
        }
    }
}
