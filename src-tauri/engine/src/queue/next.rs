//! What the queue did with a message after a submit.

use smsdesk_core::retry::GiveUp;

/// What the queue did with the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Every part is accepted.
    Accepted,
    /// This part is accepted; others remain to be sent.
    PartAccepted,
    RetryAt {
        at: i64,
        slow_down: bool,
    },
    Failed(GiveUp),
    /// The outcome is unknown, or some parts went out and others cannot: an exception waits for a
    /// person (never resent blindly).
    Held {
        exception_id: i64,
    },
}
