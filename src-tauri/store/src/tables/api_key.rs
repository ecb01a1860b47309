//! The `api_key` table: integrations' keys, by the SHA-256 of the key (the key itself is never
//! stored), revoked in place and never deleted. `webhook_url` is the URL as it may be shown (no
//! credentials); `webhook_secret` is sealed by the engine, with the full URL when that one holds
//! credentials (an earlier version stored both in clear: the engine seals them at start).

use smsdesk_core::access::{KeyLimits, Scope};
use smsdesk_core::api_key::ApiKeyInfo;
use smsdesk_core::redact::redact_url;

use crate::db::{Dialect, Row};
use crate::pragmas::overwriting;
use crate::writer::WriteTx;
use crate::Reads;
use crate::StoreError;

/// A key to store: everything but the key itself.
pub struct NewKey<'a> {
    pub name: &'a str,
    /// The key's first characters, for lists.
    pub prefix: &'a str,
    pub hash: &'a str,
    pub created_by: &'a str,
    pub webhook_url: Option<&'a str>,
    pub webhook_secret: Option<&'a str>,
    pub scopes: &'a [Scope],
    pub limits: &'a KeyLimits,
}

/// A key that may be used, as a request presents it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActiveKey {
    pub id: i64,
    pub name: String,
    pub scopes: Vec<Scope>,
    pub limits: KeyLimits,
}

/// Stores a new key, created at the batch's time; returns its id.
pub fn insert(tx: &mut WriteTx<'_>, k: &NewKey<'_>) -> Result<i64, StoreError> {
    tx.db().one(
        "INSERT INTO api_key (name, prefix, hash, created_at, created_by, webhook_url, webhook_secret,
                              scopes, per_minute, per_day, destination_prefixes, countries, otp_countries,
                              spend_day, spend_month)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15) RETURNING id",
        &[
            &k.name,
            &k.prefix,
            &k.hash,
            &tx.now_ms(),
            &k.created_by,
            &k.webhook_url,
            &k.webhook_secret,
            &Scope::join(k.scopes),
            &k.limits.per_minute,
            &k.limits.per_day,
            &prefixes(k.limits),
            &joined(&k.limits.countries),
            &joined(&k.limits.otp_countries),
            &micros(&k.limits.spend_day),
            &micros(&k.limits.spend_month),
        ],
    )
}

/// When key `id` was revoked: `None` if there is no such key, `Some(None)` if it is not revoked.
pub fn revoked_at(tx: &WriteTx<'_>, id: i64) -> Result<Option<Option<i64>>, StoreError> {
    tx.db()
        .query_opt("SELECT revoked_at FROM api_key WHERE id = ?1", &[&id], |r| r.get(0))
}

/// Revokes key `id` at the batch's time.
pub fn revoke(tx: &mut WriteTx<'_>, id: i64, by: &str) -> Result<(), StoreError> {
    tx.db().execute(
        "UPDATE api_key SET revoked_at = ?2, revoked_by = ?3 WHERE id = ?1",
        &[&id, &tx.now_ms(), &by],
    )?;
    Ok(())
}

/// Every key, newest first.
pub fn list(conn: &impl Reads) -> Result<Vec<ApiKeyInfo>, StoreError> {
    conn.db().query(
        "SELECT id, name, prefix, created_at, created_by, revoked_at, webhook_url,
                scopes, per_minute, per_day, destination_prefixes,
                countries, otp_countries, spend_day, spend_month
         FROM api_key ORDER BY id DESC",
        &[],
        |r| {
            Ok(ApiKeyInfo {
                id: r.get(0)?,
                name: r.get(1)?,
                prefix: r.get(2)?,
                created_at_ms: r.get(3)?,
                created_by: r.get(4)?,
                revoked_at_ms: r.get(5)?,
                // Shown: a URL stored before credentials were taken out of it is shown without them.
                webhook_url: r.get::<Option<String>>(6)?.map(|u| redact_url(&u).into_owned()),
                scopes: Scope::split(&r.get::<String>(7)?),
                limits: key_limits(r, 8)?,
            })
        },
    )
}

/// The key with this hash, unless it is revoked.
pub fn active(conn: &impl Reads, hash: &str) -> Result<Option<ActiveKey>, StoreError> {
    conn.db().query_opt(
        "SELECT id, name, scopes, per_minute, per_day, destination_prefixes,
                countries, otp_countries, spend_day, spend_month
         FROM api_key WHERE hash = ?1 AND revoked_at IS NULL",
        &[&hash],
        |r| {
            Ok(ActiveKey {
                id: r.get(0)?,
                name: r.get(1)?,
                scopes: Scope::split(&r.get::<String>(2)?),
                limits: key_limits(r, 3)?,
            })
        },
    )
}

