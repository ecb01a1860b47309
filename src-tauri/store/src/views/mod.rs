//! Read models: what the HTTP API, the command line and the desktop UI show. Plain functions over
//! a read connection (`store.reader().read(move |c| views::message_detail(c, id))`), returning
//! serde types that also derive `ts_rs::TS` and `utoipa::ToSchema`.
//!
//! - [`list_messages`] / [`MessageFilter`] / [`MessagePage`]: the message list, newest first, with
//!   cursor pages that stay stable while messages keep arriving.
//! - [`message_detail`]: one message with its queue position, computed state, attempts, receipts,
//!   exceptions and a merged timeline. Acceptance by the SMSC, the state the network reported and
//!   an operator's decision are kept in separate, labelled fields.
//! - [`list_exceptions`] / [`exception_detail`]: the exception queue, with each exception's evidence.
//! - [`count_messages`] / [`export_page`] / [`EXPORT_COLUMNS`] / [`write_csv`]: every message a
//!   filter selects, as a CSV file, for `smsdesk export`, the API's export and the window's.
//! - [`dashboard`]: counts for the overview.
//! - [`activity`] / [`ActivityWindow`]: the overview's charts (submits, receipts and receipt
//!   latency over the last hour, day or month; outcomes by day), from running totals.
//! - [`delivery_report`] / [`ReportQuery`]: delivery figures over a period by one or two
//!   dimensions, against the period before, from the sums the writer keeps (`crate::reports`).
//! - [`audit_log`]: the audit trail, newest first.
//! - [`pace_counts`]: what the pace of sending and the time the queue will take are measured from.
//!
//! Every function reads one snapshot of the database ([`snapshot`]: a savepoint around its queries
//! on SQLite, a read-only REPEATABLE READ transaction on PostgreSQL), so the parts of an answer
//! agree with each other. They run on either store (through [`crate::db::Db`]), but for the query
//! plans (SQLite's `EXPLAIN QUERY PLAN`) and the inbox's search by words (SQLite's fold function).
//! A number's erased opt-out entry is found by its hash on both ([`crate::number_token`]).

pub mod activity;
mod audit;
mod candidates;
pub mod cursor;
mod dashboard;
mod detail;
mod evidence;
mod exceptions;
mod export_rows;
pub(crate) mod inbox;
mod inbox_search;
pub mod messages;
mod opt_outs;
mod pace;
mod record;
mod report;
mod timeline;

#[cfg(test)]
mod dashboard_tests;
#[cfg(test)]
mod inbox_tests;
#[cfg(test)]
mod messages_tests;
#[cfg(test)]
pub(crate) mod test_rows;

use crate::db::{Db, Dialect, Param, Row, Value};
use crate::StoreError;
use smsdesk_core::domain::TextForm;

pub use activity::{activity_at, Activity, ActivityBucket, ActivityWindow, DayOutcomes, OUTCOME_DAYS};
pub use audit::{audit_log, AuditEntry, AuditPage, PageRequest};
pub use candidates::{Candidate, CandidateFact, CandidateField};
pub use dashboard::{
    dashboard_at, dashboard_query_plans, BackupStatus, Dashboard, ExceptionCount, QueueCount, SpendNow, StateCount,
};
pub use detail::{message_detail, MessageDetail, OperatorDecision, PartStateView, QueueView, StateFlags, StateView};
pub use evidence::{AttemptView, ReceiptView};
pub use exceptions::{
    exception_detail, list_exceptions, EvidenceItem, ExceptionDetail, ExceptionFilter, ExceptionPage, ExceptionSummary,
};
pub use export_rows::{export_page, ExportPage, EXPORT_COLUMNS};
pub use inbox::{
    current_entry, inbox_counts, inbox_message, list_opt_outs, list_threads, thread, InboxCounts, InboxFilter,
    InboxMessage, OptOutEntry, OptOutFilter, OptOutPage, SentInThread, ThreadItem, ThreadPage, ThreadRequest,
    ThreadSummary, ThreadView,
};
pub use messages::{
    count_messages, list_messages, MessageFilter, MessagePage, MessageSummary, MessageTotal, TotalBound, SCAN_BUDGET,
};
pub use pace::{pace_counts, PaceCounts};
pub use record::MessageRecord;
pub use report::{
    delivery_report, DeliveryReport, ReportDimension, ReportFigures, ReportGroup, ReportPoint, ReportQuery, ReportStep,
    LAST_MS,
};
pub use timeline::{AuditLine, TimelineEntry, TimelineKind};

/// Page size when none is asked for.
pub const DEFAULT_LIMIT: u32 = 50;
/// The largest page any list gives; larger requests are cut to this.
pub const MAX_LIMIT: u32 = 500;

