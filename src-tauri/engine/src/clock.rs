//! Time is read through one function so that later rules can be driven by an injected clock.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch, the unit every timestamp in the store uses.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
