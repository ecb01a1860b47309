//! smsdesk's SMPP server (migration 30): its accounts (API keys with an SMPP password), the
//! messages handed in over it, and the outbox of receipts and replies owed to its clients.

use smsdesk_core::access::Scope;
use smsdesk_core::domain::{DeliveryState, MessageKind};

use super::api_key::ActiveKey;
use crate::{Reads, StoreError, WriteTx};

/// An SMPP account as its binds need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmppAccount {
    pub key: ActiveKey,
    /// The argon2 hash of its password.
    pub password_hash: String,
    pub tps: u32,
    pub window: u32,
    pub kinds: Vec<MessageKind>,
}

/// An account as lists show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmppAccountRow {
    pub id: i64,
    pub name: String,
    pub tps: u32,
    pub window: u32,
    pub kinds: Vec<MessageKind>,
    pub scopes: Vec<Scope>,
    pub created_at: i64,
    pub created_by: String,
    pub revoked_at: Option<i64>,
}

/// Makes key `id` an SMPP account (or gives it a new password). `Ok(false)`: a live account
/// already has its name.
pub fn set_account(
    tx: &mut WriteTx<'_>,
    id: i64,
    password_hash: &str,
    tps: u32,
    window: u32,
    kinds: &[MessageKind],
) -> Result<bool, StoreError> {
    let kinds: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
    let kinds = kinds.join(" ");
    // In a savepoint: PostgreSQL's refusal aborts the whole transaction otherwise.
    let done = tx.nested(|tx| {
        tx.db().execute(
            "UPDATE api_key SET smpp_password_hash = ?2, smpp_tps = ?3, smpp_window = ?4, smpp_kinds = ?5 WHERE id = ?1",
            &[&id, &password_hash, &tps, &window, &kinds],
        )
    });
    match done {
        Ok(_) => Ok(true),
        Err(e) if refused_by_constraint(&e) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Whether a write was refused by a constraint (SQLite's SQLITE_CONSTRAINT, PostgreSQL's class 23).
fn refused_by_constraint(e: &StoreError) -> bool {
    match e {
        StoreError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => e.code == rusqlite::ErrorCode::ConstraintViolation,
        StoreError::Postgres(e) => e.code().is_some_and(|c| c.code().starts_with("23")),
        _ => false,
    }
}

fn kinds(text: Option<String>) -> Vec<MessageKind> {
    text.unwrap_or_default()
        .split_whitespace()
        .filter_map(|k| k.parse().ok())
        .collect()
}

/// The live account `name` binds as, if there is one.
pub fn account(conn: &impl Reads, name: &str) -> Result<Option<SmppAccount>, StoreError> {
    conn.db().query_opt(
        "SELECT id, name, scopes, per_minute, per_day, destination_prefixes, countries, otp_countries,
                spend_day, spend_month, smpp_password_hash, smpp_tps, smpp_window, smpp_kinds
         FROM api_key WHERE name = ?1 AND smpp_password_hash IS NOT NULL AND revoked_at IS NULL",
        &[&name],
        |r| {
            Ok(SmppAccount {
                key: ActiveKey {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    scopes: Scope::split(&r.get::<String>(2)?),
                    limits: super::api_key::key_limits(r, 3)?,
                },
                password_hash: r.get(10)?,
                tps: r.get(11)?,
                window: r.get(12)?,
                kinds: kinds(r.get(13)?),
            })
        },
    )
}

/// Every SMPP account, newest first (revoked ones too).
pub fn accounts(conn: &impl Reads) -> Result<Vec<SmppAccountRow>, StoreError> {
    conn.db().query(
        "SELECT id, name, smpp_tps, smpp_window, smpp_kinds, scopes, created_at, created_by, revoked_at
         FROM api_key WHERE smpp_password_hash IS NOT NULL ORDER BY id DESC",
        &[],
        |r| {
            Ok(SmppAccountRow {
                id: r.get(0)?,
                name: r.get(1)?,
                tps: r.get(2)?,
                window: r.get(3)?,
                kinds: kinds(r.get(4)?),
                scopes: Scope::split(&r.get::<String>(5)?),
                created_at: r.get(6)?,
                created_by: r.get(7)?,
                revoked_at: r.get(8)?,
            })
        },
    )
}

/// The SMPP receipt of a final state: its `stat` and SMPP message_state. None: SMPP has no final
/// word for it.
pub fn stat_of(state: DeliveryState) -> Option<(&'static str, u8)> {
    Some(match state {
        DeliveryState::Delivered => ("DELIVRD", 2),
        DeliveryState::Expired => ("EXPIRED", 3),
        DeliveryState::Deleted => ("DELETED", 4),
        DeliveryState::Undeliverable => ("UNDELIV", 5),
        DeliveryState::Unknown | DeliveryState::Skipped => ("UNKNOWN", 7),
        DeliveryState::Rejected => ("REJECTD", 8),
        _ => return None,
    })
}

/// Whether a client that asked for `receipt` (registered_delivery's low bits) wants to hear of
/// `state`.
pub fn wants(receipt: u8, state: DeliveryState) -> bool {
    match receipt & 3 {
        1 => true,
        2 => state != DeliveryState::Delivered,
        3 => state == DeliveryState::Delivered,
        _ => false,
    }
}

/// Owes the client of an SMPP message its receipt, once its state is final (the first final state
/// only), in the caller's transaction. Nothing for a message not handed in over SMPP, or whose
/// client did not ask.
pub fn receipt_due(tx: &mut WriteTx<'_>, message_id: i64, receipt: u8, state: DeliveryState) -> Result<(), StoreError> {
    let Some((stat, message_state)) = stat_of(state).filter(|_| wants(receipt, state)) else {
        return Ok(());
    };
    let at = tx.now_ms();
    // A receipt already owed (the unique smpp_outbox_receipt) is left as it is.
    tx.db().execute(
        "INSERT INTO smpp_outbox (api_key_id, message_id, stat, message_state, created_at)
         SELECT api_key_id, message_id, ?2, ?3, ?4 FROM smpp_message WHERE message_id = ?1
         ON CONFLICT DO NOTHING",
        &[&message_id, &stat, &message_state, &at],
    )?;
    Ok(())
}

/// Owes a reply from a handset (inbox message `inbox_message_id`, from `phone`) to the SMPP
/// account whose message was the last one sent to that number, if it was an SMPP account's: the
/// reply answers what the handset got last. In the caller's transaction; says whether it did.
pub fn reply_due(tx: &mut WriteTx<'_>, inbox_message_id: i64, phone: &str) -> Result<bool, StoreError> {
    let at = tx.now_ms();
    let n = tx.db().execute(
        "INSERT INTO smpp_outbox (api_key_id, inbox_message_id, created_at)
         SELECT s.api_key_id, ?1, ?3
         FROM (SELECT id FROM message WHERE destination = ?2 ORDER BY id DESC LIMIT 1) last
         JOIN smpp_message s ON s.message_id = last.id
         JOIN api_key k ON k.id = s.api_key_id AND k.revoked_at IS NULL",
        &[&inbox_message_id, &phone, &at],
    )?;
    Ok(n > 0)
}

/// A receipt or reply owed to a client, with what its deliver_sm says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owed {
    pub id: i64,
    pub message_id: Option<i64>,
    pub stat: Option<String>,
    pub message_state: Option<u8>,
    pub created_at: i64,
    /// The handset's number (the message's destination, or the reply's sender).
    pub handset: String,
    /// The message's sender id, or the number the reply was sent to.
    pub ours: Option<String>,
    /// When the message was handed in (a receipt's `submit date`).
    pub submitted_at: Option<i64>,
    /// The message's text as stored (codes masked), or the reply's.
    pub text: String,
    pub segments: u32,
}

/// Up to `limit` of what account `api_key_id` is owed, oldest first, after `after_id`.
pub fn owed(conn: &impl Reads, api_key_id: i64, after_id: i64, limit: usize) -> Result<Vec<Owed>, StoreError> {
    conn.db().query(
        "SELECT o.id, o.message_id, o.stat, o.message_state, o.created_at,
                coalesce(m.destination, i.phone, i.handset, ''), coalesce(m.source_addr, i.recipient),
                m.created_at, coalesce(m.body, i.text, ''), coalesce(m.segments, i.parts, 1)
         FROM smpp_outbox o LEFT JOIN message m ON m.id = o.message_id
              LEFT JOIN inbox_message i ON i.id = o.inbox_message_id
         WHERE o.api_key_id = ?1 AND o.delivered_at IS NULL AND o.id > ?2
         ORDER BY o.id LIMIT ?3",
        &[&api_key_id, &after_id, &(limit as i64)],
        |r| {
            Ok(Owed {
                id: r.get(0)?,
                message_id: r.get(1)?,
                stat: r.get(2)?,
                message_state: r.get(3)?,
                created_at: r.get(4)?,
                handset: r.get(5)?,
                ours: r.get(6)?,
                submitted_at: r.get(7)?,
                text: r.get(8)?,
                segments: r.get(9)?,
            })
        },
    )
}

/// The client answered these deliver_sm: they are no longer owed.
pub fn delivered(tx: &mut WriteTx<'_>, ids: &[i64]) -> Result<(), StoreError> {
    let at = tx.now_ms();
    let db = tx.db();
    for id in ids {
        db.execute(
            "UPDATE smpp_outbox SET delivered_at = ?2, attempts = attempts + 1 WHERE id = ?1 AND delivered_at IS NULL",
            &[id, &at],
        )?;
    }
    Ok(())
}

/// How many receipts and replies wait for their client, for every account.
pub fn waiting(conn: &impl Reads) -> Result<i64, StoreError> {
    conn.db()
        .one("SELECT count(*) FROM smpp_outbox WHERE delivered_at IS NULL", &[])
}

/// The account whose message `message_id` is, and whether it was handed in over SMPP.
pub fn owner(conn: &impl Reads, message_id: i64) -> Result<Option<i64>, StoreError> {
    conn.db().query_opt(
        "SELECT api_key_id FROM smpp_message WHERE message_id = ?1",
        &[&message_id],
        |r| r.get(0),
    )
}
