//! The durable queue's transitions, as writer operations: claim under a lease (priorities,
//! per-ordering-key FIFO, scheduled sends), expire what outlived its validity, record what a
//! submit came to, and recover after a crash without ever submitting anything twice.
//!
//! Where each part lives:
//! - `claim`: claiming under a lease, and giving back what was not tried;
//! - `hold`: expiry, and holding a message for a person;
//! - `recover`: putting right what a send left half-done, after a crash or while running;
//! - `results`: recording the result of one submit (retry with backoff, give up, or hold);
//! - `actions`: an operator's retry, cancel and mark-failed, and the duplicate-risk confirmation;
//! - `rules`: the rules a retry meets, shared by the retry and the advice the detail shows.
//!
//! Why the queue holds a message where it is, as a code and a sentence, is `queue_reason`'s, beside
//! this module: the opt-out list holds messages with it too.
//!
//! What crosses into receipts (matching the receipts that waited for an accepted submit's id,
//! settling a message by a receipt a person attached) is the `decisions` module's, above both.

mod actions;
mod claim;
mod hold;
mod next;
mod recover;
mod results;
pub mod rules;

pub(crate) use self::actions::{audit, close_exception};
pub use self::actions::{cancel, mark_failed, operator_retry, retry, ActionError, Confirmed};
pub use self::claim::{claim, give_back};
pub use self::hold::{expire, expire_claimed};
pub use self::next::Next;
pub use self::recover::{dead_owners, recover, recover_stranded};
pub use self::results::{accept, record, SendPolicy, SubmitResult};
pub use self::rules::{duplicate_risk, DuplicateRisk, RetryLimits};
pub use crate::store::tables::queue::{
    expiry_due, leased_to, parts_accepted, queued_for, set_route, status, stranded, unrouted, Claimed, Serving,
    Unrouted,
};

#[cfg(test)]
mod nodes_tests;
#[cfg(test)]
mod report_tests;
#[cfg(test)]
mod tests;
