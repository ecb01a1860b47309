//! What the guardrails count (migration 29): one-time codes over a window by number, number prefix,
//! API key and country (each a seek in a partial index of the codes), what was spent since a time
//! (from the delivery report's sums), and the requests they refused or held.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::db::{Db, Dialect};
use crate::totals::HOUR_MS;
use crate::{Reads, StoreError, WriteTx};

/// How many codes were counted, and when the first of them was handed in.
pub type Counted = (u64, Option<i64>);

const BY_NUMBER: &str = "SELECT count(*), min(created_at) FROM message INDEXED BY message_otp_destination
     WHERE kind = 'otp' AND destination = ?1 AND created_at >= ?2";
const BY_PREFIX: &str = "SELECT count(*), min(created_at) FROM message INDEXED BY message_otp_destination
     WHERE kind = 'otp' AND destination >= ?1 AND destination < ?2 AND created_at >= ?3";
const BY_KEY: &str = "SELECT count(*), min(created_at) FROM message INDEXED BY message_otp_key
     WHERE kind = 'otp' AND api_key_id = ?1 AND created_at >= ?2";
const BY_COUNTRY: &str = "SELECT count(*) FROM message INDEXED BY message_otp_country
     WHERE kind = 'otp' AND country = ?1 AND created_at >= ?2 AND created_at < ?3";

/// `sql` as `db` takes it: PostgreSQL has no `INDEXED BY` (it finds the partial indexes of the
/// codes by itself), so there the clause is left out.
fn indexed(db: Db<'_>, sql: &'static str) -> Cow<'static, str> {
    match db.dialect() {
        Dialect::Sqlite => Cow::Borrowed(sql),
        Dialect::Postgres => {
            let mut out = String::with_capacity(sql.len());
            let mut rest = sql;
            while let Some(at) = rest.find(" INDEXED BY ") {
                out.push_str(&rest[..at]);
                let after = &rest[at + " INDEXED BY ".len()..];
                rest = after.find(char::is_whitespace).map_or("", |end| &after[end..]);
            }
            out.push_str(rest);
            Cow::Owned(out)
        }
    }
}

fn counted(db: Db<'_>, sql: &'static str, params: &[&dyn crate::db::Param]) -> Result<Counted, StoreError> {
    db.query_row(&indexed(db, sql), params, |r| Ok((r.get(0)?, r.get(1)?)))
}

/// How many one-time codes went to `destination` since `since_ms`, and when the first of them was
/// handed in.
pub fn otp_to_number(conn: &impl Reads, destination: &str, since_ms: i64) -> Result<Counted, StoreError> {
    counted(conn.db(), BY_NUMBER, &[&destination, &since_ms])
}

/// How many one-time codes went to numbers starting with `prefix` (E.164) since `since_ms`, and
/// when the first of them was handed in.
pub fn otp_to_prefix(conn: &impl Reads, prefix: &str, since_ms: i64) -> Result<Counted, StoreError> {
    // Every number with the prefix sorts between it and the prefix followed by ':' (after '9').
    let end = format!("{prefix}:");
    counted(conn.db(), BY_PREFIX, &[&prefix, &end, &since_ms])
}

/// How many one-time codes API key `key` handed in since `since_ms`, and when the first was.
pub fn otp_by_key(conn: &impl Reads, key: i64, since_ms: i64) -> Result<Counted, StoreError> {
    counted(conn.db(), BY_KEY, &[&key, &since_ms])
}

/// How many one-time codes went to `country` from `from_ms` to `to_ms` (exclusive).
pub fn otp_to_country(conn: &impl Reads, country: &str, from_ms: i64, to_ms: i64) -> Result<u64, StoreError> {
    let db = conn.db();
    db.one(&indexed(db, BY_COUNTRY), &[&country, &from_ms, &to_ms])
}

