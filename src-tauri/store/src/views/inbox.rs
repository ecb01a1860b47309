//! The inbox: messages from handsets, threaded per number with the messages sent to it (the
//! numbers not to send to, with their evidence, are in `opt_outs`).

use serde::{Deserialize, Serialize};
use smsdesk_core::domain::{DeliveryState, MessageKind, QueueStatus};
use ts_rs::TS;

use super::inbox_search::{words, NumberTerm, FOLD_FUNCTION};
pub use super::opt_outs::{current_entry, list_opt_outs, OptOutEntry, OptOutFilter, OptOutPage};
pub(crate) use super::opt_outs::{opt_out_entry, OPT_OUT_COLUMNS};
use super::{cursor, enum_at, enum_opt, page_limit, snapshot, ViewError};
use crate::db::{Dialect, Row};
use crate::{Reads, StoreError};

const THREADS: &str = "threads";
const THREAD: &str = "thread";

/// One message from a handset, whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct InboxMessage {
    #[ts(type = "number")]
    pub id: i64,
    pub connection: String,
    /// The conversation: the sender's number in E.164, or its address when it reads as none.
    pub thread: String,
    /// The sender's number in E.164, when its address reads as one.
    pub phone: Option<String>,
    /// The sender's address as received.
    pub handset: String,
    /// Our number or sender id it was sent to.
    pub recipient: Option<String>,
    pub text: String,
    /// gsm7, ascii, latin1, ucs2 or binary (as the SMPP data_coding said), or text (an HTTP provider's reply).
    pub alphabet: String,
    /// Parts of a long message, and how many came (fewer when the wait for one ran out).
    pub parts: u32,
    pub parts_received: u32,
    #[ts(type = "number")]
    pub received_at_ms: i64,
    /// `opt_out` or `opt_in` when the whole text is one of the keywords, with the keyword.
    pub intent: Option<String>,
    pub keyword: Option<String>,
    #[ts(type = "number | null")]
    pub read_at_ms: Option<i64>,
    pub read_by: Option<String>,
}

const INBOX_COLUMNS: &str = "i.id, i.connection, i.thread, i.phone, i.handset, i.recipient, i.text, i.alphabet, \
    i.parts, i.parts_received, i.received_at, i.intent, i.keyword, i.read_at, i.read_by";

fn inbox_row(r: &Row<'_, '_>) -> Result<InboxMessage, StoreError> {
    inbox_at(r, 0)
}

/// The columns of [`INBOX_COLUMNS`] from column `b` on.
fn inbox_at(r: &Row<'_, '_>, b: usize) -> Result<InboxMessage, StoreError> {
    Ok(InboxMessage {
        id: r.get(b)?,
        connection: r.get(b + 1)?,
        thread: r.get(b + 2)?,
        phone: r.get(b + 3)?,
        handset: r.get(b + 4)?,
        recipient: r.get(b + 5)?,
        text: r.get(b + 6)?,
        alphabet: r.get(b + 7)?,
        parts: r.get(b + 8)?,
        parts_received: r.get(b + 9)?,
        received_at_ms: r.get(b + 10)?,
        intent: r.get(b + 11)?,
        keyword: r.get(b + 12)?,
        read_at_ms: r.get(b + 13)?,
        read_by: r.get(b + 14)?,
    })
}

/// Which threads to list: all fields optional, combined with AND.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema, utoipa::IntoParams)]
#[serde(default, rename_all = "snake_case")]
#[into_params(parameter_in = Query)]
pub struct InboxFilter {
    /// A number as people type it: the whole number (`06 12 34 56 00` in the office's country,
    /// `+33 6 12 34 56 00`), its beginning (`06 12 34`, `+3361*`), or any 4 digits of it or more
    /// (`3456`); or words in a reply, whatever their case and accents.
    pub q: Option<String>,
    /// Only threads with unread replies.
    pub unread: Option<bool>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// Page size: 50 when not given, 1 to 500.
    #[param(minimum = 1, maximum = 500)]
    #[schema(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
    /// The number `q` holds, as the engine read it (`+33612345600`, `+3361*`, `*3456`); `q` is
    /// then no words. Set by the engine, never taken from a request.
    #[serde(skip)]
    #[ts(skip)]
    #[param(ignore)]
    #[schema(ignore)]
    pub number: Option<String>,
}

