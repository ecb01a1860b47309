//! What counts as slow for the store's own debug traces (a write transaction, the work between
//! two, a background checkpoint): long enough to hold up the requests waiting for the writer.

use std::time::Duration;

/// Work of the store longer than this is logged (at debug).
pub const SLOW: Duration = Duration::from_millis(10);
