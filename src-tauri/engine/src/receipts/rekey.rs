//! The stored id keys follow the id rules. Tries keep the key of their provider id, and receipts
//! waiting for their message keep the key of theirs, as the rules in force made them; when the
//! rules of a connection change (the operator learned how the SMSC writes ids), every key of that
//! connection is made again by the new rules, and receipts that now find their message are matched.
//! The rules each connection's keys were made by are kept in `connection_rules`.

use super::correlate;
use super::policy::ReceiptPolicy;
use crate::domain::IdSource;
use crate::store::tables::attempt::messages_with_provider_key as candidates;
use crate::store::tables::{attempt, connection_rules, logical_event};
use crate::store::{StoreError, WriteTx};

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
    let mut connections = connection_rules::connections(&*tx)?;
    if !connections.iter().any(|c| c == current) {
        connections.push(current.to_owned());
    }
    let mut done = Rekeyed::default();
    for connection in connections.iter().map(String::as_str) {
        let stored = connection_rules::id_rules(&*tx, connection)?;
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
        connection_rules::record(tx, connection, &rules)?;
    }
    Ok(done)
}

/// Makes every key of one connection again; returns (keys made, waiting receipts matched).
fn rekey(tx: &mut WriteTx<'_>, policy: &ReceiptPolicy, connection: &str) -> Result<(usize, usize), StoreError> {
    let tries = attempt::accepted_provider_ids(&*tx, connection)?;
    for (id, raw) in &tries {
        attempt::set_provider_key(tx, *id, &policy.response_key(raw))?;
    }
    let waiting = logical_event::unmatched_ids(&*tx, connection)?;
    let mut keys = Vec::with_capacity(waiting.len());
    for (event, raw, source) in &waiting {
        let key = policy.receipt_key(raw, source.unwrap_or(IdSource::Text));
        logical_event::set_receipted_key(tx, *event, &key)?;
        keys.push(key);
    }
    keys.sort();
    keys.dedup();
    let mut matched = 0;
    for key in keys {
        if let [message] = candidates(&*tx, connection, &key)?.as_slice() {
            let why = "the connection's id rules changed, and by the new ones this receipt's id is the message's.";
            matched += correlate::on_key(tx, connection, &key, *message, policy, why)?;
        }
    }
    Ok((tries.len() + waiting.len(), matched))
}
