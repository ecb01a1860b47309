//! The exception queue as shown: pages newest first (by status, kind or both, each through its
//! own index), and one exception with its evidence, receipts and attempts side by side, each with
//! the role it plays. A receipt no message could be matched to shows no message: none is guessed.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::candidates::{self, Candidate};
use super::evidence::{self, AttemptView, ReceiptView};
use super::messages::{self, MessageSummary};
use super::{cursor, enum_at, json, page_limit, params, snapshot, Arg, ViewError};
use crate::db::{Db, Dialect, Row};
use crate::tables::exception as queue;
use crate::{Reads, StoreError};
use smsdesk_core::domain::{EvidenceRole, ExceptionKind, ExceptionStatus};
use smsdesk_core::said::{Params, SummaryCode};

const LIST: &str = "exceptions";

/// One exception as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct ExceptionSummary {
    #[ts(type = "number")]
    pub id: i64,
    pub kind: ExceptionKind,
    pub status: ExceptionStatus,
    /// The message it is about, when it names one.
    #[ts(type = "number | null")]
    pub message_id: Option<i64>,
    /// That message's destination.
    pub destination: Option<String>,
    /// The receipt's logical event it is about (uncorrelated, ambiguous).
    #[ts(type = "number | null")]
    pub logical_event_id: Option<i64>,
    /// Why it was opened, in English.
    pub summary: String,
    /// The same as a code, for the screens to word in the operator's language; null for an
    /// exception opened by a version that did not record it.
    pub summary_code: Option<SummaryCode>,
    /// The code's parameters (a provider id, a connection, a count...).
    #[ts(type = "Record<string, string>")]
    pub summary_params: Params,
    #[ts(type = "number")]
    pub created_at_ms: i64,
    /// What was decided: `state:<state>`, `attached:<message id>`, `dismissed`, `resend`,
    /// `mark_failed`, or `auto:<reason>` when new evidence settled it.
    pub resolution: Option<String>,
    pub resolution_note: Option<String>,
    pub resolved_by: Option<String>,
    #[ts(type = "number | null")]
    pub resolved_at_ms: Option<i64>,
}

pub(crate) const SUMMARY_COLUMNS: &str = "x.id, x.kind, x.status, x.message_id, m.destination, x.logical_event_id,
     x.summary, x.created_at, x.resolution, x.resolution_note, x.resolved_by, x.resolved_at, x.details_json";

pub(crate) fn summary_row(r: &Row<'_, '_>) -> Result<ExceptionSummary, StoreError> {
    let (summary_code, summary_params) = said_of(r.get::<Option<String>>(12)?.as_deref());
    Ok(ExceptionSummary {
        id: r.get(0)?,
        kind: enum_at(r, 1)?,
        status: enum_at(r, 2)?,
        message_id: r.get(3)?,
        destination: r.get(4)?,
        logical_event_id: r.get(5)?,
        summary: r.get(6)?,
        summary_code,
        summary_params,
        created_at_ms: r.get(7)?,
        resolution: r.get(8)?,
        resolution_note: r.get(9)?,
        resolved_by: r.get(10)?,
        resolved_at_ms: r.get(11)?,
    })
}

/// The summary's code and parameters an exception's details hold (none for older rows).
fn said_of(details: Option<&str>) -> (Option<SummaryCode>, Params) {
    #[derive(Deserialize)]
    struct Said {
        summary_code: Option<String>,
        #[serde(default)]
        summary_params: Params,
    }
    let Some(said) = details.and_then(|d| serde_json::from_str::<Said>(d).ok()) else {
        return (None, Params::new());
    };
    match said.summary_code.and_then(|c| c.parse().ok()) {
        Some(code) => (Some(code), said.summary_params),
        None => (None, Params::new()),
    }
}

/// Which exceptions to list. Read from a query string as is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema, utoipa::IntoParams)]
#[serde(default, rename_all = "snake_case")]
#[into_params(parameter_in = Query)]
pub struct ExceptionFilter {
    pub status: Option<ExceptionStatus>,
    pub kind: Option<ExceptionKind>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// Page size: 50 when not given, 1 to 500.
    #[param(minimum = 1, maximum = 500)]
    #[schema(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
}

/// One page of exceptions, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct ExceptionPage {
    pub items: Vec<ExceptionSummary>,
    /// Pass back as `cursor` for the next page; `None` when there is nothing more.
    pub next_cursor: Option<String>,
}

/// A page of the exception queue, newest first.
pub fn list_exceptions(c: &impl Reads, f: &ExceptionFilter) -> Result<ExceptionPage, ViewError> {
    let before = cursor::decode(LIST, f.cursor.as_deref())?.unwrap_or(i64::MAX);
    let limit = page_limit(f.limit)?;
    let mut conds = Vec::new();
    let mut args = Vec::new();
    if let Some(s) = f.status {
        conds.push("x.status = ?");
        args.push(Arg::Text(s.as_str().to_owned()));
    }
    if let Some(k) = f.kind {
        conds.push("x.kind = ?");
        args.push(Arg::Text(k.as_str().to_owned()));
    }
    // SQLite is told which index; PostgreSQL has no INDEXED BY and picks one itself.
    let index = match (f.status, f.kind) {
        _ if c.db().dialect() == Dialect::Postgres => "",
        (Some(_), Some(_)) => "INDEXED BY exception_status_kind_id",
        (Some(_), None) => "INDEXED BY exception_status_id",
        (None, Some(_)) => "INDEXED BY exception_kind_id",
        (None, None) => "",
    };
    conds.push("x.id < ?");
    args.push(Arg::Int(before));
    args.push(Arg::Int(limit as i64 + 1));
    let sql = format!(
        "SELECT {SUMMARY_COLUMNS} FROM exception x {index} LEFT JOIN message m ON m.id = x.message_id
         WHERE {} ORDER BY x.id DESC LIMIT ?",
        conds.join(" AND ")
    );
    let mut items = c.db().query(&sql, &params(&args), summary_row)?;
    let next_cursor = if items.len() > limit {
        items.truncate(limit);
        items.last().map(|e| cursor::encode(LIST, e.id))
    } else {
        None
    };
    Ok(ExceptionPage { items, next_cursor })
}

