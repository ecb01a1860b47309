//! Rows for the read models' tests on both stores, written with plain SQL (the tables' own
//! functions are not all written for PostgreSQL yet): only the columns a test needs.

use crate::writer::WriteTx;
use crate::StoreError;

/// A message handed in at `at` to `destination`, with its queue row in `status`; returns its id.
pub(crate) fn message(
    tx: &mut WriteTx<'_>,
    at: i64,
    destination: &str,
    body: &str,
    status: &str,
) -> Result<i64, StoreError> {
    let id: i64 = tx.db().one(
        "INSERT INTO message (created_at, channel, destination_raw, destination, body, encoding, segments, kind,
             priority, registered_delivery, connection, client_ref, submitted_by)
         VALUES (?1, 'api', ?2, ?2, ?3, 'gsm7', 1, 'transactional', 13, 1, 'smsc', ?4, 'key:1')
         RETURNING id",
        &[&at, &destination, &body, &format!("ref-{at}")],
    )?;
    let lease = (status == "sending").then_some("node");
    tx.db().execute(
        "INSERT INTO queue (message_id, status, priority, next_attempt_at, updated_at, lease_owner)
         VALUES (?1, ?2, 13, ?3, ?3, ?4)",
        &[&id, &status, &at, &lease],
    )?;
    Ok(id)
}

/// A try of message `id`, written at `at` and answered with `outcome`; returns its id.
pub(crate) fn attempt(
    tx: &mut WriteTx<'_>,
    message: i64,
    no: i64,
    at: i64,
    outcome: &str,
    provider_id: Option<&str>,
) -> Result<i64, StoreError> {
    tx.db().one(
        "INSERT INTO attempt (message_id, attempt_no, connection, created_at, sent_at, responded_at, command_status,
             provider_message_id, provider_id_norm, outcome, registered_delivery)
         VALUES (?1, ?2, 'smsc', ?3, ?3, ?6, 0, ?4, ?4, ?5, 1) RETURNING id",
        &[&message, &no, &at, &provider_id, &outcome, &(at + 5)],
    )
}

/// A receipt for `provider_id` received at `at`, with its logical event matched to `message` (or
/// left pending for none) and its outcome; returns (receipt id, logical event id).
pub(crate) fn receipt(
    tx: &mut WriteTx<'_>,
    message: Option<i64>,
    provider_id: &str,
    at: i64,
) -> Result<(i64, i64), StoreError> {
    let text = format!("id:{provider_id} sub:001 dlvrd:001 submit date:2401010000 done date:2401010001 stat:DELIVRD err:000 text:Hello");
    let receipt: i64 = tx.db().one(
        "INSERT INTO receipt (received_at, source, connection, source_addr, raw, raw_text, kind, parser_version,
             message_id_raw, stat, stat_raw, err, status_unreadable)
         VALUES (?1, 'smpp_deliver_sm', 'smsc', '+33612345678', ?2, ?3, 'receipt', 1, ?4, 'DELIVRD', 'DELIVRD', '000', 0)
         RETURNING id",
        &[&at, &text.as_bytes(), &text, &provider_id],
    )?;
    let correlation = if message.is_some() { "matched" } else { "pending" };
    let event: i64 = tx.db().one(
        "INSERT INTO logical_event (connection, dedup_key, key_source, receipted_id_norm, stat, receipt_kind,
             first_receipt_id, created_at, correlation, message_id, correlated_by)
         VALUES ('smsc', ?1, 'fingerprint', ?2, 'DELIVRD', 'receipt', ?3, ?4, ?5, ?6, ?7) RETURNING id",
        &[
            &format!("k{receipt}"),
            &provider_id,
            &receipt,
            &at,
            &correlation,
            &message,
            &message.map(|_| "system"),
        ],
    )?;
    tx.db().execute(
        "INSERT INTO receipt_outcome (receipt_id, logical_event_id, is_repeat, flags_json, processed_at)
         VALUES (?1, ?2, 0, '{\"mismatch\":true}', ?3)",
        &[&receipt, &event, &at],
    )?;
    Ok((receipt, event))
}

/// An audit entry; returns its id.
pub(crate) fn audit(
    tx: &mut WriteTx<'_>,
    at: i64,
    action: &str,
    subject: (&str, i64),
    note: &str,
) -> Result<i64, StoreError> {
    tx.db().one(
        "INSERT INTO audit (at, actor, action, subject_type, subject_id, note, details_json)
         VALUES (?1, 'Ana', ?2, ?3, ?4, ?5, '{\"why\":\"test\"}') RETURNING id",
        &[&at, &action, &subject.0, &subject.1, &note],
    )
}

/// Sets the running total `view_count` (`scope`, `value`) to `n`.
pub(crate) fn view_count(tx: &mut WriteTx<'_>, scope: &str, value: &str, n: i64) -> Result<(), StoreError> {
    tx.db().execute(
        "INSERT INTO view_count (scope, value, n) VALUES (?1, ?2, ?3)
         ON CONFLICT (scope, value) DO UPDATE SET n = excluded.n",
        &[&scope, &value, &n],
    )?;
    Ok(())
}
