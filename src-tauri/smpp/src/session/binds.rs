//! A connection's binds: each one's link and state, the state of the whole connection made from
//! theirs, and finding a bound sending bind with a free window slot for the next submit.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::{watch, Notify, OwnedSemaphorePermit, Semaphore};

use super::answer::SubmitFailure;
use super::{BindRole, Inner, Link, LinkState};

/// One bind of the connection: its own TCP connection, bound as `role`.
pub(super) struct Bind {
    pub(super) role: BindRole,
    /// Names the bind in its session ids (empty for a connection's lone transceiver).
    pub(super) label: String,
    pub(super) state: watch::Sender<LinkState>,
    pub(super) link: watch::Sender<Option<Link>>,
    /// Requests awaiting their answer on this bind.
    pub(super) window: Arc<Semaphore>,
}

impl Bind {
    pub(super) fn new(role: BindRole, label: String, window: usize) -> Bind {
        Bind {
            role,
            label,
            state: watch::channel(LinkState::Connecting { attempt: 1 }).0,
            link: watch::channel(None).0,
            window: Arc::new(Semaphore::new(window)),
        }
    }
}

/// A window slot on one bind, held until the submit's answer came (or never will). Letting it go
/// wakes whoever waits for a slot.
pub(super) struct Slot {
    permit: Option<OwnedSemaphorePermit>,
    freed: Arc<Notify>,
    under_way: Arc<AtomicUsize>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        // The slot goes back before the waiter is woken, or it could look and find none.
        drop(self.permit.take());
        self.under_way.fetch_sub(1, Ordering::AcqRel);
        self.freed.notify_one();
    }
}

impl Inner {
    /// Sets bind `i`'s state, and the connection's from all of them.
    pub(super) fn set_state(&self, i: usize, state: LinkState) {
        self.binds[i].state.send_replace(state);
        let states: Vec<(BindRole, LinkState)> =
            self.binds.iter().map(|b| (b.role, b.state.borrow().clone())).collect();
        self.state.send_replace(overall(&states));
        self.changed.notify_one();
    }

    /// Hands bind `i`'s link to the senders (or takes it from them).
    pub(super) fn set_link(&self, i: usize, link: Option<Link>) {
        self.binds[i].link.send_replace(link);
        self.changed.notify_one();
    }

    /// Waits for a bound sending bind with a free window slot, and takes the slot. Callers wait
    /// their turn in the order they came (one at a time looks for a slot), and the binds are
    /// taken in turn. An error once no link is coming (stopped, or the credentials refused).
    pub(super) async fn free_slot(&self) -> Result<(usize, Slot), SubmitFailure> {
        let _turn = self.turn.lock().await;
        loop {
            let woken = self.changed.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            if let Some(found) = self.try_slot() {
                return Ok(found);
            }
            if self
                .binds
                .iter()
                .filter(|b| b.role.sends())
                .all(|b| matches!(*b.state.borrow(), LinkState::Stopped | LinkState::BindRefused { .. }))
            {
                return Err(SubmitFailure::NotSent("the session is stopped".into()));
            }
            woken.await;
        }
    }

    /// A free slot on a bound sending bind, looking from the bind after the last one used.
    fn try_slot(&self) -> Option<(usize, Slot)> {
        let n = self.binds.len();
        let start = self.next_bind.fetch_add(1, Ordering::Relaxed);
        (0..n).map(|k| (start + k) % n).find_map(|i| {
            let bind = &self.binds[i];
            if !bind.role.sends() || bind.link.borrow().is_none() {
                return None;
            }
            let permit = bind.window.clone().try_acquire_owned().ok()?;
            self.under_way.fetch_add(1, Ordering::AcqRel);
            Some((
                i,
                Slot {
                    permit: Some(permit),
                    freed: self.changed.clone(),
                    under_way: self.under_way.clone(),
                },
            ))
        })
    }
}

/// The connection's state from its binds': bound while any sending bind is; otherwise the first
/// sending bind's trouble (down before connecting before refused), and stopped once all are.
/// A receiver bind's state is its own: sending does not wait for it.
pub(super) fn overall(binds: &[(BindRole, LinkState)]) -> LinkState {
    let sending: Vec<&LinkState> = binds.iter().filter(|(r, _)| r.sends()).map(|(_, s)| s).collect();
    let first = |f: fn(&LinkState) -> bool| sending.iter().find(|s| f(s)).map(|s| (*s).clone());
    first(|s| matches!(s, LinkState::Bound { .. }))
        .or_else(|| first(|s| matches!(s, LinkState::Down { .. })))
        .or_else(|| first(|s| matches!(s, LinkState::Connecting { .. })))
        .or_else(|| first(|s| matches!(s, LinkState::BindRefused { .. })))
        .unwrap_or(LinkState::Stopped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound(id: &str) -> LinkState {
        LinkState::Bound {
            session_id: id.into(),
            since_ms: 1,
        }
    }

    fn down() -> LinkState {
        LinkState::Down {
            error: "lost".into(),
            since_ms: 1,
            retry_in_ms: 1_000,
        }
    }

    fn refused() -> LinkState {
        LinkState::BindRefused {
            status: 0x0E,
            name: "ESME_RINVPASWD".into(),
            since_ms: 1,
        }
    }

    #[test]
    fn the_connection_is_bound_while_any_sending_bind_is() {
        use BindRole::*;
        let states = [(Transmitter, down()), (Transmitter, bound("b")), (Receiver, down())];
        assert_eq!(overall(&states), bound("b"));
    }

    #[test]
    fn a_bound_receiver_alone_does_not_make_the_connection_bound() {
        use BindRole::*;
        let states = [(Transmitter, down()), (Receiver, bound("r"))];
        assert_eq!(overall(&states), down());
    }

    #[test]
    fn without_a_bound_bind_the_worst_news_shows_and_stopped_only_once_all_are() {
        use BindRole::*;
        let connecting = LinkState::Connecting { attempt: 2 };
        assert_eq!(overall(&[(Transceiver, refused()), (Transceiver, down())]), down());
        assert_eq!(
            overall(&[(Transceiver, refused()), (Transceiver, connecting.clone())]),
            connecting
        );
        assert_eq!(
            overall(&[(Transceiver, LinkState::Stopped), (Transceiver, refused())]),
            refused()
        );
        assert_eq!(
            overall(&[(Transceiver, LinkState::Stopped), (Receiver, bound("r"))]),
            LinkState::Stopped
        );
    }
}
