//! The webhook tables: the outbox of status notifications (`webhook_delivery`) and every POST
//! made for them (`webhook_attempt`): putting a notification in, picking the due ones, settling
//! them after a try, and reading a message's notifications for its timeline.

use std::time::Duration;

use smsdesk_core::domain::{DeliveryState, QueueStatus, WebhookField};
use smsdesk_core::receipts::rules::Rule;
use smsdesk_core::redact::redact_url;
use smsdesk_core::webhook::{DeliveryAttemptView, DeliveryView};

use crate::db::{Dialect, Row};
use crate::pragmas::overwriting;
use crate::writer::WriteTx;
use crate::Reads;
use crate::{StoreError, Text};

/// Puts a notification in the outbox, due now, in the caller's transaction. (Queue status changes
/// are put there by a trigger on the queue table.)
pub fn enqueue(
    conn: &impl Reads,
    api_key_id: i64,
    message_id: i64,
    field: WebhookField,
    value: &str,
    at: i64,
) -> Result<(), StoreError> {
    conn.db().execute(
        "INSERT INTO webhook_delivery (api_key_id, message_id, field, value, created_at, next_attempt_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
        &[&api_key_id, &message_id, &Text(field), &value, &at],
    )?;
    Ok(())
}

/// Announces reply `inbox_message_id` (from `phone_or_address`) to every key that may read
/// everything and has a webhook URL, due now, in the caller's transaction. Returns how many.
pub fn enqueue_inbound(tx: &mut WriteTx<'_>, inbox_message_id: i64, from: &str) -> Result<usize, StoreError> {
    let at = tx.now_ms();
    // SQLite's instr(text, part) is PostgreSQL's strpos(text, part).
    let sql = match tx.db().dialect() {
        Dialect::Sqlite => {
            "INSERT INTO webhook_delivery (api_key_id, inbox_message_id, field, value, created_at, next_attempt_at)
             SELECT k.id, ?1, 'inbound', ?2, ?3, ?3 FROM api_key k
             WHERE k.webhook_url IS NOT NULL AND k.revoked_at IS NULL
               AND instr(' ' || k.scopes || ' ', ' read:all ') > 0"
        }
        Dialect::Postgres => {
            "INSERT INTO webhook_delivery (api_key_id, inbox_message_id, field, value, created_at, next_attempt_at)
             SELECT k.id, ?1, 'inbound', ?2, ?3, ?3 FROM api_key k
             WHERE k.webhook_url IS NOT NULL AND k.revoked_at IS NULL
               AND strpos(' ' || k.scopes || ' ', ' read:all ') > 0"
        }
    };
    tx.db().execute(sql, &[&inbox_message_id, &from, &at])
}

/// Every webhook notification of a message, oldest first, with their tries.
pub fn deliveries_for_message(conn: &impl Reads, message_id: i64) -> Result<Vec<DeliveryView>, StoreError> {
    let db = conn.db();
    let mut deliveries = db.query(
        "SELECT id, api_key_id, field, value, created_at, status, attempts, next_attempt_at, last_error,
                delivered_at
         FROM webhook_delivery WHERE message_id = ?1 ORDER BY id",
        &[&message_id],
        |r| {
            Ok(DeliveryView {
                id: r.get(0)?,
                api_key_id: r.get(1)?,
                field: r.get::<Text<_>>(2)?.0,
                value: r.get(3)?,
                created_at: r.get(4)?,
                status: r.get::<Text<_>>(5)?.0,
                attempts: r.get(6)?,
                next_attempt_at: r.get(7)?,
                last_error: r.get(8)?,
                delivered_at: r.get(9)?,
                tries: Vec::new(),
            })
        },
    )?;
    let tries = db.query(
        "SELECT a.delivery_id, a.id, a.at, a.url, a.http_status, a.error, a.duration_ms
         FROM webhook_attempt a JOIN webhook_delivery d ON d.id = a.delivery_id
         WHERE d.message_id = ?1 ORDER BY a.delivery_id, a.id",
        &[&message_id],
        |r| {
            Ok((
                r.get::<i64>(0)?,
                DeliveryAttemptView {
                    id: r.get(1)?,
                    at: r.get(2)?,
                    url: redact_url(&r.get::<String>(3)?).into_owned(),
                    http_status: r.get(4)?,
                    error: r.get(5)?,
                    duration_ms: r.get(6)?,
                },
            ))
        },
    )?;
    for (delivery_id, attempt) in tries {
        if let Some(d) = deliveries.iter_mut().find(|d| d.id == delivery_id) {
            d.tries.push(attempt);
        }
    }
    Ok(deliveries)
}

