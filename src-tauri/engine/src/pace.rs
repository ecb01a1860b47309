//! How fast messages go out: the limits the session sends by (the embedded sandbox's own, or the
//! provider account's from the settings).
//!
//! [`sending_limits`] is the one rule that picks the session's window and rate: the sending side
//! starts with it and settings changes applied while running go through it too, so the sandbox
//! is never held to a provider's limits, nor a provider sent to at the sandbox's.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::config::SmppSettings;

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
    /// Requests awaiting their answer at most.
    pub window: u32,
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
            tps: SANDBOX_TPS,
        }
    } else {
        SendingLimits {
            connection: PaceConnection::Provider,
            window: smpp.window.0,
            tps: smpp.tps.0,
        }
    }
}

#[cfg(test)]
mod tests;
