//! Settling a message by evidence a person brought: a receipt attached to a message whose try
//! went unanswered shows the SMSC had it.

use crate::audit::AuditAction;
use crate::domain::{ExceptionKind, QueueStatus};
use crate::queue::{audit, close_exception};
use crate::receipts::correlate;
use crate::store::tables::queue::{self, status};
use crate::store::tables::{attempt, exception, logical_event};
use crate::store::{StoreError, WriteTx};
use smsdesk_core::receipts::policy::ReceiptPolicy;

/// A person attached a receipt (its logical event `event`) to a message held because a try's
/// outcome is unknown: the network had it, so the unknown is settled. When that try is the only
/// part of the message not accepted, the message is accepted by that evidence, its exception
/// closes, and the try takes the receipt's id, so that the message's later receipts find it by
/// themselves (and so do others already waiting for that id). Returns whether it was settled.
pub fn accepted_by_evidence(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    event: i64,
    actor: &str,
    policy: &ReceiptPolicy,
) -> Result<bool, StoreError> {
    if status(tx, message_id)? != Some(QueueStatus::OutcomeUnknown) {
        return Ok(false);
    }
    // The tries in the current round of parts not accepted, and the parts with no try at all.
    let (unknown, untried) = queue::unsettled_parts(tx, message_id)?;
    let [(attempt, connection)] = unknown.as_slice() else {
        return Ok(false);
    };
    if untried > 0 {
        return Ok(false);
    }
    let (event_connection, key, raw) = logical_event::receipted_id(&*tx, event)?;
    let key = key.filter(|_| event_connection == *connection);
    if let Some(key) = &key {
        attempt::adopt_provider_id(tx, *attempt, raw.as_deref(), key)?;
    }
    let why = crate::queue_reason::by_operator(crate::queue_reason::Settled::AcceptedByEvidence, actor);
    queue::set_status(tx, message_id, QueueStatus::Accepted, Some(&why), None)?;
    if let Some(ex) = exception::open_for_message(&*tx, message_id, ExceptionKind::OutcomeUnknown)? {
        let note = format!(
            "A receipt attached by {actor} shows the SMSC had accepted the message: its outcome is no longer \
             unknown, and nothing is sent again."
        );
        close_exception(tx, ex, "accepted_by_evidence", "system", &note)?;
    }
    audit(tx, actor, AuditAction::MessageAcceptedByEvidence, message_id, "")?;
    if let Some(key) = key {
        let why = "a receipt attached by a person brought its id.";
        correlate::on_key(tx, connection, &key, message_id, policy, why)?;
    }
    Ok(true)
}
