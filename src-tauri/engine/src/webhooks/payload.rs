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

/// A time in ms since the Unix epoch as RFC 3339 in UTC, with milliseconds.
pub(super) fn rfc3339(ms: i64) -> String {
    let (y, mo, d, h, mi, s) = crate::clock::civil(ms);
    format!(
        "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:03}Z",
        ms.rem_euclid(1_000)
    )
}
