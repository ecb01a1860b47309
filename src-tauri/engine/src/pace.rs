//! How fast messages go out, and how long the queue will take: the limits the session sends by
//! (the embedded sandbox's own, or the provider account's from the settings), the rate measured
//! from the submits the SMSC accepted in the last minute, and what that makes of the queue.
//!
//! [`sending_limits`] is the one rule that picks the session's window and rate: the sending side
//! starts with it and settings changes applied while running go through it too, so the sandbox
//! is never held to a provider's limits, nor a provider sent to at the sandbox's.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::config::SmppSettings;
use crate::store::totals::MINUTE_MS;
use crate::views::PaceCounts;

/// The window the session keeps with the embedded sandbox SMSC: requests awaiting their answer at
/// most. 64 is what the dispatch benchmark sends to the sandbox with (docs/benchmarks.md): enough
/// in flight that the loopback round trip never holds the rate back, well within what the
/// sandbox answers at once.
pub const SANDBOX_WINDOW: u32 = 64;

/// Submits per second at most to the embedded sandbox SMSC. The sandbox is on this computer and
/// has no account limit, so a first campaign of 20,000 messages takes 20 s rather than the
/// 33 min the provider default (10/s) would make it. It is a limit all the same, well below the
/// 5,000–7,000/s the dispatcher sustains against the sandbox in the benchmark: the pace shown is
/// the pace had (on a slower machine too), and the database writer and the window keep their
/// share of the processor while a campaign goes out.
pub const SANDBOX_TPS: u32 = 1_000;

/// Whose limits the session sends by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PaceConnection {
    /// The embedded sandbox SMSC, at its own pace ([`SANDBOX_WINDOW`], [`SANDBOX_TPS`]).
    Sandbox,
    /// The provider's SMSC, at the account's limits (`smpp.window`, `smpp.tps`).
    Provider,
}

/// The window and the rate a session sends by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendingLimits {
    pub connection: PaceConnection,
    /// Requests awaiting their answer at most, on each sending bind.
    pub window: u32,
    /// Sending binds, each with its own window.
    pub binds: u32,
    /// Submits per second at most.
    pub tps: u32,
}

/// The limits the session sends by under `smpp`: the sandbox's own while it is the connection
/// (`smpp.window` and `smpp.tps` are the provider account's, and apply as soon as it is not).
pub fn sending_limits(smpp: &SmppSettings) -> SendingLimits {
    if smpp.sandbox {
        SendingLimits {
            connection: PaceConnection::Sandbox,
            window: SANDBOX_WINDOW,
            binds: 1,
            tps: SANDBOX_TPS,
        }
    } else {
        SendingLimits {
            connection: PaceConnection::Provider,
            window: smpp.window.0,
            binds: smpp.binds.0,
            tps: smpp.tps.0,
        }
    }
}

/// How fast messages go out and how long those waiting will take, as the dashboard and the
/// settings screen say it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct Pace {
    /// The time the figures are for.
    #[ts(type = "number")]
    pub at_ms: i64,
    /// Whose limits apply: the sandbox's own, or the provider account's.
    pub connection: PaceConnection,
    /// Submits per second at most, as the session applies it now.
    pub tps_limit: u32,
    /// Requests awaiting their answer at most, as the session applies it now: the window of each
    /// sending bind, times the binds.
    pub window: u32,
    /// The most messages per second these limits allow (one submit per message part). The window
    /// can hold it lower when the SMSC answers slowly: `window` answers per round trip at most.
    pub max_rate_per_s: u32,
    /// Messages the dispatcher sends now: queued and due (their time has come) or being sent.
    /// Those scheduled for later or waiting for a retry are `scheduled`; held messages wait for
    /// a person and are counted in neither.
    #[ts(type = "number")]
    pub queued: i64,
    /// Submits the SMSC accepted per second, measured over the last minute (0 when idle).
    pub sent_last_minute_per_s: f64,
    /// About how long the queued messages will take, in seconds: at the measured rate while
    /// sending (never above the limit), at the limit otherwise. 0 when nothing waits.
    #[ts(type = "number")]
    pub eta_seconds: u64,
    /// The sandbox's own rate, whatever the connection ([`SANDBOX_TPS`]): the settings screen
    /// says what a switch to or from the sandbox changes.
    pub sandbox_tps_limit: u32,
    /// The sandbox's own window, whatever the connection ([`SANDBOX_WINDOW`]).
    pub sandbox_window: u32,
    /// Queued messages not due yet (scheduled for later, or waiting for a retry time): not in
    /// `queued` nor in the ETA.
    #[ts(type = "number")]
    pub scheduled: i64,
    /// When the first of them is due; null when none waits.
    #[ts(type = "number | null")]
    pub next_scheduled_at_ms: Option<i64>,
}

impl Pace {
    /// The pace at `at_ms` under `limits`, from what the store counted.
    pub fn new(at_ms: i64, limits: SendingLimits, counts: PaceCounts) -> Pace {
        let measured = measured_rate(counts.accepted_previous_minute, counts.accepted_this_minute, at_ms);
        let max_rate = limits.tps.max(1);
        Pace {
            at_ms,
            connection: limits.connection,
            tps_limit: limits.tps,
            window: limits.window.saturating_mul(limits.binds.max(1)),
            max_rate_per_s: max_rate,
            queued: counts.due,
            sent_last_minute_per_s: measured,
            eta_seconds: eta_seconds(counts.due, measured, max_rate),
            sandbox_tps_limit: SANDBOX_TPS,
            sandbox_window: SANDBOX_WINDOW,
            scheduled: counts.scheduled,
            next_scheduled_at_ms: counts.next_scheduled_at_ms,
        }
    }
}

/// Submits accepted per second over the last minute, from the counts of the current minute
/// (`this_minute`, so far) and the one before (`previous_minute`) at `now_ms`. The previous
/// minute counts for the share of it that falls within the last 60 s, as if spread evenly. A
/// campaign that started within the current minute is measured over the part of the minute
/// gone by instead (the higher of the two): it was not idle before, it had not begun.
pub fn measured_rate(previous_minute: i64, this_minute: i64, now_ms: i64) -> f64 {
    let into = now_ms.rem_euclid(MINUTE_MS) as f64 / 1_000.0;
    let minute = MINUTE_MS as f64 / 1_000.0;
    let (previous, current) = (previous_minute.max(0) as f64, this_minute.max(0) as f64);
    let over_last_minute = (previous * (minute - into) / minute + current) / minute;
    let over_this_minute = current / into.max(1.0);
    over_last_minute.max(over_this_minute)
}

/// Seconds `waiting` messages take: at `measured` per second while sending (never above
/// `max_rate`), at `max_rate` when nothing was measured.
pub fn eta_seconds(waiting: i64, measured: f64, max_rate: u32) -> u64 {
    if waiting <= 0 {
        return 0;
    }
    let max_rate = f64::from(max_rate.max(1));
    let rate = if measured > 0.0 {
        measured.min(max_rate)
    } else {
        max_rate
    };
    (waiting as f64 / rate).ceil() as u64
}

#[cfg(test)]
mod tests;
