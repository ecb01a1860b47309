//! Access by number: everything held about one number, for a subject access request.

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use smsdesk_core::domain::{DeliveryState, MessageKind, QueueStatus};
use ts_rs::TS;

use crate::number_token::Hashed;
use crate::views::inbox::{opt_out_entry, OptOutEntry, OPT_OUT_COLUMNS};
use crate::views::{enum_at, enum_opt};
use crate::{Reads, StoreError};

/// Everything held about one number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SubjectRecord {
    /// The number asked about (E.164).
    pub number: String,
    /// Messages sent (or to be sent) to it, oldest first; those whose number was redacted are
    /// found by its hash.
    pub messages: Vec<SubjectMessage>,
    /// Replies from it, oldest first.
    pub replies: Vec<SubjectReply>,
    /// Its entries on the opt-out list (current and ended), oldest first.
    pub opt_outs: Vec<OptOutEntry>,
}

/// One message to the number, as held now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SubjectMessage {
    #[ts(type = "number")]
    pub id: i64,
    #[ts(type = "number")]
    pub created_at_ms: i64,
    pub kind: MessageKind,
    /// api, csv, compose or cli.
    pub channel: String,
    /// The text as held: None once removed (see `text_removed_at_ms`); a one-time code masked.
    pub text: Option<String>,
    #[ts(type = "number | null")]
    pub text_removed_at_ms: Option<i64>,
    /// Whether only the number's hash is held for it.
    pub number_removed: bool,
    pub status: QueueStatus,
    /// The delivery state receipts reported, if any.
    pub state: Option<DeliveryState>,
    /// When the SMSC accepted it, if it did.
    #[ts(type = "number | null")]
    pub accepted_at_ms: Option<i64>,
}

/// One reply from the number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SubjectReply {
    #[ts(type = "number")]
    pub id: i64,
    #[ts(type = "number")]
    pub received_at_ms: i64,
    /// None once removed.
    pub text: Option<String>,
    /// opt_out or opt_in, when the reply was a keyword.
    pub intent: Option<String>,
}

/// The statements of [`subject`], as SQLite runs them: `number_token(?1)` is the number's hash.
const MESSAGES: &str = "SELECT m.id, m.created_at, m.kind, m.channel, m.body, r.at, m.number_redaction IS NOT NULL,
        q.status, p.state, q.accepted_at
     FROM message m JOIN queue q ON q.message_id = m.id
     LEFT JOIN projection p ON p.message_id = m.id
     LEFT JOIN redaction r ON r.id = m.text_redaction
     WHERE m.destination IN (?1, number_token(?1)) ORDER BY m.id";
const REPLIES: &str = "SELECT id, received_at, text, redaction IS NOT NULL, intent FROM inbox_message
     WHERE handset IN (?1, ?2, number_token(?1)) OR phone IN (?1, number_token(?1)) ORDER BY id";
static OPT_OUTS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {OPT_OUT_COLUMNS} FROM opt_out o LEFT JOIN inbox_message i ON i.id = o.inbox_message_id
         WHERE o.phone IN (?1, number_token(?1)) ORDER BY o.id"
    )
});

/// What is held about `number` (E.164). The number's hash is SQLite's function there; on
/// PostgreSQL it is made in Rust and bound as the statements' last parameter.
pub fn subject(conn: &impl Reads, number: &str) -> Result<SubjectRecord, StoreError> {
    let bare = number.trim_start_matches('+');
    let db = conn.db();
    let hash = Hashed::lookup(db, number);
    let (sql, params) = hash.statement(MESSAGES, &[&number]);
    let messages = db.query(&sql, &params, |r| {
        let removed: Option<i64> = r.get(5)?;
        Ok(SubjectMessage {
            id: r.get(0)?,
            created_at_ms: r.get(1)?,
            kind: enum_at(r, 2)?,
            channel: r.get(3)?,
            text: if removed.is_some() { None } else { Some(r.get(4)?) },
            text_removed_at_ms: removed,
            number_removed: r.get(6)?,
            status: enum_at(r, 7)?,
            state: enum_opt(r, 8)?,
            accepted_at_ms: r.get(9)?,
        })
    })?;
    let (sql, params) = hash.statement(REPLIES, &[&number, &bare]);
    let replies = db.query(&sql, &params, |r| {
        let removed: bool = r.get(3)?;
        Ok(SubjectReply {
            id: r.get(0)?,
            received_at_ms: r.get(1)?,
            text: if removed { None } else { Some(r.get(2)?) },
            intent: r.get(4)?,
        })
    })?;
    let (sql, params) = hash.statement(&OPT_OUTS, &[&number]);
    let opt_outs = db.query(&sql, &params, opt_out_entry)?;
    Ok(SubjectRecord {
        number: number.to_owned(),
        messages,
        replies,
        opt_outs,
    })
}
