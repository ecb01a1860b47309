//! What crosses receipts and the queue, decided in one place above both, so that neither imports
//! the other:
//!
//! - `accepted`: an accepted submit brings the provider's id, and the receipts that arrived first
//!   and waited for it are matched;
//! - `evidence`: a receipt a person attached to a message whose try went unanswered settles it;
//! - `resolve`: an operator's resolution of an exception, which may drive the queue (resend, mark
//!   failed, cancel) or the receipts (attach, choose a state), and the comparison of its receipt
//!   with the messages it may belong to that a person reads first.

mod accepted;
mod evidence;
mod resolve;

pub use self::accepted::{record_accepted, record_submit, Accepted};
pub use self::evidence::accepted_by_evidence;
pub use self::resolve::{compare_candidates, preview_attach, resolve, Action, Resolution, ResolveError};
