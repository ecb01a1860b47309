//! The redaction of one row and of what hangs off it, to the shape `0027_redaction.sql` allows.

use rusqlite::{params, OptionalExtension};
use smsdesk_core::receipts::mismatch::{self, Fact, Verdict};

use crate::writer::{Entity, WriteTx};
use crate::StoreError;

/// The queue statuses of a message done with: its text is not needed to send it any more.
pub(super) const DONE: &str = "('accepted', 'failed', 'cancelled', 'expired', 'outcome_unknown')";

/// The TLVs a redacted receipt keeps (facts: ids, states, error codes, reference and part
/// numbers); every other one (a message_payload with the text, subaddresses, a vendor's) goes.
const KEPT_TLVS: &str = "('0x001e', '0x0423', '0x0425', '0x0427', '0x0420', '0x0204', '0x020c', '0x020e', '0x020f')";

/// Replaces message `id`'s text (and a code still sealed) by the tombstone `t`. False when it was
/// already gone.
pub(super) fn message_text(tx: &mut WriteTx<'_>, id: i64, t: i64) -> Result<bool, StoreError> {
    let n = tx
        .conn()
        .prepare_cached(
            "UPDATE message SET body = '', sealed = CASE WHEN sealed IS NULL THEN NULL ELSE '' END, text_redaction = ?2
             WHERE id = ?1 AND text_redaction IS NULL",
        )?
        .execute(params![id, t])?;
    if n > 0 {
        tx.changed(Entity::Message, id);
    }
    Ok(n > 0)
}

/// Replaces message `id`'s destination by its hash, under the tombstone `t`; a message from before
/// schema 26 keeps the country read from its number (the delivery report counts by it).
pub(super) fn message_number(tx: &mut WriteTx<'_>, id: i64, t: i64) -> Result<bool, StoreError> {
    let n = tx
        .conn()
        .prepare_cached(
            "UPDATE message SET destination = number_token(destination), destination_raw = number_token(destination),
                 country = coalesce(country, smsdesk_country(destination), ''), number_redaction = ?2
             WHERE id = ?1 AND number_redaction IS NULL",
        )?
        .execute(params![id, t])?;
    if n > 0 {
        tx.changed(Entity::Message, id);
    }
    Ok(n > 0)
}