/// Where a due delivery goes, or why it cannot go anywhere.
#[derive(Debug, Clone)]
pub enum Target {
    Url {
        url: String,
        secret: String,
    },
    /// The key was revoked or its webhook URL removed after the change was enqueued.
    Unusable,
}

/// A delivery whose turn has come, with what its POST needs.
#[derive(Debug, Clone)]
pub struct Due {
    pub id: i64,
    pub api_key_id: i64,
    /// The message it is about; none for a reply from a handset (`inbound`).
    pub message_id: Option<i64>,
    /// The reply it announces, for `inbound`.
    pub inbox_message_id: Option<i64>,
    pub field: WebhookField,
    pub value: String,
    pub created_at: i64,
    pub attempts: u32,
    pub target: Target,
    pub client_ref: Option<String>,
    pub status: Option<QueueStatus>,
    pub state: Option<DeliveryState>,
    pub rule: Option<Rule>,
}

/// What one look at the table found.
#[derive(Debug, Default)]
pub struct Round {
    /// Due deliveries, the first of each message only, in due order.
    pub due: Vec<Due>,
    /// The earliest later time a first-of-its-message delivery is due, if any.
    pub next_at: Option<i64>,
}

/// A pending delivery is a message's first pending one, or waits: notifications of one message go
/// out in the order they were written.
const FIRST_OF_MESSAGE: &str = "NOT EXISTS (SELECT 1 FROM webhook_delivery e
     WHERE e.message_id = d.message_id AND e.api_key_id = d.api_key_id AND e.status = 'pending' AND e.id < d.id)";

/// Up to `limit` deliveries due at `now` (each the first pending one of its message), and when the
/// next one falls due.
pub fn due(conn: &impl Reads, now: i64, limit: u32) -> Result<Round, StoreError> {
    let db = conn.db();
    let sql = format!(
        "SELECT d.id, d.api_key_id, d.message_id, d.field, d.value, d.created_at, d.attempts,
                k.webhook_url, k.webhook_secret, k.revoked_at, m.client_ref, q.status, p.state, p.rule,
                d.inbox_message_id
         FROM webhook_delivery d
         JOIN api_key k ON k.id = d.api_key_id
         LEFT JOIN message m ON m.id = d.message_id
         LEFT JOIN queue q ON q.message_id = d.message_id
         LEFT JOIN projection p ON p.message_id = d.message_id
         WHERE d.status = 'pending' AND d.next_attempt_at <= ?1 AND {FIRST_OF_MESSAGE}
         ORDER BY d.next_attempt_at, d.id
         LIMIT ?2"
    );
    let due = db.query(&sql, &[&now, &limit], due_row)?;
    let next_sql = format!(
        "SELECT d.next_attempt_at FROM webhook_delivery d
         WHERE d.status = 'pending' AND d.next_attempt_at > ?1 AND {FIRST_OF_MESSAGE}
         ORDER BY d.next_attempt_at, d.id LIMIT 1"
    );
    let next_at = db.query_opt(&next_sql, &[&now], |r| r.get(0))?;
    Ok(Round { due, next_at })
}

/// A due delivery from a row of [`due`]'s statement.
fn due_row(r: &Row<'_, '_>) -> Result<Due, StoreError> {
    let url: Option<String> = r.get(7)?;
    let secret: Option<String> = r.get(8)?;
    let revoked: Option<i64> = r.get(9)?;
    let target = match (url, secret, revoked) {
        (Some(url), Some(secret), None) => Target::Url { url, secret },
        _ => Target::Unusable,
    };
    Ok(Due {
        id: r.get(0)?,
        api_key_id: r.get(1)?,
        message_id: r.get(2)?,
        field: r.get::<Text<_>>(3)?.0,
        value: r.get(4)?,
        created_at: r.get(5)?,
        attempts: r.get(6)?,
        target,
        client_ref: r.get(10)?,
        status: r.get::<Option<Text<_>>>(11)?.map(|t| t.0),
        state: r.get::<Option<Text<_>>>(12)?.map(|t| t.0),
        rule: r.get::<Option<Text<_>>>(13)?.map(|t| t.0),
        inbox_message_id: r.get(14)?,
    })
}

