//! The opt-out list: the numbers not to send to, with their evidence (the reply that asked), and
//! the list's history.

use serde::{Deserialize, Serialize};
use smsdesk_core::domain::MessageKind;
use ts_rs::TS;

use super::inbox_search::NumberTerm;
use super::{cursor, page_limit, snapshot, ViewError};
use crate::db::Row;
use crate::number_token::Hashed;
use crate::tables::opt_out::parse_kinds;
use crate::{Reads, StoreError};

const OPT_OUTS: &str = "opt_outs";

/// A number's entry on the opt-out list (current, or ended when it was taken off).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct OptOutEntry {
    #[ts(type = "number")]
    pub id: i64,
    pub phone: String,
    /// The kinds of message it stops.
    pub kinds: Vec<MessageKind>,
    /// reply, operator or import.
    pub reason: String,
    pub note: Option<String>,
    /// The reply that asked for it, with its text: the evidence.
    #[ts(type = "number | null")]
    pub inbox_message_id: Option<i64>,
    pub reply_text: Option<String>,
    #[ts(type = "number")]
    pub created_at_ms: i64,
    pub created_by: String,
    #[ts(type = "number | null")]
    pub removed_at_ms: Option<i64>,
    pub removed_by: Option<String>,
    pub removed_reason: Option<String>,
    pub removed_note: Option<String>,
    #[ts(type = "number | null")]
    pub removed_inbox_message_id: Option<i64>,
}

pub(crate) const OPT_OUT_COLUMNS: &str =
    "o.id, o.phone, o.kinds, o.reason, o.note, o.inbox_message_id, i.text, o.created_at, \
    o.created_by, o.removed_at, o.removed_by, o.removed_reason, o.removed_note, o.removed_inbox_message_id";

/// A row of [`OPT_OUT_COLUMNS`], read.
pub(crate) fn opt_out_entry(r: &Row<'_, '_>) -> Result<OptOutEntry, StoreError> {
    Ok(OptOutEntry {
        id: r.get(0)?,
        phone: r.get(1)?,
        kinds: parse_kinds(&r.get::<String>(2)?),
        reason: r.get(3)?,
        note: r.get(4)?,
        inbox_message_id: r.get(5)?,
        reply_text: r.get(6)?,
        created_at_ms: r.get(7)?,
        created_by: r.get(8)?,
        removed_at_ms: r.get(9)?,
        removed_by: r.get(10)?,
        removed_reason: r.get(11)?,
        removed_note: r.get(12)?,
        removed_inbox_message_id: r.get(13)?,
    })
}

/// The number's current entry: under the number, or under its keyed hash once it was erased (the
/// hash SQLite's function there, made in Rust and bound on PostgreSQL: [`crate::number_token`]).
pub fn current_entry(c: &impl Reads, phone: &str) -> Result<Option<OptOutEntry>, ViewError> {
    let db = c.db();
    let hash = Hashed::lookup(db, phone);
    let (sql, params) = hash.statement(
        &format!(
            "SELECT {OPT_OUT_COLUMNS} FROM opt_out o LEFT JOIN inbox_message i ON i.id = o.inbox_message_id
             WHERE o.phone IN (?1, number_token(?1)) AND o.removed_at IS NULL"
        ),
        &[&phone],
    );
    Ok(db.query_opt(&sql, &params, opt_out_entry)?)
}

/// Which entries to list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema, utoipa::IntoParams)]
#[serde(default, rename_all = "snake_case")]
#[into_params(parameter_in = Query)]
pub struct OptOutFilter {
    /// The number as people type it: whole, its beginning, or any 4 digits of it or more.
    pub q: Option<String>,
    /// Also the entries that ended (numbers taken off the list): the list's history.
    pub history: Option<bool>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// Page size: 50 when not given, 1 to 500.
    #[param(minimum = 1, maximum = 500)]
    #[schema(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
    /// The number `q` holds, as the engine read it (`+33612345600`, `+3361*`, `*3456`). Set by
    /// the engine, never taken from a request; without it, `q` is read as the store reads a
    /// destination filter.
    #[serde(skip)]
    #[ts(skip)]
    #[param(ignore)]
    #[schema(ignore)]
    pub number: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct OptOutPage {
    pub items: Vec<OptOutEntry>,
    pub next_cursor: Option<String>,
    /// Numbers on the list now (whatever the filter).
    pub current: u32,
}

/// The opt-out list, the latest entry first.
pub fn list_opt_outs(c: &impl Reads, f: &OptOutFilter) -> Result<OptOutPage, ViewError> {
    let before = cursor::decode(OPT_OUTS, f.cursor.as_deref())?.unwrap_or(i64::MAX);
    let limit = page_limit(f.limit)?;
    let number = NumberTerm::of(f.number.as_deref().or(f.q.as_deref()));
    let dialect = c.db().dialect();
    snapshot(c.db(), |c| {
        let mut items = c.query(
            &format!(
                "SELECT {OPT_OUT_COLUMNS} FROM opt_out o LEFT JOIN inbox_message i ON i.id = o.inbox_message_id
                 WHERE o.id < ?1 AND (?3 <> 0 OR o.removed_at IS NULL) AND {}
                 ORDER BY o.id DESC LIMIT ?2",
                NumberTerm::condition("o.phone", 4, dialect)
            ),
            &[
                &before,
                &(limit as i64 + 1),
                &f.history.unwrap_or(false),
                &number.exact,
                &number.prefix,
                &number.part,
            ],
            opt_out_entry,
        )?;
        let next_cursor = if items.len() > limit {
            items.truncate(limit);
            items.last().map(|e| cursor::encode(OPT_OUTS, e.id))
        } else {
            None
        };
        let current = c.one("SELECT count(*) FROM opt_out WHERE removed_at IS NULL", &[])?;
        Ok(OptOutPage {
            items,
            next_cursor,
            current,
        })
    })
}