/// Redacts every receipt correlated with message `id`: before its text or number goes, so their
/// comparison with the message is kept. Returns how many.
pub(super) fn message_receipts(tx: &mut WriteTx<'_>, id: i64, t: i64) -> Result<u64, StoreError> {
    let ids: Vec<i64> = tx
        .conn()
        .prepare_cached(
            "SELECT ro.receipt_id FROM logical_event le JOIN receipt_outcome ro ON ro.logical_event_id = le.id
             WHERE le.message_id = ?1",
        )?
        .query_map([id], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut n = 0;
    for r in ids {
        n += u64::from(receipt(tx, r, t)?);
    }
    Ok(n)
}

/// What comparing receipt `id`'s handset and echo with its message finds now (agrees, differs,
/// cannot tell): kept when they are removed, so the mismatch flag outlives them.
fn verdicts(tx: &WriteTx<'_>, id: i64) -> Result<(Option<bool>, Option<bool>), StoreError> {
    let message: Option<i64> = tx
        .conn()
        .prepare_cached(
            "SELECT le.message_id FROM receipt_outcome ro JOIN logical_event le ON le.id = ro.logical_event_id
             WHERE ro.receipt_id = ?1",
        )?
        .query_row([id], |r| r.get(0))
        .optional()?
        .flatten();
    let Some(m) = message
        .map(|m| crate::tables::message::message_facts(tx, m))
        .transpose()?
        .flatten()
    else {
        return Ok((None, None));
    };
    let r = tx
        .conn()
        .prepare_cached(
            "SELECT connection, source_addr, raw_text, done_ts, redaction IS NOT NULL, handset_fit, echo_fit
             FROM receipt WHERE id = ?1",
        )?
        .query_row([id], crate::tables::exception::read_receipt_facts)?;
    let verdict = |fact: Fact| {
        mismatch::compare(&r, &m, 0)
            .into_iter()
            .find(|c| c.fact == fact)
            .and_then(|c| match c.verdict {
                Verdict::Agrees => Some(true),
                Verdict::Differs => Some(false),
                Verdict::CannotTell => None,
            })
    };
    Ok((verdict(Fact::Destination), verdict(Fact::Text)))
}

/// Removes receipt `id`'s raw bytes, its echo of the text (what follows `text:`), its addresses
/// (kept as their hashes) and the TLVs that are not facts, keeping what comparing the handset and
/// the echo with the message found. Its parsed facts stay.
pub(super) fn receipt(tx: &mut WriteTx<'_>, id: i64, t: i64) -> Result<bool, StoreError> {
    let (handset_fit, echo_fit) = verdicts(tx, id)?;
    let sql = format!(
        "UPDATE receipt SET pdu = NULL, raw = x'',
             raw_text = CASE WHEN instr(lower(raw_text), 'text:') > 0
                             THEN substr(raw_text, 1, instr(lower(raw_text), 'text:') + 4) END,
             source_addr = number_token(source_addr), destination_addr = number_token(destination_addr),
             tlvs_json = (SELECT CASE WHEN count(*) > 0 THEN json_group_array(json(value)) END
                          FROM json_each(tlvs_json) WHERE json_extract(value, '$.tag') IN {KEPT_TLVS}),
             redaction = ?2, handset_fit = ?3, echo_fit = ?4
         WHERE id = ?1 AND redaction IS NULL"
    );
    let n = tx
        .conn()
        .prepare_cached(&sql)?
        .execute(params![id, t, handset_fit, echo_fit])?;
    if n > 0 {
        tx.changed(Entity::Receipt, id);
    }
    Ok(n > 0)
}

/// Removes reply `id`'s number and text, and those of the PDUs that carried it (and their raw
/// receipts). Returns the rows redacted (the reply, its parts, their receipts).
pub(super) fn reply(tx: &mut WriteTx<'_>, id: i64, t: i64) -> Result<u64, StoreError> {
    let n = tx
        .conn()
        .prepare_cached(
            "UPDATE inbox_message SET text = '', handset = number_token(handset), phone = number_token(phone),
                 thread = number_token(thread), redaction = ?2
             WHERE id = ?1 AND redaction IS NULL",
        )?
        .execute(params![id, t])? as u64;
    if n > 0 {
        tx.changed(Entity::Inbox, id);
    }
    let parts: Vec<i64> = tx
        .conn()
        .prepare_cached("SELECT id FROM inbound_message WHERE inbox_message_id = ?1 AND redaction IS NULL")?
        .query_map([id], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut done = n;
    for part in parts {
        done += inbound(tx, part, t)?;
    }
    Ok(done)
}

/// Removes the number and text of one PDU from a handset, and its raw receipt.
pub(super) fn inbound(tx: &mut WriteTx<'_>, id: i64, t: i64) -> Result<u64, StoreError> {
    let receipt_id: Option<i64> = tx
        .conn()
        .prepare_cached(
            "UPDATE inbound_message SET body = NULL, text = '', source_addr = number_token(source_addr), redaction = ?2
             WHERE id = ?1 AND redaction IS NULL RETURNING receipt_id",
        )?
        .query_row(params![id, t], |r| r.get(0))
        .map(Some)
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(e),
        })?;
    let Some(r) = receipt_id else { return Ok(0) };
    Ok(1 + u64::from(receipt(tx, r, t)?))
}

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
pub(super) const IDEMPOTENCY_DUE: &str =
    "SELECT rowid FROM idempotency WHERE redaction IS NULL AND created_at < ?1 ORDER BY created_at LIMIT ?2";

/// Hashes the destinations in up to `limit` answers kept for idempotency keys before `before`.
pub(super) fn idempotency_before(tx: &mut WriteTx<'_>, before: i64, limit: u64, t: i64) -> Result<u64, StoreError> {
    let sql = format!(
        "UPDATE idempotency SET response_json = {HASHED_ANSWER}, redaction = ?3 WHERE rowid IN ({IDEMPOTENCY_DUE})"
    );
    Ok(tx
        .conn()
        .prepare_cached(&sql)?
        .execute(params![before, limit as i64, t])? as u64)
}

/// Hashes the destinations in every answer kept for an idempotency key that names `bare` (the
/// number without its `+`).
pub(super) fn idempotency_naming(tx: &mut WriteTx<'_>, bare: &str, t: i64) -> Result<u64, StoreError> {
    let sql = format!(
        "UPDATE idempotency SET response_json = {HASHED_ANSWER}, redaction = coalesce(redaction, ?2)
         WHERE instr(response_json, ?1) > 0"
    );
    Ok(tx.conn().prepare_cached(&sql)?.execute(params![bare, t])? as u64)
}