/// One conversation in the inbox list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct ThreadSummary {
    pub thread: String,
    pub phone: Option<String>,
    /// Its latest reply.
    pub last: InboxMessage,
    pub replies: u32,
    pub unread: u32,
    /// Whether the number is on the opt-out list now.
    pub opted_out: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct ThreadPage {
    pub items: Vec<ThreadSummary>,
    pub next_cursor: Option<String>,
}

/// Conversations with at least one reply, the latest reply first.
pub fn list_threads(c: &impl Reads, f: &InboxFilter) -> Result<ThreadPage, ViewError> {
    let before = cursor::decode(THREADS, f.cursor.as_deref())?.unwrap_or(i64::MAX);
    let limit = page_limit(f.limit)?;
    let number = NumberTerm::of(f.number.as_deref());
    let text = if f.number.is_some() {
        None
    } else {
        words(f.q.as_deref())
    };
    let dialect = c.db().dialect();
    // Words are found in the text folded as the keywords are (case and accents, in every script),
    // by a function SQLite is given; PostgreSQL has none (NOTES.md), so it searches by number alone.
    let words = match dialect {
        Dialect::Sqlite => format!("(?7 IS NULL OR instr({FOLD_FUNCTION}(text), ?7) > 0)"),
        Dialect::Postgres if text.is_some() => return Err(ViewError::InvalidFilter(WORDS_ON_POSTGRES.to_owned())),
        Dialect::Postgres => "CAST(?7 AS TEXT) IS NULL".to_owned(),
    };
    snapshot(c.db(), |c| {
        let sql = format!(
            "SELECT t.last_id, t.n, t.unread,
                 EXISTS (SELECT 1 FROM opt_out o WHERE o.phone = i.phone AND o.removed_at IS NULL), {INBOX_COLUMNS}
             FROM (SELECT thread, max(id) AS last_id, count(*) AS n, count(*) FILTER (WHERE read_at IS NULL) AS unread
                   FROM inbox_message
                   WHERE {} AND {words}
                   GROUP BY thread) t
             JOIN inbox_message i ON i.id = t.last_id
             WHERE t.last_id < ?1 AND (?6 = 0 OR t.unread > 0)
             ORDER BY t.last_id DESC LIMIT ?2",
            NumberTerm::condition("thread", 3, dialect)
        );
        let mut items = c.query(
            &sql,
            &[
                &before,
                &(limit as i64 + 1),
                &number.exact,
                &number.prefix,
                &number.part,
                &f.unread.unwrap_or(false),
                &text,
            ],
            |r| {
                let last = inbox_at(r, 4)?;
                Ok(ThreadSummary {
                    thread: last.thread.clone(),
                    phone: last.phone.clone(),
                    replies: r.get(1)?,
                    unread: r.get(2)?,
                    opted_out: r.get(3)?,
                    last,
                })
            },
        )?;
        let next_cursor = if items.len() > limit {
            items.truncate(limit);
            items.last().map(|t| cursor::encode(THREADS, t.last.id))
        } else {
            None
        };
        Ok(ThreadPage { items, next_cursor })
    })
}

/// Why a search of the inbox by words is refused on PostgreSQL.
const WORDS_ON_POSTGRES: &str =
    "searching replies by words needs the store's fold function, which PostgreSQL does not have yet";

/// A message we sent to the thread's number, as the thread shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SentInThread {
    #[ts(type = "number")]
    pub id: i64,
    pub text: String,
    pub kind: MessageKind,
    #[ts(type = "number")]
    pub created_at_ms: i64,
    pub status: QueueStatus,
    /// What the network reported, when a receipt was applied.
    pub state: Option<DeliveryState>,
}

/// One line of a conversation: a reply, or a message we sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(tag = "direction", rename_all = "snake_case")]
pub enum ThreadItem {
    Received(Box<InboxMessage>),
    Sent(SentInThread),
}

impl ThreadItem {
    fn at(&self) -> i64 {
        match self {
            ThreadItem::Received(m) => m.received_at_ms,
            ThreadItem::Sent(m) => m.created_at_ms,
        }
    }
}

/// Which conversation, and which page of it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema, utoipa::IntoParams)]
#[serde(rename_all = "snake_case")]
#[into_params(parameter_in = Query)]
pub struct ThreadRequest {
    /// The thread: a number in E.164 (`+33612345678`), or a sender's address as received.
    pub thread: String,
    /// `next_cursor` of the previous page (older lines).
    #[serde(default)]
    pub cursor: Option<String>,
    /// Lines per page: 50 when not given, 1 to 500.
    #[param(minimum = 1, maximum = 500)]
    #[schema(minimum = 1, maximum = 500)]
    #[serde(default)]
    pub limit: Option<u32>,
}

