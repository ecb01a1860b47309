//! The JSON body of a webhook POST.

use serde::{Deserialize, Serialize};

use crate::domain::{DeliveryState, QueueStatus, WebhookField};
use crate::receipts::rules::Rule;

/// What a webhook receiver gets: the change (`field`, `value`, `changed_at`) and the message's
/// situation when the POST was made (`status`, `state`, `rule`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct WebhookPayload {
    /// The same on every try of this notification: de-duplicate by it (also sent as the
    /// `Smsdesk-Delivery` header).
    pub delivery_id: i64,
    pub message_id: i64,
    /// The reference the client gave when handing the message in.
    pub client_ref: Option<String>,
    /// What changed: `status` (the local queue status) or `state` (the state receipts reported).
    pub field: WebhookField,
    /// The new value of `field`.
    pub value: String,
    /// The message's queue status now (every message has one; null only were its queue row gone).
    pub status: Option<QueueStatus>,
    /// The message's computed state now (`pending` until something was computed).
    pub state: DeliveryState,
    /// The rule that decided `state`, when one did.
    pub rule: Option<Rule>,
    /// When the change was committed, RFC 3339 in UTC.
    pub changed_at: String,
    /// Which try this is, from 1.
    pub attempt: u32,
}

/// What a webhook receiver gets when a reply from a handset arrives (`event` is `inbound`): the
/// reply, whole, and what it asked for when its whole text was an opt-out or opt-in keyword. Sent
/// to the keys that may read everything.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct InboundPayload {
    /// The same on every try of this notification: de-duplicate by it (also sent as the
    /// `Smsdesk-Delivery` header).
    pub delivery_id: i64,
    /// Always `inbound`.
    pub event: String,
    pub inbox_message_id: i64,
    /// The sender's number in E.164 (null when its address reads as no number), and its
    /// address as received.
    pub from: Option<String>,
    pub from_address: String,
    /// Our number or sender id it was sent to.
    pub to: Option<String>,
    pub text: String,
    /// Parts of a long reply, and how many came (fewer when the wait for one ran out).
    pub parts: u32,
    pub parts_received: u32,
    /// `opt_out` or `opt_in` when the whole text is a keyword (the number's entry on the opt-out
    /// list changed with it).
    pub intent: Option<String>,
    /// When it arrived, RFC 3339 in UTC.
    pub received_at: String,
    /// Which try this is, from 1.
    pub attempt: u32,
}

impl InboundPayload {
    pub fn new(delivery_id: i64, m: &crate::views::InboxMessage, attempt: u32) -> InboundPayload {
        InboundPayload {
            delivery_id,
            event: "inbound".into(),
            inbox_message_id: m.id,
            from: m.phone.clone(),
            from_address: m.handset.clone(),
            to: m.recipient.clone(),
            text: m.text.clone(),
            parts: m.parts,
            parts_received: m.parts_received,
            intent: m.intent.clone(),
            received_at: rfc3339(m.received_at_ms),
            attempt,
        }
    }
}

/// A time in ms since the Unix epoch as RFC 3339 in UTC, with milliseconds.
pub(super) fn rfc3339(ms: i64) -> String {
    let (y, mo, d, h, mi, s) = crate::clock::civil(ms);
    format!(
        "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:03}Z",
        ms.rem_euclid(1_000)
    )
}
