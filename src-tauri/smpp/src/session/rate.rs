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
        for bind in &self.inner.binds {
            resize_window(&bind.window, old, window);
        }
        self.inner.changed.notify_one();
        tracing::info!(window, tps, "SMPP window and rate changed");
    }
}

/// At rates above one submit a millisecond, a submit may go this much ahead of its exact turn.
/// Timers wake up on millisecond ticks: without it, a submit booked a few microseconds ahead slept
/// a whole tick while the others queued behind it, and a rate of 100,000/s sent about 2,500 a
/// second (see [`book`]).
const AHEAD: Duration = Duration::from_millis(1);

/// Books a submit asked for at `now`, when the next turn is `next` and turns are `gap` apart:
/// the turn after it, and when it may go (`None`: at once). Turns are exact (a virtual schedule,
/// which idle time does not bank: a submit after a pause takes its turn from `now`); a submit
/// waits only when its turn is more than [`AHEAD`] away, and then until it is that close, so in
/// any interval of length T at most (T + AHEAD) / gap + 1 submits go. At 1,000/s or less no
/// submit goes ahead of its turn.
fn book(next: Instant, now: Instant, gap: Duration) -> (Instant, Option<Instant>) {
    let turn = next.max(now);
    let ahead = if gap < AHEAD { AHEAD } else { Duration::ZERO };
    let may_go = turn.checked_sub(ahead).unwrap_or(turn);
    (turn + gap, (may_go > now).then_some(may_go))
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

    /// Waits for this submit's turn under the rate limit, and books it. The lock is held only to
    /// book the turn, never while waiting for it, so submits wait side by side in booking order.
    pub(super) async fn wait_for_rate(&self) {
        let wait_until = {
            let mut next = self.next_slot.lock().unwrap_or_else(|p| p.into_inner());
            let now = Instant::now();
            let (booked, wait_until) = book(*next, now, self.gap(now));
            *next = booked;
            wait_until
        };
        if let Some(at) = wait_until {
            tokio::time::sleep_until(at).await;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Books `n` submits all asked for at `now`; returns when each may go.
    fn burst(n: usize, now: Instant, gap: Duration) -> Vec<Instant> {
        let mut next = now;
        (0..n)
            .map(|_| {
                let (booked, wait) = book(next, now, gap);
                next = booked;
                wait.unwrap_or(now)
            })
            .collect()
    }

    #[test]
    fn below_a_thousand_a_second_submits_keep_their_exact_turns() {
        let now = Instant::now();
        let gap = Duration::from_millis(10); // 100/s
        let go = burst(5, now, gap);
        for (i, at) in go.iter().enumerate() {
            assert_eq!(*at, now + gap * i as u32, "submit {i} waits for its exact turn");
        }
    }

    #[test]
    fn at_high_rates_a_millisecond_of_turns_goes_at_once_and_the_rest_keeps_the_rate() {
        let now = Instant::now();
        let gap = Duration::from_micros(10); // 100,000/s
        let go = burst(1_000, now, gap);
        let at_once = go.iter().filter(|at| **at == now).count();
        assert_eq!(at_once, 101, "turns up to 1 ms ahead go at once");
        // Every later submit goes exactly 1 ms before its turn: the rate holds.
        for (i, at) in go.iter().enumerate().skip(at_once) {
            assert_eq!(*at + AHEAD, now + gap * i as u32, "submit {i}");
        }
        // In the first 5 ms, no more than (5 ms + 1 ms) / gap + 1 went.
        let within = go.iter().filter(|at| **at <= now + Duration::from_millis(5)).count();
        assert_eq!(within, 601, "the bound on any interval holds, and is reached");
    }

    #[test]
    fn idle_time_is_not_banked() {
        let start = Instant::now();
        let gap = Duration::from_millis(100); // 10/s
        let (next, _) = book(start, start, gap);
        // A second later the next submit goes at once, and the one after waits a whole gap.
        let later = start + Duration::from_secs(1);
        let (next, wait) = book(next, later, gap);
        assert_eq!(wait, None);
        let (_, wait) = book(next, later, gap);
        assert_eq!(wait, Some(later + gap));
    }
}
