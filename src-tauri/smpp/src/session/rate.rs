//! The window (requests awaiting an answer at most) and the rate (submits per second at most),
//! which settings may change while the session runs, and slowing down when the SMSC throttles.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio::time::Instant;

use super::{Inner, SessionHandle};

/// After ESME_RTHROTTLED, the rate is divided by this for [`SLOW_DOWN_FOR`].
const SLOW_DOWN_FACTOR: f64 = 4.0;
const SLOW_DOWN_FOR: Duration = Duration::from_secs(10);

impl SessionHandle {
    /// The SMSC asked us to slow down (ESME_RTHROTTLED): the rate is cut to a quarter for a while.
    pub fn slow_down(&self) {
        *self.inner.slowed_until.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now() + SLOW_DOWN_FOR);
        tracing::info!("throttled by the SMSC: sending at a quarter of the rate for {SLOW_DOWN_FOR:?}");
    }

    /// The window and the rate in force: (requests awaiting an answer at most, submits per second).
    pub fn limits(&self) -> (usize, f64) {
        self.inner.limits()
    }

    /// Changes the window and the rate without touching the link. A smaller window takes effect
    /// as answers come back: nothing in flight is cut short.
    pub fn set_limits(&self, window: usize, tps: f64) {
        let window = window.max(1);
        let old = {
            let mut limits = self.inner.limits.lock().unwrap_or_else(|p| p.into_inner());
            let old = limits.0;
            *limits = (window, tps);
            old
        };
        resize_window(&self.inner.window, old, window);
        tracing::info!(window, tps, "SMPP window and rate changed");
    }
}

/// Grows or shrinks the window from `old` to `new` slots. Slots in use are taken away as they
/// come back (by a task that waits for them), never from a request in flight.
fn resize_window(window: &Arc<Semaphore>, old: usize, new: usize) {
    if new > old {
        window.add_permits(new - old);
    } else if new < old {
        let excess = old - new;
        let forgotten = window.forget_permits(excess);
        if forgotten < excess {
            let window = window.clone();
            tokio::spawn(async move {
                if let Ok(p) = window.acquire_many_owned((excess - forgotten) as u32).await {
                    p.forget();
                }
            });
        }
    }
}

impl Inner {
    /// The window and the rate in force.
    fn limits(&self) -> (usize, f64) {
        *self.limits.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits for this submit's turn under the rate limit, and books the next one's.
    pub(super) async fn wait_for_rate(&self) {
        // Token bucket of one: submits are spaced at least 1/tps apart.
        let mut next = self.next_slot.lock().await;
        let now = Instant::now();
        if *next > now {
            tokio::time::sleep_until(*next).await;
        }
        *next = (*next).max(now) + self.gap(now);
    }

    /// The spacing between two submits at the rate in force at `now`: 1/tps, or
    /// [`SLOW_DOWN_FACTOR`] times that while the SMSC's throttling lasts.
    fn gap(&self, now: Instant) -> Duration {
        let slowed = self
            .slowed_until
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some_and(|u| u > now);
        let tps = self.limits().1.max(0.001) / if slowed { SLOW_DOWN_FACTOR } else { 1.0 };
        Duration::from_secs_f64(1.0 / tps)
    }
}
