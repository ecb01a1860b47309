//! The audit trail, newest first, in cursor pages: every operator action and every automatic
//! decision worth explaining.

use serde::{Deserialize, Serialize};
use smsdesk_core::audit::RecordedAction;
use smsdesk_core::redact::redact_urls_in;
use ts_rs::TS;

use super::{cursor, json, page_limit, ViewError};
use crate::Reads;

const LIST: &str = "audit";

/// A cursor and a page size, read from a query string (`?cursor=...&limit=100`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema, utoipa::IntoParams)]
#[serde(default, rename_all = "snake_case")]
#[into_params(parameter_in = Query)]
pub struct PageRequest {
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// Page size: 50 when not given, 1 to 500.
    #[param(minimum = 1, maximum = 500)]
    #[schema(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct AuditEntry {
    #[ts(type = "number")]
    pub id: i64,
    #[ts(type = "number")]
    pub at_ms: i64,
    /// An operator's name, or "system".
    pub actor: String,
    /// What was done: an `AuditAction` (`exception.resolve`, `message.cancel`, ...), or a word a
    /// newer version wrote, as written.
    pub action: RecordedAction,
    /// What it was done to (`message`, `exception`, ...), and its id.
    pub subject_type: Option<String>,
    #[ts(type = "number | null")]
    pub subject_id: Option<i64>,
    pub note: Option<String>,
    #[ts(type = "unknown")]
    pub details: Option<serde_json::Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct AuditPage {
    pub items: Vec<AuditEntry>,
    /// Pass back as `cursor` for the next page; `None` when there is nothing more.
    pub next_cursor: Option<String>,
}

/// A page of the audit trail, newest first.
pub fn audit_log(c: &impl Reads, cursor: Option<&str>, limit: Option<u32>) -> Result<AuditPage, ViewError> {
    let before = cursor::decode(LIST, cursor)?.unwrap_or(i64::MAX);
    let limit = page_limit(limit)?;
    let mut items = c.db().query(
        "SELECT id, at, actor, action, subject_type, subject_id, note, details_json FROM audit
             WHERE id < ?1 ORDER BY id DESC LIMIT ?2",
        &[&before, &(limit as i64 + 1)],
        |r| {
            Ok(AuditEntry {
                id: r.get(0)?,
                at_ms: r.get(1)?,
                actor: r.get(2)?,
                action: r.get::<String>(3)?.into(),
                subject_type: r.get(4)?,
                subject_id: r.get(5)?,
                // Entries appended before credentials were taken out of URLs are shown without them.
                note: r.get::<Option<String>>(6)?.map(|n| redact_urls_in(&n).into_owned()),
                details: json(r.get::<Option<String>>(7)?.map(|d| redact_urls_in(&d).into_owned())),
            })
        },
    )?;
    let next_cursor = if items.len() > limit {
        items.truncate(limit);
        items.last().map(|e| cursor::encode(LIST, e.id))
    } else {
        None
    };
    Ok(AuditPage { items, next_cursor })
}
