//! The message list: one row per message, newest first, filtered, in cursor pages.
//!
//! How a page is found, so that it stays fast on a million messages:
//! - One index *drives* the page, walked newest first from the cursor: the full-text index when
//!   `q` is given, else the destination index for an exact destination, else `queue (status,
//!   message_id)` for a status, else `projection (state, message_id)` for a state other than
//!   pending, else the message table itself. The order is always the message id, so a page never
//!   needs a sort and stops as soon as it is full.
//! - A creation-time range narrows whichever index drives to an id range (two lookups in
//!   `message_created`), as long as creation times have followed ids; should the clock ever have
//!   been set back, it is checked row by row instead (migration 3 keeps count).
//! - Every other filter is checked on the driven rows. So that a rare combination cannot turn one
//!   request into a scan of the whole table, a page looks at no more than [`SCAN_BUDGET`]
//!   candidates: when it stops there it comes back with fewer items than asked (possibly none),
//!   `scan_limited` set, and a `next_cursor` that continues where it stopped. Follow `next_cursor`
//!   until it is `None`; every message that matches is returned exactly once.
//!
//! Paging is by id, newest first: messages created after the first page have higher ids and never
//! shift later pages. (A message whose status or state changes between two requests can of course
//! leave or enter a filtered list; it is still never returned twice.)

use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{cursor, page_limit, snapshot, ViewError};
use crate::Text;
use smsdesk_core::domain::{DeliveryState, Flag, IntakeChannel, MessageKind, QueueStatus};
use smsdesk_core::receipts::rules::Rule;

/// How many candidate rows one page may look at before it stops and hands back a cursor.
pub const SCAN_BUDGET: i64 = 20_000;

const LIST: &str = "messages";

/// One message as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct MessageSummary {
    #[ts(type = "number")]
    pub id: i64,
    #[ts(type = "number")]
    pub created_at_ms: i64,
    pub channel: IntakeChannel,
    /// E.164, as normalised by intake.
    pub destination: String,
    /// The first 80 characters of the text.
    pub preview: String,
    /// The text's length in characters (more than 80 when the preview is cut).
    pub body_chars: u32,
    pub kind: MessageKind,
    /// Urgency within its kind, 0 (first) to 9.
    pub priority: u8,
    pub segments: u32,
    pub encoding: String,
    /// Our queue: where the message stands on our side. `accepted` means the SMSC took the submit,
    /// which is not delivery.
    pub status: QueueStatus,
    /// What the network reported, as the rules computed it ("pending" until a receipt is applied),
    /// or what an operator decided (`rule` = "operator_decision").
    pub state: DeliveryState,
    /// Why the state is what it is: no_report, intermediate, first_final or operator_decision.
    pub rule: Rule,
    /// Of: late, conflict, no_receipt, mismatch, id_disagree (the projection's flags), repeat (a
    /// receipt for it came more than once) and outcome_unknown (the queue could not tell whether a
    /// submit went out).
    pub flags: Vec<Flag>,
    /// Submit tries made (the most for any one part).
    pub attempts: u32,
    pub client_ref: Option<String>,
    #[ts(type = "number | null")]
    pub api_key_id: Option<i64>,
    pub connection: String,
}

/// What to list. Every field is optional; they combine with AND. Read from a query string as is
/// (`?status=failed&q=order&limit=100`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema, utoipa::IntoParams)]
#[serde(default, rename_all = "snake_case")]
#[into_params(parameter_in = Query)]
pub struct MessageFilter {
    pub status: Option<QueueStatus>,
    /// "pending" also matches messages no receipt was applied to yet.
    pub state: Option<DeliveryState>,
    pub kind: Option<MessageKind>,
    pub channel: Option<IntakeChannel>,
    /// An exact E.164 number (`+33612345678`); spaces, dashes, dots and brackets are ignored, and
    /// a leading `00` or a bare digit counts as `+`. End it with `*` for every number that starts
    /// so (`+3361*`).
    pub destination: Option<String>,
    /// Words to find in the text or the client reference: every word must occur, each as the start
    /// of a word (`ord 42` finds "Order 4217"; a single letter or digit must be a whole word);
    /// case and accents are ignored.
    pub q: Option<String>,
    /// Created at or after this time (ms since the epoch).
    #[ts(type = "number | null")]
    pub from_ms: Option<i64>,
    /// Created before this time (ms since the epoch, exclusive).
    #[ts(type = "number | null")]
    pub to_ms: Option<i64>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// Page size: 50 when not given, 1 to 500.
    #[param(minimum = 1, maximum = 500)]
    #[schema(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
}