/// Why a read model could not be produced. `InvalidCursor` and `InvalidFilter` are the caller's
/// mistake (the HTTP layer answers 422); `Store` is ours.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ViewError {
    #[error("the cursor was not given out by the {list} list (pass back `next_cursor` unchanged)")]
    InvalidCursor { list: &'static str },
    #[error("invalid filter: {0}")]
    InvalidFilter(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl ViewError {
    /// The stable machine code the edges report (`{code, message}`).
    pub fn code(&self) -> &'static str {
        match self {
            ViewError::InvalidCursor { .. } => "invalid_cursor",
            ViewError::InvalidFilter(_) => "invalid_filter",
            ViewError::Store(_) => "store_error",
        }
    }

    /// True when the request itself was at fault (HTTP 422), not the store.
    pub fn is_client_error(&self) -> bool {
        matches!(self, ViewError::InvalidCursor { .. } | ViewError::InvalidFilter(_))
    }
}

impl From<rusqlite::Error> for ViewError {
    fn from(e: rusqlite::Error) -> Self {
        ViewError::Store(e.into())
    }
}

/// The page size to use for a requested limit: the default when none, at most [`MAX_LIMIT`].
pub fn page_limit(limit: Option<u32>) -> Result<usize, ViewError> {
    match limit.unwrap_or(DEFAULT_LIMIT) {
        n @ 1..=MAX_LIMIT => Ok(n as usize),
        n => Err(ViewError::InvalidFilter(format!(
            "limit must be between 1 and {MAX_LIMIT}, not {n}"
        ))),
    }
}

/// Runs `f` on one snapshot of the database, so all its queries agree. Works on a plain
/// connection and inside a caller's transaction alike.
///
/// SQLite: a savepoint (a read transaction on a plain connection). PostgreSQL: a savepoint gives
/// no snapshot there, so on a plain connection (autocommit) the reads run in a read-only
/// REPEATABLE READ transaction; inside a caller's transaction they run in a savepoint, which a
/// failed read is rolled back to, so the caller's transaction stays usable as it does on SQLite.
pub fn snapshot<T>(db: Db<'_>, f: impl FnOnce(Db<'_>) -> Result<T, ViewError>) -> Result<T, ViewError> {
    let (begin, end, undo) = match db.dialect() {
        Dialect::Sqlite => ("SAVEPOINT views_snapshot", "RELEASE views_snapshot", None),
        Dialect::Postgres if in_transaction(db)? => (
            "SAVEPOINT views_snapshot",
            "RELEASE views_snapshot",
            Some("ROLLBACK TO views_snapshot; RELEASE views_snapshot"),
        ),
        Dialect::Postgres => (
            "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY",
            "COMMIT",
            Some("ROLLBACK"),
        ),
    };
    db.execute_batch(begin)?;
    let out = f(db);
    // Nothing was written, so ending is right whether `f` succeeded or not (SQLite); PostgreSQL
    // must roll back after an error, which it would otherwise keep the transaction in.
    let ended = match (&out, undo) {
        (Err(_), Some(undo)) => db.execute_batch(undo),
        _ => db.execute_batch(end),
    };
    let value = out?;
    ended?;
    Ok(value)
}

/// Whether a PostgreSQL connection is inside a transaction block: a setting made for the current
/// transaction alone outlives its statement only there (in autocommit each statement is one).
fn in_transaction(db: Db<'_>) -> Result<bool, StoreError> {
    db.execute("SELECT set_config('smsdesk.views_probe', 'in', true)", &[])?;
    let v: Option<String> = db.one("SELECT current_setting('smsdesk.views_probe', true)", &[])?;
    Ok(v.as_deref() == Some("in"))
}

/// Column `i` as a domain enum stored in its text form.
pub(crate) fn enum_at<T: TextForm>(r: &Row<'_, '_>, i: usize) -> Result<T, StoreError> {
    let text: String = r.get(i)?;
    text.parse()
        .map_err(|e| StoreError::Corrupt(format!("column {i}: {e}")))
}

/// Column `i` as a domain enum stored in its text form, or null.
pub(crate) fn enum_opt<T: TextForm>(r: &Row<'_, '_>, i: usize) -> Result<Option<T>, StoreError> {
    match r.get::<Option<String>>(i)? {
        None => Ok(None),
        Some(text) => text
            .parse()
            .map(Some)
            .map_err(|e| StoreError::Corrupt(format!("column {i}: {e}"))),
    }
}

/// A parameter of a query put together from a filter: owned, so the query can be built first and
/// run later.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Arg {
    Int(i64),
    Text(String),
}

impl Param for Arg {
    fn value(&self) -> Value<'_> {
        match self {
            Arg::Int(i) => Value::Int(*i),
            Arg::Text(t) => Value::Text(t),
        }
    }
}

impl rusqlite::ToSql for Arg {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(match self {
            Arg::Int(i) => (*i).into(),
            Arg::Text(t) => t.as_str().into(),
        })
    }
}

/// `args` as the Db API takes parameters.
pub(crate) fn params(args: &[Arg]) -> Vec<&dyn Param> {
    args.iter().map(|a| a as &dyn Param).collect()
}

/// A stored JSON text as a value; text that is not JSON is kept as a string rather than lost.
pub fn json(text: Option<String>) -> Option<serde_json::Value> {
    text.map(|t| serde_json::from_str(&t).unwrap_or(serde_json::Value::String(t)))
}
