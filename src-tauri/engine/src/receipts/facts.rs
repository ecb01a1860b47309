//! What a logical event says about a message: its state, whether its facts fit the message, and
//! which parts it reports on. Ingestion computes it from the receipt in hand, `rebuild` and late
//! correlation from the stored one; both go through [`facts`], so they agree.

use super::exceptions;
use super::mismatch;
use super::parse::Stat;
use super::policy::ReceiptPolicy;
use super::rules::{state_from_stat, EventFacts};
use crate::domain::DeliveryState;
use crate::store::tables::{attempt, logical_event};
use crate::store::{Reads, StoreError};

/// The parts of a message a receipt reports on: those whose accepted submits on `connection` carry
/// its id key; empty for every part (a message sent whole, one id for all its parts, or a receipt
/// a person attached with no submit carrying its id).
pub(super) fn parts_reported(
    conn: &impl Reads,
    message_id: i64,
    segments: u32,
    connection: &str,
    key: Option<&str>,
) -> Result<Vec<u32>, StoreError> {
    let Some(key) = key.filter(|_| segments > 1) else {
        return Ok(Vec::new());
    };
    let parts = attempt::parts_with_provider_key(conn, message_id, connection, key)?;
    Ok(if parts.len() as u32 >= segments {
        Vec::new()
    } else {
        parts
    })
}

/// What a logical event says about a message. Ingestion computes it from the receipt in hand,
/// `rebuild` from the stored one ([`event_facts`]); both go through here, so they agree.
#[allow(clippy::too_many_arguments)]
pub(super) fn facts(
    event: i64,
    state: DeliveryState,
    receipt: &mismatch::ReceiptFacts,
    id: Option<&str>,
    text_id: Option<&str>,
    message: Option<&mismatch::MessageFacts>,
    parts: Vec<u32>,
    policy: &ReceiptPolicy,
) -> EventFacts {
    let id_disagree = matches!((id, text_id), (Some(a), Some(b)) if !policy.tlv_and_text_agree(a, b));
    let mismatch = message.is_some_and(|m| !mismatch::check(receipt, m, policy.timezone_minutes).is_empty());
    EventFacts {
        event,
        state,
        mismatch,
        id_disagree,
        parts,
        of: message.map_or(1, |m| m.segments.max(1)),
    }
}

/// What a logical event says about a message, computed from the stored evidence. None when the
/// event carries no delivery status anyone can read.
pub fn event_facts(
    conn: &impl Reads,
    event: i64,
    message_id: i64,
    policy: &ReceiptPolicy,
) -> Result<Option<EventFacts>, StoreError> {
    let Some(logical_event::StoredEvent {
        stat,
        id,
        text_id,
        unreadable,
        connection,
        key,
    }) = logical_event::stored(conn, event)?
    else {
        return Ok(None);
    };
    let Some(state) = stat
        .as_deref()
        .filter(|_| !unreadable)
        .and_then(Stat::from_token)
        .map(state_from_stat)
    else {
        return Ok(None);
    };
    let receipt = exceptions::receipt_facts(conn, event)?;
    let message = exceptions::message_facts(conn, message_id)?;
    let segments = message.as_ref().map_or(1, |m| m.segments);
    let parts = parts_reported(conn, message_id, segments, &connection, key.as_deref())?;
    Ok(Some(facts(
        event,
        state,
        &receipt,
        id.as_deref(),
        text_id.as_deref(),
        message.as_ref(),
        parts,
        policy,
    )))
}
