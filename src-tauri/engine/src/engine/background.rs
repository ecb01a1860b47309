//! The periodic work that runs beside the rest: overdue receipt deadlines, and receipts that
//! waited long enough for their message.

use std::sync::Arc;
use std::time::Duration;

use super::CHUNK;
use crate::receipts::{deadline, uncorrelated};
use crate::service::Service;
use crate::store::Store;

/// How often receipts waiting for their message are looked at.
const UNCORRELATED_SWEEP_EVERY: Duration = Duration::from_secs(1);
/// How often overdue receipt deadlines are looked for.
const DEADLINE_SWEEP_EVERY: Duration = Duration::from_secs(60);

/// Spawns both sweeps; the engine aborts them when it stops.
pub(super) fn background(store: &Arc<Store>, service: &Service) -> Vec<tokio::task::JoinHandle<()>> {
    vec![
        tokio::spawn(sweep_deadlines(store.clone(), service.clone())),
        tokio::spawn({
            let service = service.clone();
            uncorrelated::keep_sweeping(store.clone(), move || service.policy(), UNCORRELATED_SWEEP_EVERY)
        }),
    ]
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