/// One page of messages, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct MessagePage {
    pub items: Vec<MessageSummary>,
    /// Pass back as `cursor` for the next page; `None` when there is nothing more.
    pub next_cursor: Option<String>,
    /// The page stopped at its scan budget before it was full: there may be more matches past
    /// `next_cursor` even though this page has fewer items than asked.
    pub scan_limited: bool,
}

/// The index that drives a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Driver {
    Text,
    Destination,
    Status,
    State,
    All,
}

impl Driver {
    /// The driving table (with the index it must use), alone.
    fn table(self) -> &'static str {
        match self {
            Driver::Text => "message_fts f",
            Driver::Destination => "message m INDEXED BY message_destination",
            Driver::Status => "queue q INDEXED BY queue_status_message",
            Driver::State => "projection p INDEXED BY projection_state",
            Driver::All => "message m NOT INDEXED",
        }
    }

    /// The driving table joined to everything a row shows, in an order the planner keeps.
    fn joined(self) -> String {
        let t = self.table();
        match self {
            Driver::Text => format!(
                "{t} CROSS JOIN message m ON m.id = f.rowid CROSS JOIN queue q ON q.message_id = m.id
                 LEFT JOIN projection p ON p.message_id = m.id"
            ),
            Driver::Destination | Driver::All => {
                format!("{t} CROSS JOIN queue q ON q.message_id = m.id LEFT JOIN projection p ON p.message_id = m.id")
            }
            Driver::Status => {
                format!("{t} CROSS JOIN message m ON m.id = q.message_id LEFT JOIN projection p ON p.message_id = m.id")
            }
            Driver::State => {
                format!("{t} CROSS JOIN message m ON m.id = p.message_id CROSS JOIN queue q ON q.message_id = m.id")
            }
        }
    }

    /// The message id as the driving index orders it.
    fn id(self) -> &'static str {
        match self {
            Driver::Text => "f.rowid",
            Driver::Destination | Driver::All => "m.id",
            Driver::Status => "q.message_id",
            Driver::State => "p.message_id",
        }
    }
}

/// SQL conditions with their parameters, in order.
#[derive(Default)]
struct Conds {
    sql: Vec<String>,
    params: Vec<Value>,
}

impl Conds {
    fn push(&mut self, sql: impl Into<String>, params: impl IntoIterator<Item = Value>) {
        self.sql.push(sql.into());
        self.params.extend(params);
    }

    fn text(v: &str) -> Value {
        Value::Text(v.to_owned())
    }
}

/// A destination filter, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    Exact(String),
    Prefix(String),
}

/// Reads the `destination` filter: formatting characters dropped, `00` or a bare leading digit
/// made `+`, a trailing `*` making it a prefix.
pub fn destination(raw: &str) -> Option<Destination> {
    let raw = raw.trim();
    let (raw, prefix) = match raw.strip_suffix('*') {
        Some(r) => (r, true),
        None => (raw, false),
    };
    let mut s: String = raw
        .chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '-' | '.' | '(' | ')' | '/'))
        .collect();
    if let Some(rest) = s.strip_prefix("00") {
        s = format!("+{rest}");
    } else if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '+');
    }
    match (s.is_empty(), prefix) {
        (true, false) => None,
        (_, true) => Some(Destination::Prefix(s)),
        (false, false) => Some(Destination::Exact(s)),
    }
}

