//! The message as it was handed to us: what the detail and the timeline both show of it.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use smsdesk_core::domain::{IntakeChannel, MessageKind};

/// The message as it was handed to us (never changed since).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct MessageRecord {
    #[ts(type = "number")]
    pub id: i64,
    #[ts(type = "number")]
    pub created_at_ms: i64,
    pub channel: IntakeChannel,
    /// Who the idempotency key belongs to (`key:<api key id>`, `operator`, ...) and the key.
    pub idempotency_scope: Option<String>,
    pub idempotency_key: Option<String>,
    /// Hash of the request that created it, to tell a repeat from a different request.
    pub request_hash: Option<String>,
    pub client_ref: Option<String>,
    pub source_raw: Option<String>,
    pub source_addr: Option<String>,
    pub source_ton: Option<u8>,
    pub source_npi: Option<u8>,
    /// The destination as given, and normalised to E.164.
    pub destination_raw: String,
    pub destination: String,
    pub dest_ton: Option<u8>,
    pub dest_npi: Option<u8>,
    pub body: String,
    pub encoding: String,
    pub segments: u32,
    pub kind: MessageKind,
    /// Urgency within its kind, 0 (first) to 9.
    pub priority: u8,
    pub ordering_key: Option<String>,
    /// Never sent after this time.
    #[ts(type = "number | null")]
    pub valid_until_ms: Option<i64>,
    /// Not sent before this time.
    #[ts(type = "number | null")]
    pub scheduled_at_ms: Option<i64>,
    /// The SMPP registered_delivery asked for.
    pub registered_delivery: u8,
    pub connection: String,
    #[ts(type = "number | null")]
    pub api_key_id: Option<i64>,
    pub api_key_name: Option<String>,
    /// Who handed it in, as named then: the person who composed it or imported its CSV file (the
    /// window's operator, or the account signed in from a browser), or the API key. Null for
    /// messages handed in before this was recorded: their channel says how they came.
    pub submitted_by: Option<String>,
    /// When its text was removed (retention, erasure) and by which rule: `body` is then empty.
    pub text_removed: Option<crate::tables::redact::Tombstone>,
    /// When its number was removed: `destination` then holds its keyed hash (`h:…`).
    pub number_removed: Option<crate::tables::redact::Tombstone>,
}
