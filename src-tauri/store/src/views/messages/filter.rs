//! What to list ([`MessageFilter`]), and how its free-text fields are read: the destination
//! (exact or a prefix) and the words to search for.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::db::Dialect;
use crate::reports::OUTCOMES;
use crate::views::{Arg, ViewError};
use smsdesk_core::domain::{DeliveryState, IntakeChannel, MessageKind, QueueStatus};

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
    /// A phone number as people write it. The whole number: international (`+33 6 12 34 56 78`,
    /// `0033…`, or its digits alone, `33612345678`) or national (`06 12 34 56 78`, read in
    /// `intake.default_region`); spaces, dashes, dots and brackets are ignored. Its last digits,
    /// at least 4 (`5678`, or `*5678`): every number that ends so; a bare number that is not a
    /// valid one in the default region is read so. Its beginning followed by `*` (`+3361*`, or
    /// `0612*` in the default region): every number that starts so.
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
    /// Where the message stands in the delivery report (`/reports/delivery`): the connection that
    /// took it or last tried it ("" for none).
    pub connection: Option<String>,
    /// The route that took it ("" for none).
    pub route: Option<String>,
    /// The destination's country, two letters ("" when the numbering data does not tell).
    pub country: Option<String>,
    /// Who handed it in: `key:<id>`, `person:<login>`, `csv` or `cli`.
    pub sender: Option<String>,
    /// Its outcome in the report, or several separated by commas: `delivered`, `failed`,
    /// `expired`, `cancelled`, `no_receipt`, `unknown`, `pending`.
    pub outcome: Option<String>,
    /// The SMPP status of its last answered submit (0: accepted; -1: none answered).
    #[ts(type = "number | null")]
    pub command_status: Option<i64>,
    /// The error code of the receipt its final state rests on ("" for none).
    pub error_code: Option<String>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// Page size: 50 when not given, 1 to 500.
    #[param(minimum = 1, maximum = 500)]
    #[schema(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
    /// Only the messages this API key handed in: set by the engine for a key that may read only
    /// its own, never taken from a request.
    #[serde(skip)]
    #[ts(skip)]
    #[param(ignore)]
    #[schema(ignore)]
    pub only_key: Option<i64>,
}

/// A destination filter, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    Exact(String),
    Prefix(String),
    /// The last digits of a number (without its `+`).
    Suffix(String),
}

/// Reads the `destination` filter as the store takes it: formatting characters dropped, `00` or
/// a bare leading digit made `+`, a trailing `*` making it a prefix, and a leading `*` before
/// digits a suffix. (The engine reads what people type first: a national number in its region, a
/// bare number that is no valid one as a suffix; see `smsdesk_engine::views::destination`.)
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
    if let Some(digits) = s.strip_prefix('*') {
        if !prefix && !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
            return Some(Destination::Suffix(digits.to_owned()));
        }
    }
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

/// The PostgreSQL tsquery (`to_tsquery('simple', …)`) for the words of `q`, as [`fts_query`]
/// reads them: each word quoted (so nothing in it is query syntax; PostgreSQL's parser splits it
/// into the tokens it splits the text into, one after the other) and made a prefix, all required.
/// A word of one letter or digit must be whole. Tokens are not those of SQLite's unicode61
/// (`ref-2000` is `ref` and `-2000`; accents are not removed): see NOTES.md.
pub(crate) fn tsquery(q: &str) -> Option<String> {
    let words: Vec<String> = q
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .map(|w| {
            let quoted = format!("'{}'", w.replace('\\', "\\\\").replace('\'', "''"));
            if w.chars().filter(|c| c.is_alphanumeric()).count() > 1 {
                quoted + ":*"
            } else {
                quoted
            }
        })
        .collect();
    (!words.is_empty()).then(|| words.join(" & "))
}

/// Refuses a creation-time range that does not start before it ends.
pub(super) fn check_range(f: &MessageFilter) -> Result<(), ViewError> {
    if let (Some(from), Some(to)) = (f.from_ms, f.to_ms) {
        if from >= to {
            return Err(ViewError::InvalidFilter(format!(
                "from_ms ({from}) must be before to_ms ({to})"
            )));
        }
    }
    Ok(())
}

/// The full-text query for the filter's words in the store's dialect, if it has any; refused when
/// `q` is given but has no letter or digit to search for.
pub(super) fn text_query(f: &MessageFilter, dialect: Dialect) -> Result<Option<String>, ViewError> {
    let Some(q) = f.q.as_deref().map(str::trim).filter(|q| !q.is_empty()) else {
        return Ok(None);
    };
    let query = match dialect {
        Dialect::Sqlite => fts_query(q),
        Dialect::Postgres => tsquery(q),
    };
    let query = query.ok_or_else(|| ViewError::InvalidFilter("q has no letter or digit to search for".to_owned()))?;
    Ok(Some(query))
}

impl MessageFilter {
    /// Whether it selects by where messages stand in the delivery report.
    pub(crate) fn by_report(&self) -> bool {
        self.connection.is_some()
            || self.route.is_some()
            || self.country.is_some()
            || self.sender.is_some()
            || self.outcome.is_some()
            || self.command_status.is_some()
            || self.error_code.is_some()
    }
}

/// The report filters as one condition on a message `m`, checked on its entry: the very rows the
/// report sums, so a figure and its list agree. None without report filters.
pub(super) fn report_entry_matches(f: &MessageFilter) -> Result<Option<(String, Vec<Arg>)>, ViewError> {
    let (sql, params) = report_conditions(f, "re")?;
    Ok((!sql.is_empty()).then(|| {
        let all = sql.join(" AND ");
        (
            format!("EXISTS (SELECT 1 FROM report_entry re WHERE re.message_id = m.id AND {all})"),
            params,
        )
    }))
}

/// The report filters as conditions on the columns `report_entry` and `report_hour` share, each
/// prefixed with `table.`, and their parameters in order; an outcome that is none of the
/// report's is refused.
pub(crate) fn report_conditions(f: &MessageFilter, table: &str) -> Result<(Vec<String>, Vec<Arg>), ViewError> {
    let mut sql = Vec::new();
    let mut params = Vec::new();
    let texts = [
        ("connection", &f.connection),
        ("route", &f.route),
        ("country", &f.country),
        ("sender", &f.sender),
        ("error_code", &f.error_code),
    ];
    for (column, value) in texts {
        if let Some(v) = value {
            sql.push(format!("{table}.{column} = ?"));
            params.push(Arg::Text(v.trim().to_owned()));
        }
    }
    if let Some(status) = f.command_status {
        sql.push(format!("{table}.command_status = ?"));
        params.push(Arg::Int(status));
    }
    if let Some(list) = &f.outcome {
        let outcomes: Vec<&str> = list.split(',').map(str::trim).filter(|o| !o.is_empty()).collect();
        if outcomes.is_empty() {
            return Err(ViewError::InvalidFilter("outcome names no outcome".to_owned()));
        }
        if let Some(unknown) = outcomes.iter().find(|o| !OUTCOMES.contains(o)) {
            return Err(ViewError::InvalidFilter(format!(
                "outcome `{unknown}` is none of {}",
                OUTCOMES.join(", ")
            )));
        }
        sql.push(format!("{table}.outcome IN ({})", vec!["?"; outcomes.len()].join(", ")));
        params.extend(outcomes.iter().map(|o| Arg::Text((*o).to_owned())));
    }
    Ok((sql, params))
}
