//! Late correlation: receipts do arrive before the submit_sm_resp that names their message. Such a
//! receipt waits, uncorrelated, until a submit response brings its id; then it is matched, its
//! exception closes by itself, and it is applied.

use super::exceptions;
use super::facts::event_facts;
use super::policy::ReceiptPolicy;
use super::project;
use super::rules::Input;
use super::uncorrelated;
use crate::store::tables::attempt::messages_with_provider_key as candidates;
use crate::store::tables::logical_event;
use crate::store::{StoreError, WriteTx};

/// Called when a submit on `connection` was accepted with `provider_id` for `message_id`. Returns
/// how many waiting logical events were matched and applied.
pub fn on_provider_id(
    tx: &mut WriteTx<'_>,
    connection: &str,
    provider_id: &str,
    message_id: i64,
    policy: &ReceiptPolicy,
) -> Result<usize, StoreError> {
    on_key(
        tx,
        connection,
        &policy.on(connection).response_key(provider_id),
        message_id,
        policy,
        "The submit response for this message brought its id after the receipt arrived.",
    )
}

/// Matches and applies the logical events on `connection` waiting for the id `key`, now that
/// `message_id`'s submit carries it (as its response gave it, or as a person attached a receipt
/// carrying it). Returns how many were matched.
pub(crate) fn on_key(
    tx: &mut WriteTx<'_>,
    connection: &str,
    key: &str,
    message_id: i64,
    policy: &ReceiptPolicy,
    why: &str,
) -> Result<usize, StoreError> {
    let waiting = logical_event::waiting_for(&*tx, connection, key)?;
    if waiting.is_empty() {
        return Ok(0);
    }
    // Only an unambiguous id is matched; otherwise the events keep waiting for a person.
    if candidates(&*tx, connection, key)? != [message_id] {
        return Ok(0);
    }
    for &event in &waiting {
        if let Some(ex) = exceptions::open_for_event(&*tx, event)? {
            exceptions::close_automatically(tx, ex, "auto:correlated", &format!("Message {message_id}: {why}"))?;
        }
        match_and_apply(tx, event, message_id, "system", policy)?;
    }
    Ok(waiting.len())
}

/// Records that a logical event belongs to a message (`by` the system or an operator) and applies
/// it to the message's projection.
pub(crate) fn match_and_apply(
    tx: &mut WriteTx<'_>,
    event: i64,
    message_id: i64,
    by: &'static str,
    policy: &ReceiptPolicy,
) -> Result<(), StoreError> {
    logical_event::mark_matched(tx, event, message_id, by)?;
    uncorrelated::stop_waiting(tx, event)?;
    match event_facts(&*tx, event, message_id, policy)? {
        Some(facts) => {
            project::apply(tx, message_id, &Input::Event(facts), policy.rules())?;
        }
        // A status nobody can read is kept for the message, and applies nothing.
        None => {
            let (receipt, stat_raw) = logical_event::first_receipt_status(&*tx, event)?;
            exceptions::open_status_unreadable(tx, message_id, event, receipt, stat_raw.as_deref())?;
        }
    }
    Ok(())
}
