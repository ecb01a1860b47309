//! Time, as the engine reads it: from the one [`Clock`] the store carries (see
//! `smsdesk_core::time`), and calendar arithmetic.

pub use smsdesk_core::time::{civil, format_rfc3339, from_civil, jitter, parse_rfc3339, Clock, TimestampError};

/// A clock that follows tokio's time on the runtime it is made on, starting at the wall clock's
/// reading. In a test whose time is paused (`#[tokio::test(start_paused = true)]`) it moves only
/// as the test's timers do, so a retry due in an hour is reached without waiting an hour, and the
/// store's writer thread, the dispatcher and the session all read the same "now". It is read
/// through the runtime's handle, so other threads (the writer's) read the same paused time, and
/// the store then waits for its writer as runtime work, so that paused time does not jump while
/// the writer thread works.
pub fn following_tokio() -> Clock {
    let runtime = tokio::runtime::Handle::current();
    let start = tokio::time::Instant::now();
    let at = Clock::system().now_ms();
    Clock::with_runtime(move || {
        let _on_runtime = runtime.enter();
        at + tokio::time::Instant::now().duration_since(start).as_millis() as i64
    })
}
