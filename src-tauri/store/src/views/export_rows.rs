//! Messages as rows of text for a CSV export: the list's filter and cursor pages, with the full
//! text and the facts an office asks of an export (when it was accepted, with which provider id,
//! why it failed). Times are RFC 3339 in UTC; empty cells are empty strings.

use serde::Serialize;
use smsdesk_core::time::format_rfc3339;

use super::messages::{list_with_budget, MessageFilter, SCAN_BUDGET};
use super::{snapshot, ViewError};
use crate::Reads;

/// The header row, in the order of every row's cells.
pub const EXPORT_COLUMNS: &[&str] = &[
    "id",
    "created_at",
    "channel",
    "kind",
    "priority",
    "destination",
    "destination_raw",
    "client_ref",
    "body",
    "segments",
    "encoding",
    "connection",
    "api_key_id",
    "status",
    "attempts",
    "last_error",
    "accepted_at",
    "provider_message_ids",
    "state",
    "rule",
    "flags",
];

/// One page of rows, newest first, like [`super::list_messages`]: follow `next_cursor` until it
/// is `None` (a page may be empty while the scan goes on).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExportPage {
    pub rows: Vec<Vec<String>>,
    pub next_cursor: Option<String>,
}

/// What a row of the export has that the list's summary has not.
const EXTRA: &str = "SELECT m.destination_raw, m.body, q.last_error,
         (SELECT max(a.responded_at) FROM attempt a WHERE a.message_id = m.id AND a.outcome = 'accepted'),
         (SELECT string_agg(a.provider_message_id, ' ' ORDER BY a.id) FROM attempt a
          WHERE a.message_id = m.id AND a.outcome = 'accepted')
     FROM message m JOIN queue q ON q.message_id = m.id WHERE m.id = ?1";

/// The next page of export rows for `f` (its `cursor` and `limit` as for the list).
pub fn export_page(c: &impl Reads, f: &MessageFilter) -> Result<ExportPage, ViewError> {
    snapshot(c.db(), |c| {
        let page = list_with_budget(&c, f, SCAN_BUDGET)?;
        let mut rows = Vec::with_capacity(page.items.len());
        for m in page.items {
            let (raw, body, last_error, accepted_at, provider_ids): (
                String,
                String,
                Option<String>,
                Option<i64>,
                Option<String>,
            ) = c.query_row(EXTRA, &[&m.id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?;
            rows.push(vec![
                m.id.to_string(),
                format_rfc3339(m.created_at_ms),
                m.channel.to_string(),
                m.kind.to_string(),
                m.priority.to_string(),
                m.destination,
                raw,
                m.client_ref.unwrap_or_default(),
                body,
                m.segments.to_string(),
                m.encoding,
                m.connection,
                m.api_key_id.map(|k| k.to_string()).unwrap_or_default(),
                m.status.to_string(),
                m.attempts.to_string(),
                last_error.unwrap_or_default(),
                accepted_at.map(format_rfc3339).unwrap_or_default(),
                provider_ids.unwrap_or_default(),
                m.state.to_string(),
                m.rule.as_str().to_owned(),
                m.flags.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(" "),
            ]);
        }
        Ok(ExportPage {
            rows,
            next_cursor: page.next_cursor,
        })
    })
}