/// What the messages created from the hour of `since_ms` on cost (millionths), all of them or
/// those of `sender` (`key:<id>`), from the delivery report's sums.
pub fn spent_since(conn: &impl Reads, since_ms: i64, sender: Option<&str>) -> Result<i64, StoreError> {
    let hour = since_ms - since_ms.rem_euclid(HOUR_MS);
    let db = conn.db();
    let spent: Option<i64> = match sender {
        None => db.one("SELECT sum(cost) FROM report_hour WHERE hour >= ?1", &[&hour])?,
        Some(s) => db.one(
            "SELECT sum(cost) FROM report_hour WHERE hour >= ?1 AND sender = ?2",
            &[&hour, &s],
        )?,
    };
    Ok(spent.unwrap_or(0))
}

/// Why a guardrail refused or held a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GuardrailReason {
    /// Refused: a country the office or the key does not send to (or no codes to).
    CountryNotAllowed,
    /// Refused: a one-time code limit per number, prefix or key.
    VelocityLimit,
    /// Refused: a spend limit.
    SpendLimit,
    /// Held for a person: one-time codes to the country surged.
    UnusualVolume,
}

impl GuardrailReason {
    pub const fn as_str(self) -> &'static str {
        match self {
            GuardrailReason::CountryNotAllowed => "country_not_allowed",
            GuardrailReason::VelocityLimit => "velocity_limit",
            GuardrailReason::SpendLimit => "spend_limit",
            GuardrailReason::UnusualVolume => "unusual_volume",
        }
    }

    fn parse(text: &str) -> Option<GuardrailReason> {
        [
            GuardrailReason::CountryNotAllowed,
            GuardrailReason::VelocityLimit,
            GuardrailReason::SpendLimit,
            GuardrailReason::UnusualVolume,
        ]
        .into_iter()
        .find(|r| r.as_str() == text)
    }
}

/// Counts `n` requests refused or held for `reason`, to `country` ("" when unknown), asked by
/// `sender` (as the delivery report names who handed a message in), in the hour of now.
pub fn count(
    tx: &mut WriteTx<'_>,
    reason: GuardrailReason,
    country: &str,
    sender: &str,
    n: u64,
) -> Result<(), StoreError> {
    let now = tx.now_ms();
    let hour = now - now.rem_euclid(HOUR_MS);
    tx.db().execute(
        "INSERT INTO guardrail_count (hour, reason, country, sender, n) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (hour, reason, country, sender) DO UPDATE SET n = guardrail_count.n + excluded.n",
        &[&hour, &reason.as_str(), &country, &sender, &(n as i64)],
    )?;
    Ok(())
}

/// Requests refused or held for one reason, to one country, by one sender, over a period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct GuardrailCount {
    pub reason: GuardrailReason,
    /// Two letters, "" when the numbering data does not tell.
    pub country: String,
    /// `key:<id>` for an API key, `csv`, `cli`, or `person:<login>`.
    pub sender: String,
    /// An API key's name for `key:<id>` (when it still exists), else the sender itself.
    pub label: String,
    #[ts(type = "number")]
    pub n: i64,
}

/// The counts since the hour of `since_ms`, most first.
pub fn counts_since(conn: &impl Reads, since_ms: i64) -> Result<Vec<GuardrailCount>, StoreError> {
    let hour = since_ms - since_ms.rem_euclid(HOUR_MS);
    // A key's sender is `key:<id>`. The CASE keeps PostgreSQL from reading another sender's tail
    // as a number (an error there; 0 in SQLite), and keeps the key found by its id.
    let rows: Vec<(String, String, String, String, i64)> = conn.db().query(
        "SELECT g.reason, g.country, g.sender, coalesce(k.name, g.sender), sum(g.n) AS n
         FROM guardrail_count g
         LEFT JOIN api_key k
             ON k.id = CASE WHEN g.sender LIKE 'key:%' THEN CAST(substr(g.sender, 5) AS BIGINT) END
         WHERE g.hour >= ?1 GROUP BY g.reason, g.country, g.sender, k.name
         ORDER BY n DESC, g.reason, g.country, g.sender",
        &[&hour],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
    )?;
    let mut out = Vec::new();
    for (reason, country, sender, label, n) in rows {
        let reason = GuardrailReason::parse(&reason)
            .ok_or_else(|| StoreError::Corrupt(format!("guardrail_count: unknown reason {reason:?}")))?;
        out.push(GuardrailCount {
            reason,
            country,
            sender,
            label,
            n,
        });
    }
    Ok(out)
}

