//! The index that drives a page of the message list ([`Driver`]), and how each store is told to
//! use it. SQLite is told with `INDEXED BY` and `CROSS JOIN` (which keeps the join order);
//! PostgreSQL has neither, and its planner picks the index itself, as long as an indexed
//! expression is written exactly as its index has it (the text search's and the reversed
//! destination's).

use super::filter::{Destination, MessageFilter};
use crate::db::Dialect;
use smsdesk_core::domain::DeliveryState;

/// The index that drives a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Driver {
    Text,
    Destination,
    /// The destination index's range for a prefix: not in id order, so its ids are sorted first
    /// (only when the range is small: see the parent module).
    Prefix,
    /// The reversed destination index's range for a suffix (migration 16), used as a prefix's.
    Suffix,
    Key,
    Status,
    State,
    All,
}

impl Driver {
    /// The index for a filter: the full-text index for words to search for, else the destination
    /// index for an exact destination, else the API key's index for a key's own messages, else the
    /// queue's status index, else the projection's state index for a state other than pending,
    /// else the message table itself. (A destination prefix's range is chosen by a count of it:
    /// `Plan::by_range`.)
    pub(super) fn choose(f: &MessageFilter, text: bool, dest: Option<&Destination>) -> Driver {
        if text {
            Driver::Text
        } else if matches!(dest, Some(Destination::Exact(_))) {
            Driver::Destination
        } else if f.only_key.is_some() {
            Driver::Key
        } else if f.status.is_some() {
            Driver::Status
        } else if f.state.is_some_and(|s| s != DeliveryState::Pending) {
            Driver::State
        } else {
            Driver::All
        }
    }

    /// The driving table (with the index it must use, on SQLite), alone.
    pub(super) fn table(self, dialect: Dialect) -> &'static str {
        if dialect == Dialect::Postgres {
            return match self {
                Driver::Status => "queue q",
                Driver::State => "projection p",
                _ => "message m",
            };
        }
        match self {
            Driver::Text => "message_fts f",
            Driver::Destination | Driver::Prefix => "message m INDEXED BY message_destination",
            Driver::Suffix => "message m INDEXED BY message_destination_suffix",
            Driver::Key => "message m INDEXED BY message_api_key",
            Driver::Status => "queue q INDEXED BY queue_status_message",
            Driver::State => "projection p INDEXED BY projection_state",
            Driver::All => "message m NOT INDEXED",
        }
    }

    /// The driving table joined to everything a row shows, in an order the planner keeps (on
    /// SQLite; PostgreSQL's `CROSS JOIN` takes no condition, and its planner orders joins itself).
    pub(super) fn joined(self, dialect: Dialect) -> String {
        let t = self.table(dialect);
        let cross = match dialect {
            Dialect::Sqlite => "CROSS JOIN",
            Dialect::Postgres => "JOIN",
        };
        match self {
            Driver::Text if dialect == Dialect::Sqlite => format!(
                "{t} {cross} message m ON m.id = f.rowid {cross} queue q ON q.message_id = m.id
                 LEFT JOIN projection p ON p.message_id = m.id"
            ),
            Driver::Text | Driver::Destination | Driver::Prefix | Driver::Suffix | Driver::Key | Driver::All => {
                format!("{t} {cross} queue q ON q.message_id = m.id LEFT JOIN projection p ON p.message_id = m.id")
            }
            Driver::Status => {
                format!("{t} {cross} message m ON m.id = q.message_id LEFT JOIN projection p ON p.message_id = m.id")
            }
            Driver::State => {
                format!("{t} {cross} message m ON m.id = p.message_id {cross} queue q ON q.message_id = m.id")
            }
        }
    }

    /// The message id as the driving index orders it.
    pub(super) fn id(self, dialect: Dialect) -> &'static str {
        match self {
            Driver::Text if dialect == Dialect::Sqlite => "f.rowid",
            Driver::Text | Driver::Destination | Driver::Prefix | Driver::Suffix | Driver::Key | Driver::All => "m.id",
            Driver::Status => "q.message_id",
            Driver::State => "p.message_id",
        }
    }
}

/// The condition that finds the words of a text query in a message, its one parameter the query
/// (FTS5's on SQLite, a tsquery on PostgreSQL: `filter::text_query`).
pub(super) fn text_condition(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Sqlite => "f.message_fts MATCH ?",
        // The GIN index `message_fts`'s very expression (0030_baseline.sql), for it to be used.
        Dialect::Postgres => {
            "to_tsvector('simple', coalesce(m.body, '') || ' ' || coalesce(m.client_ref, '')) @@ to_tsquery('simple', ?)"
        }
    }
}

/// The last 16 characters of `column` reversed (all of an E.164 number, whose + ends it), as the
/// index `message_destination_suffix` keeps them for `destination`: an ending of the number is a
/// beginning of this, so a range of that index. On SQLite (migration 16), only `substr` and `||`,
/// so that the database needs no function of ours to be read, written or checked; on PostgreSQL,
/// the index's own expression.
pub(crate) fn reversed_destination(column: &str, dialect: Dialect) -> String {
    match dialect {
        Dialect::Sqlite => {
            let chars: Vec<String> = (1..=16).map(|k| format!("substr({column}, -{k}, 1)")).collect();
            format!("({})", chars.join(" || "))
        }
        Dialect::Postgres => format!("reverse(right({column}, 16))"),
    }
}