/// A message's exceptions: those naming it, and those about its receipts' logical events (an
/// uncorrelated receipt later attached to it), oldest first.
pub(crate) fn exceptions_of(c: Db<'_>, message_id: i64) -> Result<Vec<ExceptionSummary>, ViewError> {
    Ok(c.query(
        &format!(
            "SELECT {SUMMARY_COLUMNS} FROM exception x LEFT JOIN message m ON m.id = x.message_id
             WHERE x.id IN (SELECT id FROM exception WHERE message_id = ?1
                            UNION SELECT x2.id FROM logical_event e JOIN exception x2 ON x2.logical_event_id = e.id
                                  WHERE e.message_id = ?1)
             ORDER BY x.id"
        ),
        &[&message_id],
        summary_row,
    )?)
}

/// One piece of evidence and the role it plays.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct EvidenceItem {
    pub role: EvidenceRole,
    pub receipt: Option<ReceiptView>,
    pub attempt: Option<AttemptView>,
}

/// One exception with everything it rests on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct ExceptionDetail {
    pub exception: ExceptionSummary,
    /// Facts recorded with it, as stored.
    #[ts(type = "unknown")]
    pub details: Option<serde_json::Value>,
    /// The message it is about: the one it names, or the one its receipt was matched or attached
    /// to. Empty for a receipt no message was matched to; no message is guessed.
    pub message: Option<MessageSummary>,
    /// Receipts and attempts in the order they were linked, each with its role.
    pub evidence: Vec<EvidenceItem>,
    /// While it is open: for a receipt that matched no message, the tries on its connection whose
    /// outcome is unknown; for an unknown outcome, the receipts on its connection that matched no
    /// message. Each with the facts that agree or differ, for a person to compare; never attached
    /// by themselves.
    pub candidates: Vec<Candidate>,
}

/// One exception with its evidence, or `None` when there is no such exception. Dates inside
/// receipts are read in the zone `timezone_minutes` east of UTC.
pub fn exception_detail(c: &impl Reads, id: i64, timezone_minutes: i32) -> Result<Option<ExceptionDetail>, ViewError> {
    snapshot(c.db(), |c| {
        let Some((_, links)) = queue::get(&c, id)? else {
            return Ok(None);
        };
        let (exception, details): (ExceptionSummary, Option<String>) = c.query_row(
            &format!(
                "SELECT {SUMMARY_COLUMNS} FROM exception x LEFT JOIN message m ON m.id = x.message_id
                 WHERE x.id = ?1"
            ),
            &[&id],
            |r| Ok((summary_row(r)?, r.get(12)?)),
        )?;
        let message_id = match (exception.message_id, exception.logical_event_id) {
            (Some(m), _) => Some(m),
            (None, Some(event)) => c
                .query_opt(
                    "SELECT message_id FROM logical_event WHERE id = ?1 AND correlation = 'matched'",
                    &[&event],
                    |r| r.get::<Option<i64>>(0),
                )?
                .flatten(),
            (None, None) => None,
        };
        let message = match message_id {
            Some(m) => messages::summary(c, m)?,
            None => None,
        };
        let mut evidence = Vec::with_capacity(links.len());
        for link in links {
            evidence.push(EvidenceItem {
                role: link.role,
                receipt: match link.receipt_id {
                    Some(r) => evidence::receipt(c, r)?,
                    None => None,
                },
                attempt: match link.attempt_id {
                    Some(a) => evidence::attempt(c, a)?,
                    None => None,
                },
            });
        }
        let candidates = match (exception.status, exception.kind) {
            (ExceptionStatus::Open, ExceptionKind::Uncorrelated) => match receipt_of(&evidence) {
                Some(r) => candidates::for_receipt(c, r, timezone_minutes)?,
                None => Vec::new(),
            },
            (ExceptionStatus::Open, ExceptionKind::OutcomeUnknown) => {
                let mut all = Vec::new();
                for a in evidence.iter().filter_map(|e| e.attempt.as_ref()) {
                    all.extend(candidates::for_attempt(c, a.id, timezone_minutes)?);
                }
                all
            }
            _ => Vec::new(),
        };
        Ok(Some(ExceptionDetail {
            exception,
            details: json(details),
            message,
            evidence,
            candidates,
        }))
    })
}

/// The receipt an exception about one receipt rests on.
fn receipt_of(evidence: &[EvidenceItem]) -> Option<i64> {
    evidence.iter().find_map(|e| e.receipt.as_ref().map(|r| r.id))
}