/// One line of the spend report: a day (its start in ms), who handed the messages in, the
/// connection, the country.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SpendLine {
    #[ts(type = "number")]
    pub day_ms: i64,
    pub sender: String,
    /// An API key's name for `key:<id>` (when it still exists), else the sender itself.
    pub label: String,
    /// "" while not tried yet.
    pub connection: String,
    pub country: String,
    #[ts(type = "number")]
    pub messages: i64,
    #[ts(type = "number")]
    pub parts: i64,
    /// Millionths of the office's currency.
    #[ts(type = "number")]
    pub cost: i64,
}

/// The spend from `from_ms` to `to_ms` (whole hours), by day (days starting `offset_minutes` after
/// midnight UTC), sender, connection and country; the days in order, the dearest first within.
pub fn spend_lines(
    conn: &impl Reads,
    from_ms: i64,
    to_ms: i64,
    offset_minutes: i32,
) -> Result<Vec<SpendLine>, StoreError> {
    let offset = i64::from(offset_minutes) * 60_000;
    conn.db().query(
        "SELECT (h.hour + ?3) - (h.hour + ?3) % 86400000 - ?3 AS day, h.sender, coalesce(k.name, h.sender),
                h.connection, h.country, sum(h.messages), sum(h.parts), sum(h.cost) AS cost
         FROM report_hour h
         LEFT JOIN api_key k
             ON k.id = CASE WHEN h.sender LIKE 'key:%' THEN CAST(substr(h.sender, 5) AS BIGINT) END
         WHERE h.hour >= ?1 AND h.hour < ?2
         GROUP BY day, h.sender, h.connection, h.country, k.name
         HAVING sum(h.messages) <> 0 OR sum(h.cost) <> 0
         ORDER BY day, cost DESC, h.sender, h.connection, h.country",
        &[&from_ms, &to_ms, &offset],
        |r| {
            Ok(SpendLine {
                day_ms: r.get(0)?,
                sender: r.get(1)?,
                label: r.get(2)?,
                connection: r.get(3)?,
                country: r.get(4)?,
                messages: r.get(5)?,
                parts: r.get(6)?,
                cost: r.get(7)?,
            })
        },
    )
}

/// The text as handed in of message `id`, when smart encoding replaced characters in it: the
/// replacements as stored (`sms::smart::to_stored`).
pub fn smart_replaced(conn: &impl Reads, id: i64) -> Result<Option<String>, StoreError> {
    conn.db().query_opt(
        "SELECT replaced FROM message_smart WHERE message_id = ?1",
        &[&id],
        |r| r.get(0),
    )
}