/// Fails every pending delivery of `api_key_id` if the key was revoked or has no webhook URL any
/// more (checked again here, inside the write). Returns how many, and why.
pub fn abandon_for_key(tx: &mut WriteTx<'_>, api_key_id: i64) -> Result<(usize, &'static str), StoreError> {
    let key: Option<(Option<i64>, Option<String>)> = tx.db().query_opt(
        "SELECT revoked_at, webhook_url FROM api_key WHERE id = ?1",
        &[&api_key_id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let why = match key {
        Some((Some(_), _)) => "not sent: the API key was revoked",
        Some((None, None)) => "not sent: the API key's webhook URL was removed",
        None => "not sent: the API key no longer exists",
        Some((None, Some(_))) => return Ok((0, "")),
    };
    let n = tx.db().execute(
        "UPDATE webhook_delivery SET status = 'failed', last_error = ?2
         WHERE api_key_id = ?1 AND status = 'pending'",
        &[&api_key_id, &why],
    )?;
    Ok((n, why))
}

/// One POST's outcome, to be recorded.
#[derive(Debug, Clone)]
pub struct Tried {
    pub delivery_id: i64,
    /// When the POST started.
    pub at: i64,
    /// Where it went; recorded without credentials.
    pub url: String,
    pub http_status: Option<u16>,
    /// Why it failed; `None` when it was answered with a 2xx.
    pub error: Option<String>,
    /// Trying again cannot help (for example the URL cannot be parsed).
    pub permanent: bool,
    pub duration_ms: i64,
}

/// How a delivery stands after a try was recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    Delivered,
    RetryAt(i64),
    GaveUp {
        tries: u32,
    },
    /// It was no longer pending (settled by someone else meanwhile); only the try was recorded.
    NotPending,
}

/// Records the try and settles the delivery: delivered, due again after a backoff, or failed.
pub fn record(
    tx: &mut WriteTx<'_>,
    tried: &Tried,
    max_attempts: u32,
    backoff: impl FnOnce(u32) -> Duration,
) -> Result<Settled, StoreError> {
    let now = tx.now_ms();
    let db = tx.db();
    db.execute(
        "INSERT INTO webhook_attempt (delivery_id, at, url, http_status, error, duration_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        &[
            &tried.delivery_id,
            &tried.at,
            &redact_url(&tried.url).into_owned(),
            &tried.http_status,
            &tried.error,
            &tried.duration_ms,
        ],
    )?;
    let attempts: Option<u32> = db.query_opt(
        "SELECT attempts FROM webhook_delivery WHERE id = ?1 AND status = 'pending'",
        &[&tried.delivery_id],
        |r| r.get(0),
    )?;
    let Some(attempts) = attempts else {
        return Ok(Settled::NotPending);
    };
    let tries = attempts.saturating_add(1);
    let Some(error) = &tried.error else {
        db.execute(
            "UPDATE webhook_delivery SET status = 'delivered', attempts = ?2, delivered_at = ?3, last_error = NULL
             WHERE id = ?1",
            &[&tried.delivery_id, &tries, &now],
        )?;
        return Ok(Settled::Delivered);
    };
    if tried.permanent || tries >= max_attempts {
        db.execute(
            "UPDATE webhook_delivery SET status = 'failed', attempts = ?2, last_error = ?3 WHERE id = ?1",
            &[&tried.delivery_id, &tries, error],
        )?;
        return Ok(Settled::GaveUp { tries });
    }
    let next = now.saturating_add(backoff(tries).as_millis() as i64);
    db.execute(
        "UPDATE webhook_delivery SET attempts = ?2, next_attempt_at = ?3, last_error = ?4 WHERE id = ?1",
        &[&tried.delivery_id, &tries, &next, error],
    )?;
    Ok(Settled::RetryAt(next))
}

/// Takes credentials out of the URLs of recorded tries (an earlier version recorded the URL as
/// given), overwriting the old text in the file. Returns how many were changed.
pub fn redact_attempt_urls(tx: &mut WriteTx<'_>) -> Result<usize, StoreError> {
    let db = tx.db();
    let candidates: Vec<(i64, String)> = db.query(
        "SELECT id, url FROM webhook_attempt WHERE url LIKE '%@%' OR url LIKE '%?%' OR url LIKE '%#%'",
        &[],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let changed: Vec<(i64, String)> = candidates
        .into_iter()
        .filter_map(|(id, url)| match redact_url(&url) {
            std::borrow::Cow::Owned(shown) => Some((id, shown)),
            std::borrow::Cow::Borrowed(_) => None,
        })
        .collect();
    overwriting(db, || {
        for (id, url) in &changed {
            db.execute("UPDATE webhook_attempt SET url = ?2 WHERE id = ?1", &[id, url])?;
        }
        Ok(changed.len())
    })
}