/// How many messages key `id` handed in since `since_ms`, and when the first of them was created
/// (ids follow creation times: migration 3 keeps count of when they did not).
pub fn sent_since(conn: &impl Reads, id: i64, since_ms: i64) -> Result<(u64, Option<i64>), StoreError> {
    let db = conn.db();
    // PostgreSQL has no INDEXED BY: it chooses the same indexes by itself.
    let sql = match db.dialect() {
        Dialect::Sqlite => {
            "SELECT count(*), min(created_at) FROM message INDEXED BY message_api_key
             WHERE api_key_id = ?1
               AND id >= coalesce((SELECT id FROM message INDEXED BY message_created
                                   WHERE created_at >= ?2 ORDER BY created_at LIMIT 1), 9223372036854775807)"
        }
        Dialect::Postgres => {
            "SELECT count(*), min(created_at) FROM message
             WHERE api_key_id = ?1
               AND id >= coalesce((SELECT id FROM message
                                   WHERE created_at >= ?2 ORDER BY created_at LIMIT 1), 9223372036854775807)"
        }
    };
    db.query_row(sql, &[&id, &since_ms], |r| Ok((r.get(0)?, r.get(1)?)))
}

fn prefixes(l: &KeyLimits) -> Option<String> {
    (!l.destination_prefixes.is_empty()).then(|| l.destination_prefixes.join(" "))
}

/// A list kept as words separated by spaces (NULL when empty).
fn joined(list: &[String]) -> Option<String> {
    (!list.is_empty()).then(|| list.join(" "))
}

/// An amount ("5.00", checked by the engine) kept in millionths.
fn micros(amount: &Option<String>) -> Option<i64> {
    amount
        .as_deref()
        .and_then(|a| smsdesk_core::config::Money::parse(a).ok())
        .map(|m| m.0)
}

/// The limits in the columns from `first` on: per_minute, per_day, destination_prefixes,
/// countries, otp_countries, spend_day, spend_month.
pub(super) fn key_limits(r: &Row<'_, '_>, first: usize) -> Result<KeyLimits, StoreError> {
    let words = |i: usize| -> Result<Vec<String>, StoreError> {
        Ok(r.get::<Option<String>>(first + i)?
            .map(|p| p.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default())
    };
    let amount = |i: usize| -> Result<Option<String>, StoreError> {
        Ok(r.get::<Option<i64>>(first + i)?
            .map(|m| smsdesk_core::config::Money(m).text()))
    };
    Ok(KeyLimits {
        per_minute: r.get(first)?,
        per_day: r.get(first + 1)?,
        destination_prefixes: words(2)?,
        countries: words(3)?,
        otp_countries: words(4)?,
        spend_day: amount(5)?,
        spend_month: amount(6)?,
    })
}

/// A key's webhook as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredWebhook {
    pub id: i64,
    pub url: String,
    pub secret: String,
}

/// Every key's webhook, revoked keys' too.
pub fn webhooks(conn: &impl Reads) -> Result<Vec<StoredWebhook>, StoreError> {
    conn.db().query(
        "SELECT id, webhook_url, webhook_secret FROM api_key
         WHERE webhook_url IS NOT NULL AND webhook_secret IS NOT NULL ORDER BY id",
        &[],
        |r| {
            Ok(StoredWebhook {
                id: r.get(0)?,
                url: r.get(1)?,
                secret: r.get(2)?,
            })
        },
    )
}

/// A key, not revoked, with a webhook: its name, scopes (as stored), and webhook as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyWebhook {
    pub name: String,
    pub scopes: String,
    pub url: String,
    pub secret: String,
}

/// The keys not revoked that have a webhook.
pub fn with_webhook(conn: &impl Reads) -> Result<Vec<KeyWebhook>, StoreError> {
    conn.db().query(
        "SELECT name, scopes, webhook_url, webhook_secret FROM api_key
         WHERE revoked_at IS NULL AND webhook_url IS NOT NULL AND webhook_secret IS NOT NULL ORDER BY id",
        &[],
        |r| {
            Ok(KeyWebhook {
                name: r.get(0)?,
                scopes: r.get(1)?,
                url: r.get(2)?,
                secret: r.get(3)?,
            })
        },
    )
}

/// Replaces key `id`'s webhook URL and secret, overwriting the old values in the file.
pub fn set_webhook(tx: &mut WriteTx<'_>, id: i64, url: &str, secret: &str) -> Result<(), StoreError> {
    let db = tx.db();
    overwriting(db, || {
        db.execute(
            "UPDATE api_key SET webhook_url = ?2, webhook_secret = ?3 WHERE id = ?1",
            &[&id, &url, &secret],
        )?;
        Ok(())
    })
}
