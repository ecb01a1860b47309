//! An accepted submit brings the provider's id: the receipts that arrived before it and wait for
//! that id are matched and applied in the same transaction.

use crate::queue::{self, Claimed, Next, SendPolicy, SubmitResult};
use crate::receipts::correlate;
use crate::store::{StoreError, WriteTx};
use smsdesk_core::receipts::policy::ReceiptPolicy;

/// What recording an accepted submit did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Accepted {
    /// Every part of the message is now accepted (in its current round of sending).
    pub whole: bool,
    /// Receipts that arrived first and waited for this id, now matched.
    pub matched: usize,
}

/// Records an accepted submit_sm_resp (see [`queue::accept`]) with the provider's id
/// keyed under the receipt rules in force, and matches any receipt that arrived first and was
/// waiting for this id.
pub fn record_accepted(
    tx: &mut WriteTx<'_>,
    attempt_id: i64,
    written_at: Option<i64>,
    provider_message_id: &str,
    policy: &ReceiptPolicy,
) -> Result<Accepted, StoreError> {
    let done = queue::accept(tx, attempt_id, written_at, provider_message_id, policy)?;
    let policy = match policy.connections.is_empty() {
        true => policy,
        false => policy.on(&done.connection),
    };
    let matched = correlate::on_provider_id(tx, &done.connection, provider_message_id, done.message_id, policy)?;
    Ok(Accepted {
        whole: done.whole,
        matched,
    })
}

/// Records what a submit came to, as the dispatcher saw it (see [`queue::record`]); an accepted
/// one also matches the receipts that waited for its id.
#[allow(clippy::too_many_arguments)]
pub fn record_submit(
    tx: &mut WriteTx<'_>,
    claimed: &Claimed,
    attempt_id: i64,
    result: &SubmitResult,
    now: i64,
    receipts: &ReceiptPolicy,
    policy: SendPolicy<'_>,
    random: impl FnOnce() -> f64,
) -> Result<Next, StoreError> {
    if let SubmitResult::Answered {
        command_status: 0,
        message_id,
        written_at,
    } = result
    {
        let provider_id = message_id.as_deref().unwrap_or_default();
        let accepted = record_accepted(tx, attempt_id, *written_at, provider_id, receipts)?;
        return Ok(if accepted.whole {
            Next::Accepted
        } else {
            Next::PartAccepted
        });
    }
    queue::record(tx, claimed, attempt_id, result, now, receipts, policy, random)
}
