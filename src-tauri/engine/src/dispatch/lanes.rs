//! One connection's sending loop: a session permit first, then a claim of what the router gives
//! that connection now, each message sent with the permit in hand or the next one the session
//! grants. Every connection's loop shares one record of the sends under way, so in-run recovery
//! (run once for all of them) never takes a message a loop is still sending.

use std::sync::Arc;

use tokio::sync::watch;

use super::config::Rules;
use super::routing::Router;
use super::send::{send, Patience};
use super::upkeep::{Claims, Sending};
use crate::queue::{self, Claimed, Serving};
use crate::smpp::session::{Permit, SessionHandle};
use crate::store::{Store, StoreError};

pub(super) async fn run(
    store: Arc<Store>,
    session: SessionHandle,
    rules: watch::Receiver<Rules>,
    claims: Arc<Claims>,
    router: Arc<Router>,
    mut stopped: watch::Receiver<bool>,
) {
    let mut in_flight = tokio::task::JoinSet::new();
    loop {
        let (receipts, config) = rules.borrow().clone();
        if *stopped.borrow() {
            break;
        }
        while in_flight.len() >= config.max_in_flight.max(1) {
            in_flight.join_next().await;
        }
        let permit = tokio::select! {
            p = session.reserve() => p,
            _ = stopped.changed() => break,
        };
        let Ok(permit) = permit else {
            tokio::time::sleep(config.idle_poll).await;
            continue;
        };
        let (owner, lease, batch) = (
            config.owner.clone(),
            config.lease.as_millis() as i64,
            config.claim_batch.max(1),
        );
        let serving = router.serving(session.connection(), store.clock().now_ms());
        let claimed = claim(&store, &claims, owner, lease, batch, serving).await;
        match claimed {
            Ok(claimed) if !claimed.is_empty() => {
                // The first goes with the permit in hand; the others wait for theirs, so nothing is
                // attempted while the link is down even if it drops now.
                let mut permit = Some(permit);
                for (message, sending) in claimed {
                    let (store, session, receipts, config) =
                        (store.clone(), session.clone(), receipts.clone(), config.clone());
                    let first = permit.take();
                    let why = router.why(message.route.as_deref(), session.connection(), store.clock().now_ms());
                    let patience = Patience {
                        lease: config.lease,
                        stopped: stopped.clone(),
                    };
                    let router = router.clone();
                    in_flight.spawn(async move {
                        // Until this send ends, in-run recovery leaves the message alone.
                        let _sending = sending;
                        let permit = match first {
                            Some(p) => Some(p),
                            None => first_permit(&store, &session, &router, &message).await,
                        };
                        let Some(permit) = permit else {
                            // Stopping (the lease is left for recovery), or given back to the
                            // queue for another connection: nothing was attempted.
                            return;
                        };
                        send(store, session, permit, message, (receipts, config), &patience, why).await;
                    });
                }
            }
            Ok(_) => {
                drop(permit);
                tokio::select! {
                    _ = tokio::time::sleep(config.idle_poll) => {}
                    _ = stopped.changed() => break,
                }
            }
            Err(e) => {
                tracing::error!(error = %e, "claiming from the queue failed");
                tokio::time::sleep(config.idle_poll).await;
            }
        }
        while in_flight.try_join_next().is_some() {}
    }
    while in_flight.join_next().await.is_some() {}
}

/// Claims up to `batch` due messages under a lease held by `owner`, each marked as being sent
/// before in-run recovery may look (see [`Claims`]).
async fn claim(
    store: &Arc<Store>,
    claims: &Arc<Claims>,
    owner: String,
    lease: i64,
    batch: u32,
    serving: Serving,
) -> Result<Vec<(Claimed, Sending)>, StoreError> {
    let _gate = claims.gate().await;
    let claimed = store
        .writer()
        .write_replayable(move |tx| {
            let now = tx.now_ms();
            queue::claim(tx, &owner, now, lease, batch, &serving)
        })
        .await?;
    Ok(claimed
        .into_iter()
        .map(|m| {
            let sending = claims.sending(m.message_id);
            (m, sending)
        })
        .collect())
}

/// How often a message waiting for its first permit looks whether its connection still serves it.
const GIVE_BACK_CHECK: std::time::Duration = std::time::Duration::from_secs(1);

/// The session's next permit for a message claimed and not yet tried; or, should its connection
/// stop serving its route meanwhile (down past the grace, its binds refused, held by an operator),
/// None once the message is given back to the queue, nothing recorded, for the connection that
/// serves it now. None too when the session grants no permit (stopping).
async fn first_permit(store: &Arc<Store>, session: &SessionHandle, router: &Router, m: &Claimed) -> Option<Permit> {
    let reserve = session.reserve();
    tokio::pin!(reserve);
    loop {
        let permit = tokio::select! {
            permit = &mut reserve => Some(permit.ok()?),
            _ = tokio::time::sleep(GIVE_BACK_CHECK) => None,
        };
        let now = store.clock().now_ms();
        // Looked at once more with the permit in hand: a hold set while it waited is obeyed.
        if m.pinned || router.takes(m.route.as_deref(), m.kind, session.connection(), now) {
            match permit {
                Some(p) => return Some(p),
                None => continue,
            }
        }
        let had_permit = permit.is_some();
        drop(permit);
        let (id, connection) = (m.message_id, session.connection().to_owned());
        let why = crate::queue_reason::rerouted(&connection);
        let back = store.writer().write(move |tx| queue::give_back(tx, id, &why)).await;
        match back {
            Ok(()) => return None,
            // Its lease runs out, and recovery gives it back.
            Err(e) if had_permit => {
                tracing::warn!(error = %e, message = id, "cannot give a claimed message back to the queue; its lease will");
                return None;
            }
            Err(e) => {
                tracing::warn!(error = %e, message = id, "cannot give a waiting message back to the queue; it waits for its connection")
            }
        }
    }
}
