//! The answers kept for idempotency keys repeat the destinations: hashed with the messages'
//! (`HASHED_ANSWER` on SQLite; read, hashed in Rust and written back on PostgreSQL).

use crate::db::{Db, Param};
use crate::number_token::{self, NumberKey};
use crate::writer::WriteTx;
use crate::StoreError;

/// The destinations in an answer kept for an idempotency key (one message's, or a batch's), as
/// SQL on `response_json`: each replaced by its hash.
const HASHED_ANSWER: &str = "CASE WHEN json_extract(response_json, '$.destination') IS NOT NULL
        THEN json_set(response_json, '$.destination', number_token(json_extract(response_json, '$.destination')),
                      '$.destination_raw', number_token(json_extract(response_json, '$.destination')))
        WHEN json_type(response_json, '$.messages') = 'array'
        THEN json_set(response_json, '$.messages', (SELECT json_group_array(json_set(value,
                 '$.destination', number_token(json_extract(value, '$.destination')),
                 '$.destination_raw', number_token(json_extract(value, '$.destination'))))
             FROM json_each(response_json, '$.messages')))
        ELSE response_json END";

/// The answers kept for idempotency keys not redacted, recorded before `?1`, oldest first, at
/// most `?2`.
pub(crate) const IDEMPOTENCY_DUE: &str =
    "SELECT rowid FROM idempotency WHERE redaction IS NULL AND created_at < ?1 ORDER BY created_at LIMIT ?2";

/// Hashes the destinations in up to `limit` answers kept for idempotency keys before `before`. On
/// PostgreSQL, the answers are read, hashed in Rust and written back ([`idempotency_rewrite`]).
pub(crate) fn idempotency_before(tx: &mut WriteTx<'_>, before: i64, limit: u64, t: i64) -> Result<u64, StoreError> {
    let db = tx.db();
    let Db::Postgres(pg) = db else {
        let sql = format!(
            "UPDATE idempotency SET response_json = {HASHED_ANSWER}, redaction = ?3 WHERE rowid IN ({IDEMPOTENCY_DUE})"
        );
        return Ok(db.execute(&sql, &[&before, &(limit as i64), &t])? as u64);
    };
    let key = number_token::required(pg)?;
    let due = db.query(
        "SELECT scope, key, response_json FROM idempotency
         WHERE redaction IS NULL AND created_at < ?1 ORDER BY created_at LIMIT ?2",
        &[&before, &(limit as i64)],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    idempotency_rewrite(db, key, due, t)
}

/// Hashes the destinations in every answer kept for an idempotency key that names `bare` (the
/// number without its `+`). On PostgreSQL, as [`idempotency_before`] does.
pub(crate) fn idempotency_naming(tx: &mut WriteTx<'_>, bare: &str, t: i64) -> Result<u64, StoreError> {
    let db = tx.db();
    let Db::Postgres(pg) = db else {
        let sql = format!(
            "UPDATE idempotency SET response_json = {HASHED_ANSWER}, redaction = coalesce(redaction, ?2)
             WHERE instr(response_json, ?1) > 0"
        );
        return Ok(db.execute(&sql, &[&bare, &t])? as u64);
    };
    let key = number_token::required(pg)?;
    let naming = db.query(
        "SELECT scope, key, response_json FROM idempotency WHERE strpos(response_json, ?1) > 0",
        &[&bare],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    idempotency_rewrite(db, key, naming, t)
}

/// How many answers one statement of [`idempotency_rewrite`] writes back.
const REWRITE_BATCH: usize = 100;

/// Writes `answers` (scope, key, answer) back with their destinations hashed as [`HASHED_ANSWER`]
/// does, under tombstone `t` (a tombstone they had stays), a hundred to a statement. Returns how
/// many were written. PostgreSQL's: its JSON is rewritten in Rust (its keys then in their sorted
/// order, where SQLite's json_set keeps theirs).
fn idempotency_rewrite(
    db: Db<'_>,
    key: &NumberKey,
    answers: Vec<(String, String, String)>,
    t: i64,
) -> Result<u64, StoreError> {
    let mut done = 0;
    for batch in answers.chunks(REWRITE_BATCH) {
        let hashed = batch
            .iter()
            .map(|(scope, k, json)| {
                Ok((
                    scope,
                    k,
                    hashed_answer(key, json).map_err(|e| {
                        StoreError::Corrupt(format!("the answer kept for idempotency key {scope}/{k}: {e}"))
                    })?,
                ))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        let rows = (0..hashed.len())
            .map(|i| format!("(?{}, ?{}, ?{})", 3 * i + 2, 3 * i + 3, 3 * i + 4))
            .collect::<Vec<_>>()
            .join(", ");
        let mut params: Vec<&dyn Param> = vec![&t];
        for (scope, k, json) in &hashed {
            params.extend([*scope as &dyn Param, *k, json]);
        }
        done += db.execute(
            &format!(
                "UPDATE idempotency AS i SET response_json = v.json, redaction = coalesce(i.redaction, ?1)
                 FROM (VALUES {rows}) AS v(scope, key, json) WHERE i.scope = v.scope AND i.key = v.key"
            ),
            &params,
        )? as u64;
    }
    Ok(done)
}

/// [`HASHED_ANSWER`] in Rust: an answer's destination (and its raw form) replaced by the hash of the
/// destination, or each of its messages' when it is a batch's.
fn hashed_answer(key: &NumberKey, json: &str) -> Result<String, serde_json::Error> {
    use serde_json::Value as Json;
    let hash = |v: Option<&Json>| match v {
        None | Some(Json::Null) => Json::Null,
        Some(Json::String(s)) => Json::String(key.token(s)),
        Some(other) => Json::String(key.token(&other.to_string())),
    };
    let set = |o: &mut serde_json::Map<String, Json>| {
        let h = hash(o.get("destination"));
        o.insert("destination".into(), h.clone());
        o.insert("destination_raw".into(), h);
    };
    let mut answer: Json = serde_json::from_str(json)?;
    match answer.as_object_mut() {
        Some(o) if !o.get("destination").is_none_or(Json::is_null) => set(o),
        Some(o) => {
            if let Some(Json::Array(messages)) = o.get_mut("messages") {
                messages.iter_mut().filter_map(Json::as_object_mut).for_each(set);
            }
        }
        None => return Ok(json.to_owned()),
    }
    serde_json::to_string(&answer)
}
