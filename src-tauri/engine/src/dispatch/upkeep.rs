//! The queue's upkeep while the dispatcher runs: queued messages marked expired on time, and
//! recovery of stranded sends.
//!
//! What the dispatcher is sending now, and recovery while it runs: a message left `sending` that
//! no send is under way for is put right by the rules start-up recovery follows (back in the
//! queue when nothing of it may be on the wire, held with an outcome-unknown exception when a try
//! may be), without waiting for a restart. Such a message is the dispatcher's own claim whose
//! send ended without recording what it came to (the full disk refused the write, or the session
//! granted no send slot), or one whose lease ran out.
//!
//! A claim and the mark that its send is under way are made under one gate, and the sweep
//! decides under the same gate: it never takes a message just claimed for an abandoned one.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;

use crate::queue;
use crate::store::Store;

/// The messages whose send is under way in this process.
#[derive(Default)]
pub(super) struct Claims {
    sending: Mutex<HashSet<i64>>,
    gate: tokio::sync::Mutex<()>,
}

/// Marks one message's send as under way until dropped (however the send ends).
pub(super) struct Sending {
    claims: Arc<Claims>,
    message_id: i64,
}

impl Drop for Sending {
    fn drop(&mut self) {
        self.claims.set().remove(&self.message_id);
    }
}

impl Claims {
    fn set(&self) -> std::sync::MutexGuard<'_, HashSet<i64>> {
        self.sending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Held while claiming and marking what was claimed; the sweep waits for it.
    pub(super) async fn gate(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.gate.lock().await
    }

    /// Marks `message_id`'s send as under way (call it holding the gate, with the claim).
    pub(super) fn sending(self: &Arc<Self>, message_id: i64) -> Sending {
        self.set().insert(message_id);
        Sending {
            claims: self.clone(),
            message_id,
        }
    }
}

/// How often the sweep looks for stranded messages (and for the leases of nodes found dead): a
/// quarter of the lease, within 100 ms to a node's heartbeat.
pub(super) fn sweep_every(lease: Duration) -> Duration {
    (lease / 4).clamp(Duration::from_millis(100), crate::instance::HEARTBEAT)
}

/// Looks every `every` for messages left `sending` that no send is under way for, and settles
/// them. The look is a read; the writer is asked only when one is found.
pub(super) async fn recover_stranded(
    store: Arc<Store>,
    claims: Arc<Claims>,
    owner: String,
    every: Duration,
    mut stopped: watch::Receiver<bool>,
) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stopped.changed() => return,
        }
        let now = store.clock().now_ms();
        let o = owner.clone();
        let look = move |c: &crate::store::Connection| {
            let dead = queue::dead_owners(c, now, &o)?;
            Ok::<_, crate::store::StoreError>((queue::stranded(c, now, &o, &dead)?, dead))
        };
        let Ok((found, dead)) = store.reader().read(look).await else {
            continue;
        };
        if found.is_empty() {
            continue;
        }
        let _gate = claims.gate().await;
        let candidates: Vec<i64> = {
            let sending = claims.set();
            found.into_iter().filter(|id| !sending.contains(id)).collect()
        };
        if candidates.is_empty() {
            continue;
        }
        let o = owner.clone();
        match store
            .writer()
            .write(move |tx| queue::recover_stranded(tx, &candidates, now, &o, &dead))
            .await
        {
            Ok((0, 0)) => {}
            Ok((requeued, unknown)) => tracing::warn!(
                requeued,
                unknown,
                "recovered messages whose send ended without its outcome recorded"
            ),
            Err(e) => tracing::warn!(error = %e, "cannot recover stranded messages yet; will try again"),
        }
    }
}

/// How often queued messages past their validity are looked for (and marked expired).
const EXPIRE_EVERY: Duration = Duration::from_secs(1);

/// Marks queued messages expired once their validity ends, whether or not the link is up (the
/// sending loop waits for the link; this does not). The look is a read; the writer is asked only
/// when something is due.
pub(super) async fn expire_on_time(store: Arc<Store>, mut stopped: watch::Receiver<bool>) {
    let mut every = tokio::time::interval(EXPIRE_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = every.tick() => {}
            _ = stopped.changed() => return,
        }
        let now = store.clock().now_ms();
        let due = store
            .reader()
            .read(move |c| queue::expiry_due(c, now))
            .await
            .unwrap_or(true);
        if !due {
            continue;
        }
        match store.writer().write(move |tx| queue::expire(tx, now)).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(messages = n, "expired before they could be sent"),
            Err(e) => tracing::error!(error = %e, "expiring messages failed"),
        }
    }
}