/// A conversation: replies and sent messages, oldest first within the page; pages go back in time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct ThreadView {
    pub thread: String,
    pub phone: Option<String>,
    /// The number's current entry on the opt-out list.
    pub opt_out: Option<OptOutEntry>,
    pub items: Vec<ThreadItem>,
    /// Older lines: pass back as `cursor`.
    pub next_cursor: Option<String>,
}

/// A conversation, newest lines first in pages, each page returned oldest first. `None` when no
/// reply came from this thread.
pub fn thread(c: &impl Reads, req: &ThreadRequest) -> Result<Option<ThreadView>, ViewError> {
    let before = cursor::decode(THREAD, req.cursor.as_deref())?.unwrap_or(i64::MAX);
    let limit = page_limit(req.limit)?;
    let page = limit as i64 + 1;
    snapshot(c.db(), |c| {
        let phone: Option<Option<String>> = c.query_opt(
            "SELECT phone FROM inbox_message WHERE thread = ?1 ORDER BY id DESC LIMIT 1",
            &[&req.thread],
            |r| r.get(0),
        )?;
        let Some(phone) = phone else {
            return Ok(None);
        };
        let mut items: Vec<ThreadItem> = c.query(
            &format!(
                "SELECT {INBOX_COLUMNS} FROM inbox_message i WHERE i.thread = ?1 AND i.received_at < ?2
                 ORDER BY i.received_at DESC, i.id DESC LIMIT ?3"
            ),
            &[&req.thread, &before, &page],
            |r| Ok(ThreadItem::Received(Box::new(inbox_row(r)?))),
        )?;
        if let Some(p) = &phone {
            let sent = c.query(
                "SELECT m.id, m.body, m.kind, m.created_at, q.status, p.state
                     FROM message m JOIN queue q ON q.message_id = m.id
                     LEFT JOIN projection p ON p.message_id = m.id
                     WHERE m.destination = ?1 AND m.created_at < ?2
                     ORDER BY m.created_at DESC, m.id DESC LIMIT ?3",
                &[p, &before, &page],
                |r| {
                    Ok(ThreadItem::Sent(SentInThread {
                        id: r.get(0)?,
                        text: r.get(1)?,
                        kind: enum_at(r, 2)?,
                        created_at_ms: r.get(3)?,
                        status: enum_at(r, 4)?,
                        state: enum_opt(r, 5)?,
                    }))
                },
            )?;
            items.extend(sent);
        }
        items.sort_by_key(|i| std::cmp::Reverse(i.at()));
        let next_cursor = if items.len() > limit {
            items.truncate(limit);
            // Lines at the same millisecond as the oldest one shown go to the next page together,
            // unless the whole page is that millisecond.
            let oldest = items.last().map_or(0, ThreadItem::at);
            if items.iter().any(|i| i.at() > oldest) {
                items.retain(|i| i.at() > oldest);
                Some(cursor::encode(THREAD, oldest + 1))
            } else {
                Some(cursor::encode(THREAD, oldest))
            }
        } else {
            None
        };
        items.reverse();
        let opt_out = match &phone {
            Some(p) => current_entry(&c, p)?,
            None => None,
        };
        Ok(Some(ThreadView {
            thread: req.thread.clone(),
            phone,
            opt_out,
            items,
            next_cursor,
        }))
    })
}

/// Replies not read yet: in all, and in how many threads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct InboxCounts {
    pub unread: u32,
    pub threads_unread: u32,
}

pub fn inbox_counts(c: &impl Reads) -> Result<InboxCounts, ViewError> {
    Ok(c.db().query_row(
        "SELECT count(*), count(DISTINCT thread) FROM inbox_message WHERE read_at IS NULL",
        &[],
        |r| {
            Ok(InboxCounts {
                unread: r.get(0)?,
                threads_unread: r.get(1)?,
            })
        },
    )?)
}

/// One message from a handset, by id.
pub fn inbox_message(c: &impl Reads, id: i64) -> Result<Option<InboxMessage>, ViewError> {
    Ok(c.db().query_opt(
        &format!("SELECT {INBOX_COLUMNS} FROM inbox_message i WHERE i.id = ?1"),
        &[&id],
        inbox_row,
    )?)
}