/// The FTS5 query for the words of `q`: each word quoted (so nothing in it is query syntax) and
/// made a prefix, all required. A word of one letter or digit must be whole: as a prefix it would
/// match most of the index and cost a hundred times more. `None` when `q` has no letter or digit
/// to search for.
pub(crate) fn fts_query(q: &str) -> Option<String> {
    // Control characters (a NUL would end FTS5's reading of the query) separate words like spaces.
    let words: Vec<String> = q
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .map(|w| {
            let quoted = format!("\"{}\"", w.replace('"', "\"\""));
            if w.chars().filter(|c| c.is_alphanumeric()).count() > 1 {
                quoted + "*"
            } else {
                quoted
            }
        })
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// The columns of a [`MessageSummary`], over `m` (message), `q` (queue) and `p` (projection, may
/// be missing).
pub(crate) const SUMMARY_COLUMNS: &str = "m.id, m.created_at, m.channel, m.destination, substr(m.body, 1, 80),
     length(m.body), m.kind, q.priority % 10, m.segments, m.encoding, q.status, coalesce(p.state, 'pending'),
     coalesce(p.rule, 'no_report'), coalesce(p.flag_late, 0), coalesce(p.flag_conflict, 0),
     coalesce(p.flag_no_receipt, 0), coalesce(p.flag_mismatch, 0), coalesce(p.flag_id_disagree, 0),
     EXISTS (SELECT 1 FROM logical_event e JOIN receipt_outcome o ON o.logical_event_id = e.id
             WHERE e.message_id = m.id AND o.is_repeat = 1),
     (SELECT coalesce(max(a.attempt_no), 0) FROM attempt a WHERE a.message_id = m.id),
     m.client_ref, m.api_key_id, m.connection";

pub(crate) fn summary_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<MessageSummary> {
    let status: QueueStatus = r.get::<_, Text<_>>(10)?.0;
    let columns = [
        Flag::Late,
        Flag::Conflict,
        Flag::NoReceipt,
        Flag::Mismatch,
        Flag::IdDisagree,
        Flag::Repeat,
    ];
    let mut flags = Vec::new();
    for (i, flag) in columns.into_iter().enumerate() {
        if r.get::<_, bool>(13 + i)? {
            flags.push(flag);
        }
    }
    if status == QueueStatus::OutcomeUnknown {
        flags.push(Flag::OutcomeUnknown);
    }
    Ok(MessageSummary {
        id: r.get(0)?,
        created_at_ms: r.get(1)?,
        channel: r.get::<_, Text<_>>(2)?.0,
        destination: r.get(3)?,
        preview: r.get(4)?,
        body_chars: r.get(5)?,
        kind: r.get::<_, Text<_>>(6)?.0,
        priority: r.get(7)?,
        segments: r.get(8)?,
        encoding: r.get(9)?,
        status,
        state: r.get::<_, Text<_>>(11)?.0,
        rule: r.get::<_, Text<_>>(12)?.0,
        flags,
        attempts: r.get(19)?,
        client_ref: r.get(20)?,
        api_key_id: r.get(21)?,
        connection: r.get(22)?,
    })
}

/// One message as listed, by id.
pub(crate) fn summary(c: &Connection, id: i64) -> Result<Option<MessageSummary>, ViewError> {
    Ok(c.prepare_cached(&format!(
        "SELECT {SUMMARY_COLUMNS} FROM message m JOIN queue q ON q.message_id = m.id
         LEFT JOIN projection p ON p.message_id = m.id WHERE m.id = ?1"
    ))?
    .query_row([id], summary_row)
    .optional()?)
}

/// A filter read and checked: the driving index, its conditions, and the rest.
struct Plan {
    driver: Driver,
    driving: Conds,
    residual: Conds,
    from_ms: Option<i64>,
    to_ms: Option<i64>,
    before: i64,
    limit: usize,
    budget: i64,
}

impl Plan {
    fn new(f: &MessageFilter, budget: i64) -> Result<Plan, ViewError> {
        let before = cursor::decode(LIST, f.cursor.as_deref())?.unwrap_or(i64::MAX);
        let limit = page_limit(f.limit)?;
        if let (Some(from), Some(to)) = (f.from_ms, f.to_ms) {
            if from >= to {
                return Err(ViewError::InvalidFilter(format!(
                    "from_ms ({from}) must be before to_ms ({to})"
                )));
            }
        }
        let text = match f.q.as_deref().map(str::trim).filter(|q| !q.is_empty()) {
            Some(q) => Some(
                fts_query(q)
                    .ok_or_else(|| ViewError::InvalidFilter("q has no letter or digit to search for".to_owned()))?,
            ),
            None => None,
        };
        let dest = f.destination.as_deref().and_then(destination);

        let driver = if text.is_some() {
            Driver::Text
        } else if matches!(dest, Some(Destination::Exact(_))) {
            Driver::Destination
        } else if f.status.is_some() {
            Driver::Status
        } else if f.state.is_some_and(|s| s != DeliveryState::Pending) {
            Driver::State
        } else {
            Driver::All
        };

        let mut driving = Conds::default();
        let mut residual = Conds::default();
        if let Some(t) = text {
            driving.push("f.message_fts MATCH ?", [Value::Text(t)]);
        }
        match &dest {
            Some(Destination::Exact(d)) if driver == Driver::Destination => {
                driving.push("m.destination = ?", [Conds::text(d)]);
            }
            Some(Destination::Exact(d)) => residual.push("m.destination = ?", [Conds::text(d)]),
            Some(Destination::Prefix(p)) => {
                // A range rather than LIKE: exact bytes, no escaping, no case folding.
                let mut end = p.clone();
                end.push(char::MAX);
                residual.push(
                    "m.destination >= ? AND m.destination < ?",
                    [Conds::text(p), Value::Text(end)],
                );
            }
            None => {}
        }
        if let Some(s) = f.status {
            let target = if driver == Driver::Status {
                &mut driving
            } else {
                &mut residual
            };
            target.push("q.status = ?", [Conds::text(s.as_str())]);
        }
        match f.state {
            Some(DeliveryState::Pending) => residual.push("(p.state IS NULL OR p.state = 'pending')", []),
            Some(s) if driver == Driver::State => driving.push("p.state = ?", [Conds::text(s.as_str())]),
            Some(s) => residual.push("p.state = ?", [Conds::text(s.as_str())]),
            None => {}
        }
        if let Some(k) = f.kind {
            residual.push("m.kind = ?", [Conds::text(k.as_str())]);
        }
        if let Some(ch) = f.channel {
            residual.push("m.channel = ?", [Conds::text(ch.as_str())]);
        }
        Ok(Plan {
            driver,
            driving,
            residual,
            from_ms: f.from_ms,
            to_ms: f.to_ms,
            before,
            limit,
            budget: budget.max(1),
        })
    }

    /// Narrows the page to the creation-time range. While creation times have followed ids (the
    /// clock was never set back: migration 3 keeps count), the range is an id range found with two
    /// index lookups and given to the driving index, so an old range costs no more than a recent
    /// one; otherwise each row's time is checked. `false` when no message can be in the range.
    fn bound_dates(&mut self, c: &Connection) -> Result<bool, ViewError> {
        if self.from_ms.is_none() && self.to_ms.is_none() {
            return Ok(true);
        }
        let backwards: i64 = c
            .prepare_cached("SELECT coalesce(max(n), 0) FROM view_count WHERE scope = 'clock' AND value = 'backwards'")?
            .query_row([], |r| r.get(0))?;
        if backwards > 0 {
            if let Some(from) = self.from_ms {
                self.residual.push("m.created_at >= ?", [Value::Integer(from)]);
            }
            if let Some(to) = self.to_ms {
                self.residual.push("m.created_at < ?", [Value::Integer(to)]);
            }
            return Ok(true);
        }
        let id = self.driver.id();
        if let Some(from) = self.from_ms {
            let first: Option<i64> = c
                .prepare_cached(
                    "SELECT id FROM message INDEXED BY message_created WHERE created_at >= ?1
                     ORDER BY created_at, id LIMIT 1",
                )?
                .query_row([from], |r| r.get(0))
                .optional()?;
            let Some(first) = first else { return Ok(false) };
            self.driving.push(format!("{id} >= ?"), [Value::Integer(first)]);
        }
        if let Some(to) = self.to_ms {
            let last: Option<i64> = c
                .prepare_cached(
                    "SELECT id FROM message INDEXED BY message_created WHERE created_at < ?1
                     ORDER BY created_at DESC, id DESC LIMIT 1",
                )?
                .query_row([to], |r| r.get(0))
                .optional()?;
            let Some(last) = last else { return Ok(false) };
            self.driving.push(format!("{id} <= ?"), [Value::Integer(last)]);
        }
        Ok(true)
    }

    /// The query for the id where the scan budget runs out, when rows may be skipped at all.
    fn floor_query(&self) -> Option<(String, Vec<Value>)> {
        if self.residual.sql.is_empty() {
            return None;
        }
        let id = self.driver.id();
        let mut where_ = self.driving.sql.clone();
        where_.push(format!("{id} < ?"));
        let mut params = self.driving.params.clone();
        params.push(Value::Integer(self.before));
        params.push(Value::Integer(self.budget - 1));
        let sql = format!(
            "SELECT {id} FROM {} WHERE {} ORDER BY {id} DESC LIMIT 1 OFFSET ?",
            self.driver.table(),
            where_.join(" AND ")
        );
        Some((sql, params))
    }

    /// The query for the page's rows, down to `floor` when the budget ends there.
    fn page_query(&self, floor: Option<i64>) -> (String, Vec<Value>) {
        let id = self.driver.id();
        let mut where_ = self.driving.sql.clone();
        where_.push(format!("{id} < ?"));
        let mut params = self.driving.params.clone();
        params.push(Value::Integer(self.before));
        if let Some(floor) = floor {
            where_.push(format!("{id} >= ?"));
            params.push(Value::Integer(floor));
        }
        where_.extend(self.residual.sql.iter().cloned());
        params.extend(self.residual.params.iter().cloned());
        params.push(Value::Integer(self.limit as i64 + 1));
        let sql = format!(
            "SELECT {SUMMARY_COLUMNS} FROM {} WHERE {} ORDER BY {id} DESC LIMIT ?",
            self.driver.joined(),
            where_.join(" AND ")
        );
        (sql, params)
    }
}

/// A page of messages, newest first (see the module documentation for how it stays fast).
pub fn list_messages(c: &Connection, f: &MessageFilter) -> Result<MessagePage, ViewError> {
    list_with_budget(c, f, SCAN_BUDGET)
}

/// How many messages a filter selects in all (its cursor and limit are ignored). Unlike a page,
/// this reads every match: for exports and reports, not for every screen refresh.
pub fn count_messages(c: &Connection, f: &MessageFilter) -> Result<u64, ViewError> {
    let mut plan = Plan::new(
        &MessageFilter {
            cursor: None,
            ..f.clone()
        },
        SCAN_BUDGET,
    )?;
    snapshot(c, |c| {
        if !plan.bound_dates(c)? {
            return Ok(0);
        }
        let n: i64 = if plan.driving.sql.is_empty() && plan.residual.sql.is_empty() {
            c.prepare_cached("SELECT coalesce(max(n), 0) FROM view_count WHERE scope = 'message' AND value = 'all'")?
                .query_row([], |r| r.get(0))?
        } else {
            let mut conds = plan.driving.sql.clone();
            conds.extend(plan.residual.sql.iter().cloned());
            let mut params = plan.driving.params.clone();
            params.extend(plan.residual.params.iter().cloned());
            let sql = format!(
                "SELECT count(*) FROM {} WHERE {}",
                plan.driver.joined(),
                conds.join(" AND ")
            );
            c.prepare_cached(&sql)?
                .query_row(params_from_iter(params), |r| r.get(0))?
        };
        Ok(n.max(0) as u64)
    })
}

/// [`list_messages`] with another scan budget (tests use a small one).
pub fn list_with_budget(c: &Connection, f: &MessageFilter, budget: i64) -> Result<MessagePage, ViewError> {
    let mut plan = Plan::new(f, budget)?;
    snapshot(c, |c| {
        if !plan.bound_dates(c)? {
            return Ok(MessagePage {
                items: Vec::new(),
                next_cursor: None,
                scan_limited: false,
            });
        }
        let floor: Option<i64> = match plan.floor_query() {
            Some((sql, params)) => c
                .prepare_cached(&sql)?
                .query_row(params_from_iter(params), |r| r.get(0))
                .optional()?,
            None => None,
        };
        let (sql, params) = plan.page_query(floor);
        let mut items = c
            .prepare_cached(&sql)?
            .query_map(params_from_iter(params), summary_row)?
            .collect::<Result<Vec<_>, _>>()?;

        let (next_cursor, scan_limited) = if items.len() > plan.limit {
            items.truncate(plan.limit);
            (items.last().map(|m| cursor::encode(LIST, m.id)), false)
        } else if let Some(floor) = floor {
            (Some(cursor::encode(LIST, floor)), true)
        } else {
            (None, false)
        };
        Ok(MessagePage {
            items,
            next_cursor,
            scan_limited,
        })
    })
}

/// The query plans SQLite picks for a filter's queries (the budget probe, then the page), for
/// tests that pin down index use and for whoever checks one by hand.
pub fn query_plans(c: &Connection, f: &MessageFilter) -> Result<Vec<String>, ViewError> {
    let mut plan = Plan::new(f, SCAN_BUDGET)?;
    plan.bound_dates(c)?;
    let mut queries: Vec<(String, Vec<Value>)> = plan.floor_query().into_iter().collect();
    queries.push(plan.page_query(Some(1)));
    let mut out = Vec::new();
    for (sql, params) in queries {
        let mut stmt = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
        let rows = stmt.query_map(params_from_iter(params), |r| r.get::<_, String>(3))?;
        for row in rows {
            out.push(row?);
        }
    }
    Ok(out)
}
