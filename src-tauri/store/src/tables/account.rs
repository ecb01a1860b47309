//! The `account` table: people who sign in from a browser, with their role and password hash.
//! Accounts are disabled, never deleted.

use smsdesk_core::access::{AccountInfo, Role};

use crate::db::Row;

use crate::writer::WriteTx;
use crate::{Reads, StoreError};

/// An account as sign-in reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credentials {
    pub id: i64,
    pub name: String,
    pub role: Role,
    pub password_hash: String,
    pub disabled: bool,
}

const INFO: &str = "SELECT id, name, role, created_at, created_by, disabled_at, last_sign_in FROM account";

fn info(r: &Row<'_, '_>) -> Result<AccountInfo, StoreError> {
    Ok(AccountInfo {
        id: r.get(0)?,
        name: r.get(1)?,
        role: role(&r.get::<String>(2)?),
        created_at_ms: r.get(3)?,
        created_by: r.get(4)?,
        disabled_at_ms: r.get(5)?,
        last_sign_in_ms: r.get(6)?,
    })
}

/// A stored role; the table's CHECK allows no other, and an unknown one grants least.
fn role(s: &str) -> Role {
    Role::parse(s).unwrap_or(Role::Viewer)
}

/// Stores a new account at the batch's time; `None` when the name is taken (names compare
/// without case).
pub fn insert(
    tx: &mut WriteTx<'_>,
    name: &str,
    role: Role,
    password_hash: &str,
    by: &str,
) -> Result<Option<i64>, StoreError> {
    let now = tx.now_ms();
    tx.db().query_opt(
        "INSERT INTO account (name, role, password_hash, created_at, created_by)
         VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (name) DO NOTHING RETURNING id",
        &[&name, &role.as_str(), &password_hash, &now, &by],
        |r| r.get(0),
    )
}

/// Every account, by name.
pub fn list(conn: &impl Reads) -> Result<Vec<AccountInfo>, StoreError> {
    conn.db()
        .query(&format!("{INFO} ORDER BY name COLLATE NOCASE"), &[], info)
}

/// Account `id`.
pub fn get(conn: &impl Reads, id: i64) -> Result<Option<AccountInfo>, StoreError> {
    conn.db().query_opt(&format!("{INFO} WHERE id = ?1"), &[&id], info)
}

/// The account named `name` (any case), with its password hash.
pub fn credentials(conn: &impl Reads, name: &str) -> Result<Option<Credentials>, StoreError> {
    conn.db().query_opt(
        "SELECT id, name, role, password_hash, disabled_at IS NOT NULL FROM account WHERE name = ?1",
        &[&name],
        |r| {
            Ok(Credentials {
                id: r.get(0)?,
                name: r.get(1)?,
                role: role(&r.get::<String>(2)?),
                password_hash: r.get(3)?,
                disabled: r.get(4)?,
            })
        },
    )
}

/// How many accounts exist, and how many of them are admins that may sign in.
pub fn counts(conn: &impl Reads) -> Result<(u64, u64), StoreError> {
    conn.db().query_row(
        "SELECT count(*), count(*) FILTER (WHERE role = 'admin' AND disabled_at IS NULL) FROM account",
        &[],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

pub fn set_role(tx: &mut WriteTx<'_>, id: i64, role: Role) -> Result<(), StoreError> {
    tx.db()
        .execute("UPDATE account SET role = ?2 WHERE id = ?1", &[&id, &role.as_str()])?;
    Ok(())
}

/// Disables account `id` at the batch's time, or enables it again.
pub fn set_disabled(tx: &mut WriteTx<'_>, id: i64, disabled: bool) -> Result<(), StoreError> {
    let at = disabled.then(|| tx.now_ms());
    tx.db()
        .execute("UPDATE account SET disabled_at = ?2 WHERE id = ?1", &[&id, &at])?;
    Ok(())
}

pub fn set_password(tx: &mut WriteTx<'_>, id: i64, password_hash: &str) -> Result<(), StoreError> {
    tx.db().execute(
        "UPDATE account SET password_hash = ?2 WHERE id = ?1",
        &[&id, &password_hash],
    )?;
    Ok(())
}

/// Notes a successful sign-in at the batch's time.
pub fn signed_in(tx: &mut WriteTx<'_>, id: i64) -> Result<(), StoreError> {
    let now = tx.now_ms();
    tx.db()
        .execute("UPDATE account SET last_sign_in = ?2 WHERE id = ?1", &[&id, &now])?;
    Ok(())
}