/// What one part of message `id` costs on each connection it was priced for.
pub fn prices_of(conn: &impl Reads, id: i64) -> Result<Vec<(String, i64)>, StoreError> {
    conn.db().query(
        "SELECT connection, price FROM message_price WHERE message_id = ?1 ORDER BY connection",
        &[&id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicI64, Ordering};
    use std::sync::Arc;

    use smsdesk_core::domain::{IntakeChannel, MessageKind};
    use smsdesk_core::message::NewMessage;
    use smsdesk_core::time::Clock;

    use super::*;
    use crate::Store;

    const T: i64 = 1_800_000_000_000;

    fn message(to: &str, kind: MessageKind, key: Option<i64>) -> NewMessage {
        let mut m = NewMessage::text(IntakeChannel::Api, to, "x", kind, "sandbox");
        m.country = smsdesk_core::country::country_of(to);
        m.api_key_id = key;
        m.prices = vec![("sandbox".into(), 50_000)];
        m
    }

    #[test]
    fn codes_are_counted_by_number_prefix_key_and_country_within_their_window_and_only_codes() {
        let dir = tempfile::tempdir().unwrap();
        let at = Arc::new(AtomicI64::new(T));
        let clock = {
            let at = at.clone();
            Clock::from_fn(move || at.load(Ordering::Relaxed))
        };
        let store = Store::open_with_clock(&dir.path().join("smsdesk.db"), clock).unwrap();
        let write = |m: NewMessage| {
            store
                .writer()
                .write_blocking(move |tx| crate::tables::message::insert(tx, &m))
                .unwrap()
        };
        for name in ["website", "crm"] {
            store
                .writer()
                .write_blocking(move |tx| {
                    let limits = smsdesk_core::access::KeyLimits::default();
                    let key = crate::tables::api_key::NewKey {
                        name,
                        prefix: name,
                        hash: name,
                        created_by: "test",
                        webhook_url: None,
                        webhook_secret: None,
                        scopes: &[],
                        limits: &limits,
                    };
                    crate::tables::api_key::insert(tx, &key)
                })
                .unwrap();
        }
        write(message("+33612345678", MessageKind::Otp, Some(1)));
        at.store(T + 60_000, Ordering::Relaxed);
        write(message("+33612345678", MessageKind::Otp, Some(2)));
        write(message("+33612345699", MessageKind::Otp, Some(1)));
        write(message("+33612345678", MessageKind::Transactional, Some(1)));
        write(message("+447400123456", MessageKind::Otp, Some(1)));
        let r = store.reader();
        let read =
            |f: &dyn Fn(&rusqlite::Connection) -> Result<Counted, StoreError>| r.read_blocking(|c| f(c)).unwrap();
        assert_eq!(read(&|c| otp_to_number(c, "+33612345678", T)), (2, Some(T)));
        assert_eq!(
            read(&|c| otp_to_number(c, "+33612345678", T + 1)),
            (1, Some(T + 60_000))
        );
        assert_eq!(read(&|c| otp_to_prefix(c, "+336123456", T)), (3, Some(T)));
        assert_eq!(read(&|c| otp_to_prefix(c, "+33612345", T)), (3, Some(T)));
        assert_eq!(read(&|c| otp_to_prefix(c, "+3361234567", T)), (2, Some(T)));
        assert_eq!(read(&|c| otp_by_key(c, 1, T)), (3, Some(T)));
        let fr = r.read_blocking(|c| otp_to_country(c, "FR", T, T + 60_001)).unwrap();
        assert_eq!(fr, 3);
        let fr_before = r.read_blocking(|c| otp_to_country(c, "FR", T, T + 60_000)).unwrap();
        assert_eq!(fr_before, 1, "the end is exclusive");
        // Every message priced at 0.05 a part, none sent yet: 5 × 0.05, 4 of them key 1's.
        assert_eq!(r.read_blocking(|c| spent_since(c, T, None)).unwrap(), 250_000);
        assert_eq!(r.read_blocking(|c| spent_since(c, T, Some("key:1"))).unwrap(), 200_000);
        assert_eq!(r.read_blocking(|c| spent_since(c, T + HOUR_MS, None)).unwrap(), 0);
        let lines = r
            .read_blocking(|c| spend_lines(c, T - HOUR_MS, T + HOUR_MS, 0))
            .unwrap();
        assert_eq!(
            lines
                .iter()
                .map(|l| (l.sender.as_str(), l.country.as_str(), l.messages, l.cost))
                .collect::<Vec<_>>(),
            [
                ("key:1", "FR", 3, 150_000),
                ("key:1", "GB", 1, 50_000),
                ("key:2", "FR", 1, 50_000)
            ]
        );
    }

    #[test]
    fn each_count_is_a_seek_in_a_partial_index_of_the_codes_never_a_scan() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("smsdesk.db");
        Store::open(&path).unwrap().shutdown();
        let c = rusqlite::Connection::open(&path).unwrap();
        for (sql, index) in [
            (BY_NUMBER, "message_otp_destination"),
            (BY_PREFIX, "message_otp_destination"),
            (BY_KEY, "message_otp_key"),
            (BY_COUNTRY, "message_otp_country"),
        ] {
            let n = sql.matches('?').count();
            let args: Vec<rusqlite::types::Value> = (0..n).map(|_| rusqlite::types::Value::Integer(0)).collect();
            let mut stmt = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let plan: Vec<String> = stmt
                .query_map(rusqlite::params_from_iter(args), |r| r.get::<_, String>(3))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert!(
                plan.iter()
                    .all(|p| p.starts_with("SEARCH message USING COVERING INDEX") && p.contains(index)),
                "{sql}: {plan:?}"
            );
        }
    }
}
