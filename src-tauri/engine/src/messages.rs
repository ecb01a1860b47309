//! Messages and their submit attempts: intake (API, CSV, compose) and the dispatcher build on
//! these. The rows are the store's (`tables::message`, `tables::attempt`); recording an accepted
//! submit also matches the receipts that arrived before it.

use crate::receipts::correlate;
use crate::receipts::policy::ReceiptPolicy;
use crate::store::tables::attempt;
use crate::store::{StoreError, WriteTx};

pub use crate::store::tables::attempt::{begin_attempt, AttemptRef, Wire};
pub use crate::store::tables::message::insert;
pub use smsdesk_core::message::{queue_priority, Idempotency, NewMessage, DEFAULT_PRIORITY};

/// What recording an accepted submit did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Accepted {
    /// Every part of the message is now accepted (in its current round of sending).
    pub whole: bool,
    /// Receipts that arrived first and waited for this id, now matched.
    pub matched: usize,
}

/// Records an accepted submit_sm_resp (see [`attempt::record_accepted`]) with the provider's id
/// keyed under the receipt rules in force, and matches any receipt that arrived first and was
/// waiting for this id.
pub fn record_accepted(
    tx: &mut WriteTx<'_>,
    attempt_id: i64,
    written_at: Option<i64>,
    provider_message_id: &str,
    policy: &ReceiptPolicy,
) -> Result<Accepted, StoreError> {
    // By the id rules of the connection it was written to (read only when connections differ).
    let policy = match policy.connections.is_empty() {
        true => policy,
        false => policy.on(&attempt::connection_of(tx, attempt_id)?),
    };
    let key = policy.response_key(provider_message_id);
    let done = attempt::record_accepted(tx, attempt_id, written_at, provider_message_id, &key)?;
    let matched = correlate::on_provider_id(tx, &done.connection, provider_message_id, done.message_id, policy)?;
    Ok(Accepted {
        whole: done.whole,
        matched,
    })
}
