//! The `session` table: signed-in browsers, by the SHA-256 of their cookie. A session is revoked
//! in place, never deleted.

use smsdesk_core::access::{Role, SessionInfo};

use crate::writer::WriteTx;
use crate::{Reads, StoreError};

/// A new session: everything but the cookie itself.
pub struct NewSession<'a> {
    pub account_id: i64,
    pub token_hash: &'a str,
    pub expires_at_ms: i64,
    pub address: &'a str,
    pub user_agent: &'a str,
}

/// A live session as a request presents it, with its account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveSession {
    pub id: i64,
    pub account_id: i64,
    pub name: String,
    pub role: Role,
    pub last_seen_ms: i64,
    pub expires_at_ms: i64,
}

/// Stores a new session, created and seen at the batch's time; returns its id.
pub fn insert(tx: &mut WriteTx<'_>, s: &NewSession<'_>) -> Result<i64, StoreError> {
    let now = tx.now_ms();
    tx.db().one(
        "INSERT INTO session (account_id, token_hash, created_at, last_seen_at, expires_at, address, user_agent)
         VALUES (?1, ?2, ?3, ?3, ?4, ?5, ?6) RETURNING id",
        &[
            &s.account_id,
            &s.token_hash,
            &now,
            &s.expires_at_ms,
            &s.address,
            &s.user_agent,
        ],
    )
}

/// The session with this cookie hash, unless it is revoked or its account disabled (expiry is
/// the caller's to judge, with its clock and idle lifetime).
pub fn live(conn: &impl Reads, token_hash: &str) -> Result<Option<LiveSession>, StoreError> {
    conn.db().query_opt(
        "SELECT s.id, s.account_id, a.name, a.role, s.last_seen_at, s.expires_at
         FROM session s JOIN account a ON a.id = s.account_id
         WHERE s.token_hash = ?1 AND s.revoked_at IS NULL AND a.disabled_at IS NULL",
        &[&token_hash],
        |r| {
            Ok(LiveSession {
                id: r.get(0)?,
                account_id: r.get(1)?,
                name: r.get(2)?,
                role: Role::parse(&r.get::<String>(3)?).unwrap_or(Role::Viewer),
                last_seen_ms: r.get(4)?,
                expires_at_ms: r.get(5)?,
            })
        },
    )
}

/// Notes that session `id` was used at the batch's time.
pub fn seen(tx: &mut WriteTx<'_>, id: i64) -> Result<(), StoreError> {
    let now = tx.now_ms();
    tx.db().execute(
        "UPDATE session SET last_seen_at = ?2 WHERE id = ?1 AND last_seen_at < ?2",
        &[&id, &now],
    )?;
    Ok(())
}

/// Revokes session `id`; false when it was not live.
pub fn revoke(tx: &mut WriteTx<'_>, id: i64, by: &str) -> Result<bool, StoreError> {
    let now = tx.now_ms();
    let revoked = tx.db().execute(
        "UPDATE session SET revoked_at = ?2, revoked_by = ?3 WHERE id = ?1 AND revoked_at IS NULL",
        &[&id, &now, &by],
    )?;
    Ok(revoked == 1)
}

/// Revokes every live session of account `account_id` but `except`; returns how many.
pub fn revoke_all(tx: &mut WriteTx<'_>, account_id: i64, by: &str, except: Option<i64>) -> Result<usize, StoreError> {
    let now = tx.now_ms();
    tx.db().execute(
        "UPDATE session SET revoked_at = ?2, revoked_by = ?3
         WHERE account_id = ?1 AND revoked_at IS NULL AND id IS DISTINCT FROM ?4",
        &[&account_id, &now, &by, &except],
    )
}

/// Sessions not revoked whose absolute end is after `now_ms`, newest first (those idle too long
/// are the caller's to leave out).
pub fn list_live(conn: &impl Reads, now_ms: i64) -> Result<Vec<SessionInfo>, StoreError> {
    conn.db().query(
        "SELECT s.id, s.account_id, a.name, s.created_at, s.last_seen_at, s.expires_at, s.address, s.user_agent
         FROM session s JOIN account a ON a.id = s.account_id
         WHERE s.revoked_at IS NULL AND a.disabled_at IS NULL AND s.expires_at > ?1
         ORDER BY s.id DESC",
        &[&now_ms],
        |r| {
            Ok(SessionInfo {
                id: r.get(0)?,
                account_id: r.get(1)?,
                account_name: r.get(2)?,
                created_at_ms: r.get(3)?,
                last_seen_ms: r.get(4)?,
                expires_at_ms: r.get(5)?,
                address: r.get(6)?,
                user_agent: r.get(7)?,
            })
        },
    )
}
