//! A message's webhook notifications as its timeline shows them.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::domain::{WebhookField, WebhookStatus};

/// One webhook notification of a message, with every try made for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryView {
    #[ts(type = "number")]
    pub id: i64,
    #[ts(type = "number")]
    pub api_key_id: i64,
    pub field: WebhookField,
    pub value: String,
    #[ts(type = "number")]
    pub created_at: i64,
    pub status: WebhookStatus,
    /// Tries made so far.
    pub attempts: u32,
    /// When the next try is due (meaningful while pending).
    #[ts(type = "number")]
    pub next_attempt_at: i64,
    pub last_error: Option<String>,
    #[ts(type = "number | null")]
    pub delivered_at: Option<i64>,
    /// Every try, oldest first.
    pub tries: Vec<DeliveryAttemptView>,
}

/// One POST made for a webhook notification, with what came back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryAttemptView {
    #[ts(type = "number")]
    pub id: i64,
    #[ts(type = "number")]
    pub at: i64,
    pub url: String,
    /// The HTTP status answered, when there was an answer.
    pub http_status: Option<u16>,
    /// Why the try failed, when it did.
    pub error: Option<String>,
    #[ts(type = "number")]
    pub duration_ms: i64,
}
