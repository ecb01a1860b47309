//! The message as it was handed to us: what the detail and the timeline both show of it.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use smsdesk_core::domain::{IntakeChannel, MessageKind};

use super::enum_at;
use crate::db::Row;
use crate::tables::redact::{RedactionRule, Tombstone};
use crate::StoreError;

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
    pub text_removed: Option<Tombstone>,
    /// When its number was removed: `destination` then holds its keyed hash (`h:…`).
    pub number_removed: Option<Tombstone>,
}

/// The message's columns of the detail's query (`detail::COLUMNS`): 0 to 26, 45, and the two
/// removals (id, time, rule, actor) from 49.
pub(super) fn read(r: &Row<'_, '_>) -> Result<MessageRecord, StoreError> {
    Ok(MessageRecord {
        id: r.get(0)?,
        created_at_ms: r.get(1)?,
        channel: enum_at(r, 2)?,
        idempotency_scope: r.get(3)?,
        idempotency_key: r.get(4)?,
        request_hash: r.get(5)?,
        client_ref: r.get(6)?,
        source_raw: r.get(7)?,
        source_addr: r.get(8)?,
        source_ton: r.get(9)?,
        source_npi: r.get(10)?,
        destination_raw: r.get(11)?,
        destination: r.get(12)?,
        dest_ton: r.get(13)?,
        dest_npi: r.get(14)?,
        body: r.get(15)?,
        encoding: r.get(16)?,
        segments: r.get(17)?,
        kind: enum_at(r, 18)?,
        priority: r.get(19)?,
        ordering_key: r.get(20)?,
        valid_until_ms: r.get(21)?,
        scheduled_at_ms: r.get(22)?,
        registered_delivery: r.get(23)?,
        connection: r.get(24)?,
        api_key_id: r.get(25)?,
        api_key_name: r.get(26)?,
        submitted_by: r.get(45)?,
        text_removed: tombstone(r, 49)?,
        number_removed: tombstone(r, 53)?,
    })
}

/// The removal read from its four columns (id, time, rule, actor) from `at`, if the content was
/// removed; a rule this version does not know reads as none.
fn tombstone(r: &Row<'_, '_>, at: usize) -> Result<Option<Tombstone>, StoreError> {
    let Some(id) = r.get::<Option<i64>>(at)? else {
        return Ok(None);
    };
    let rule: String = r.get(at + 2)?;
    let Ok(rule) = serde_json::from_value::<RedactionRule>(serde_json::Value::String(rule)) else {
        return Ok(None);
    };
    Ok(Some(Tombstone {
        id,
        at: r.get(at + 1)?,
        rule,
        actor: r.get(at + 3)?,
        summary: None,
    }))
}
