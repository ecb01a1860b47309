//! Time, as the engine reads it (see `smsdesk_core::time`).

pub use smsdesk_core::time::{civil, format_rfc3339, from_civil, jitter, now_ms, parse_rfc3339, TimestampError};
