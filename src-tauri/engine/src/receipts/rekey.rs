//! The stored id keys follow the id rules. Tries keep the key of their provider id, and receipts
//! waiting for their message keep the key of theirs, as the rules in force made them; when the
//! rules of a connection change (the operator learned how the SMSC writes ids), every key of that
//! connection is made again by the new rules, and receipts that now find their message are matched.
//! The rules each connection's keys were made by are kept in `connection_rules`.

use rusqlite::{params, OptionalExtension};

use super::correlate;
use super::ingest::candidates;
use super::policy::ReceiptPolicy;
use crate::domain::IdSource;
use crate::store::Text;
use crate::store::{Entity, StoreError, WriteTx};

/// What bringing the keys in line did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rekeyed {
    /// The connections whose keys were made again.
    pub connections: Vec<String>,
    /// Tries and waiting receipts whose key was made again.
    pub keys: usize,
    /// Waiting receipts that found their message.
    pub matched: usize,
}

/// Makes the keys by `policy`'s id rules where they were made by others, on `current` and every
/// connection whose rules were recorded before (the rules apply to every connection), and records
/// the rules. A connection seen for the first time records the rules in force.
pub fn apply(tx: &mut WriteTx<'_>, policy: &ReceiptPolicy, current: &str) -> Result<Rekeyed, StoreError> {
    let rules = policy.id_rules();
    let mut connections: Vec<String> = tx
        .conn()
        .prepare_cached("SELECT connection FROM connection_rules ORDER BY connection")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    if !connections.iter().any(|c| c == current) {
        connections.push(current.to_owned());
    }
    let mut done = Rekeyed::default();
    for connection in connections.iter().map(String::as_str) {
        let stored: Option<String> = tx
            .conn()
            .prepare_cached("SELECT id_rules FROM connection_rules WHERE connection = ?1")?
            .query_row([connection], |r| r.get(0))
            .optional()?;
        if stored.as_deref() == Some(rules.as_str()) {
            continue;
        }
        if let Some(before) = &stored {
            tracing::info!(connection, before, after = %rules, "id rules changed: making the stored keys again");
            let (keys, matched) = rekey(tx, policy, connection)?;
            done.connections.push(connection.to_owned());
            done.keys += keys;
            done.matched += matched;
        }
        let now = tx.now_ms();
        tx.conn()
            .prepare_cached(
                "INSERT INTO connection_rules (connection, id_rules, updated_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT (connection) DO UPDATE SET id_rules = excluded.id_rules, updated_at = excluded.updated_at",
            )?
            .execute(params![connection, rules, now])?;
    }
    Ok(done)
}

/// Makes every key of one connection again; returns (keys made, waiting receipts matched).
fn rekey(tx: &mut WriteTx<'_>, policy: &ReceiptPolicy, connection: &str) -> Result<(usize, usize), StoreError> {
    let tries: Vec<(i64, String)> = tx
        .conn()
        .prepare_cached(
            "SELECT id, provider_message_id FROM attempt
             WHERE connection = ?1 AND provider_message_id IS NOT NULL AND outcome = 'accepted'",
        )?
        .query_map([connection], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for (id, raw) in &tries {
        tx.conn()
            .prepare_cached("UPDATE attempt SET provider_id_norm = ?2 WHERE id = ?1")?
            .execute(params![id, policy.response_key(raw)])?;
        tx.changed(Entity::Attempt, *id);
    }
    let waiting: Vec<(i64, String, Option<IdSource>)> = tx
        .conn()
        .prepare_cached(
            "SELECT e.id, r.message_id_raw, r.id_source FROM logical_event e JOIN receipt r ON r.id = e.first_receipt_id
             WHERE e.connection = ?1 AND e.correlation IN ('pending', 'none') AND r.message_id_raw IS NOT NULL",
        )?
        .query_map([connection], |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, Option<Text<_>>>(2)?.map(|t| t.0))))?
        .collect::<Result<_, _>>()?;
    let mut keys = Vec::with_capacity(waiting.len());
    for (event, raw, source) in &waiting {
        let key = policy.receipt_key(raw, source.unwrap_or(IdSource::Text));
        tx.conn()
            .prepare_cached("UPDATE logical_event SET receipted_id_norm = ?2 WHERE id = ?1")?
            .execute(params![event, key])?;
        tx.changed(Entity::LogicalEvent, *event);
        keys.push(key);
    }
    keys.sort();
    keys.dedup();
    let mut matched = 0;
    for key in keys {
        if let [message] = candidates(tx.conn(), connection, &key)?.as_slice() {
            let why = "the connection's id rules changed, and by the new ones this receipt's id is the message's.";
            matched += correlate::on_key(tx, connection, &key, *message, policy, why)?;
        }
    }
    Ok((tries.len() + waiting.len(), matched))
}
