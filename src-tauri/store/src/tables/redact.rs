//! The redaction of one row and of what hangs off it, to the shape `0027_redaction.sql` allows
//! (`crate::privacy` runs them: retention, erasure), and the tombstones' types.

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use smsdesk_core::country::country_of;
use smsdesk_core::receipts::mismatch::{self, Fact, Verdict};
use ts_rs::TS;

use crate::db::{Db, Dialect};
use crate::number_token::{self, hash_opt};
use crate::writer::{Entity, WriteTx};
use crate::StoreError;

/// The rule that removed content, as the tombstone names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RedactionRule {
    /// `[retention] text_days` (per kind).
    TextDays,
    /// `[retention] destination_days`.
    DestinationDays,
    /// `[retention] replies_days`.
    RepliesDays,
    /// `[retention] audit_days`.
    AuditDays,
    /// A person erased a number.
    Erasure,
    /// A receipt echoed a one-time code's text (removed as it was tied to the code).
    CodeEcho,
}

impl RedactionRule {
    pub fn as_str(self) -> &'static str {
        match self {
            RedactionRule::TextDays => "text_days",
            RedactionRule::DestinationDays => "destination_days",
            RedactionRule::RepliesDays => "replies_days",
            RedactionRule::AuditDays => "audit_days",
            RedactionRule::Erasure => "erasure",
            RedactionRule::CodeEcho => "code_echo",
        }
    }
}

/// What a run redacted, by what it held. Never a number or a text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct Redacted {
    /// Message texts replaced.
    pub texts: u64,
    /// Destinations replaced by their hash: messages', and those in the answers kept for their
    /// idempotency keys.
    pub numbers: u64,
    /// Receipts whose raw bytes, addresses and echo of the text were removed.
    pub receipts: u64,
    /// Replies (and the PDUs that carried them) whose number and text were removed.
    pub replies: u64,
    /// Opt-out entries kept as their number's hash only.
    pub opt_outs: u64,
    /// Audit lines whose note and details were removed or cleared of the number.
    pub audit: u64,
    /// Messages still waiting that were cancelled because their number was erased.
    pub cancelled: u64,
}

impl Redacted {
    pub fn total(&self) -> u64 {
        self.texts + self.numbers + self.receipts + self.replies + self.opt_outs + self.audit + self.cancelled
    }

    pub fn add(&mut self, o: &Redacted) {
        self.texts += o.texts;
        self.numbers += o.numbers;
        self.receipts += o.receipts;
        self.replies += o.replies;
        self.opt_outs += o.opt_outs;
        self.audit += o.audit;
        self.cancelled += o.cancelled;
    }
}

/// One tombstone, as the timeline shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct Tombstone {
    pub id: i64,
    /// When the content was removed (ms since the epoch).
    pub at: i64,
    pub rule: RedactionRule,
    /// Who removed it: `retention`, or the person who erased the number.
    pub actor: String,
    /// What the run removed in all, once it ended.
    pub summary: Option<Redacted>,
}

/// Removes the content of the receipts of logical event `event` (only receipt `only` when given) as
/// they are tied to their message, when that message's content is not to be kept: a one-time
/// code sealed at intake (the receipt's echo would keep the code), or a message whose text or
/// number was redacted already (a late receipt). In the transaction that ties them, so none of
/// it reaches a file.
pub(crate) fn on_arrival(tx: &mut WriteTx<'_>, event: i64, only: Option<i64>) -> Result<(), StoreError> {
    let due: Vec<(i64, i64, bool)> = tx.db().query(
        "SELECT ro.receipt_id, coalesce(m.text_redaction, m.number_redaction,
                    (SELECT min(id) FROM redaction WHERE rule = 'code_echo')),
                m.number_redaction IS NOT NULL
         FROM logical_event le JOIN message m ON m.id = le.message_id
         JOIN receipt_outcome ro ON ro.logical_event_id = le.id
         WHERE le.id = ?1 AND (CAST(?2 AS BIGINT) IS NULL OR ro.receipt_id = ?2)
           AND (m.sealed IS NOT NULL OR m.text_redaction IS NOT NULL OR m.number_redaction IS NOT NULL)",
        &[&event, &only],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    for (id, t, number_gone) in due {
        receipt_content(tx, id, t)?;
        if number_gone {
            receipt_addresses(tx, id, t)?;
        }
    }
    Ok(())
}

/// The queue statuses of a message done with: its text is not needed to send it any more.
pub(crate) const DONE: &str = "('accepted', 'failed', 'cancelled', 'expired', 'outcome_unknown')";

/// The TLVs a redacted receipt keeps (facts: ids, states, error codes, reference and part
/// numbers); every other one (a message_payload with the text, subaddresses, a vendor's) goes.
const KEPT_TLVS: &str = "('0x001e', '0x0423', '0x0425', '0x0427', '0x0420', '0x0204', '0x020c', '0x020e', '0x020f')";

/// Replaces message `id`'s text (and a code still sealed) by the tombstone `t`. False when it was
/// already gone.
pub(crate) fn message_text(tx: &mut WriteTx<'_>, id: i64, t: i64) -> Result<bool, StoreError> {
    let n = tx.db().execute(
        "UPDATE message SET body = '', sealed = CASE WHEN sealed IS NULL THEN NULL ELSE '' END, text_redaction = ?2
         WHERE id = ?1 AND text_redaction IS NULL",
        &[&id, &t],
    )?;
    if n > 0 {
        tx.changed(Entity::Message, id);
    }
    Ok(n > 0)
}

/// Replaces message `id`'s destination by its hash, under the tombstone `t`; a message from before
/// schema 26 keeps the country read from its number (the delivery report counts by it).
/// SQLite hashes with its functions; PostgreSQL reads the number and binds what Rust makes of it
/// ([`crate::number_token`], [`country_of`]).
pub(crate) fn message_number(tx: &mut WriteTx<'_>, id: i64, t: i64) -> Result<bool, StoreError> {
    let db = tx.db();
    let n = match db {
        Db::Sqlite(_) => db.execute(
            "UPDATE message SET destination = number_token(destination), destination_raw = number_token(destination),
                 country = coalesce(country, smsdesk_country(destination), ''), number_redaction = ?2
             WHERE id = ?1 AND number_redaction IS NULL",
            &[&id, &t],
        )?,
        Db::Postgres(pg) => {
            let key = number_token::required(pg)?;
            let number: Option<String> = db.query_opt(
                "SELECT destination FROM message WHERE id = ?1 AND number_redaction IS NULL",
                &[&id],
                |r| r.get(0),
            )?;
            match number {
                None => 0,
                Some(d) => db.execute(
                    "UPDATE message SET destination = ?3, destination_raw = ?3,
                         country = coalesce(country, ?4, ''), number_redaction = ?2
                     WHERE id = ?1 AND number_redaction IS NULL",
                    &[&id, &t, &key.token(&d), &country_of(&d)],
                )?,
            }
        }
    };
    if n > 0 {
        tx.changed(Entity::Message, id);
    }
    Ok(n > 0)
}

/// Redacts every receipt correlated with message `id`: their content (with its text) and, with
/// `addresses`, the numbers they name (with its number); before the message's own, so their
/// comparison with it is kept. Returns how many receipts lost their content.
pub(crate) fn message_receipts(tx: &mut WriteTx<'_>, id: i64, t: i64, addresses: bool) -> Result<u64, StoreError> {
    let ids: Vec<i64> = tx.db().query(
        "SELECT ro.receipt_id FROM logical_event le JOIN receipt_outcome ro ON ro.logical_event_id = le.id
         WHERE le.message_id = ?1",
        &[&id],
        |r| r.get(0),
    )?;
    let mut n = 0;
    for r in ids {
        n += u64::from(receipt_content(tx, r, t)?);
        if addresses {
            receipt_addresses(tx, r, t)?;
        }
    }
    Ok(n)
}

/// What comparing receipt `id`'s handset and echo with its message finds now (agrees, differs,
/// cannot tell): kept when they are removed, so the mismatch flag outlives them.
fn verdicts(tx: &WriteTx<'_>, id: i64) -> Result<(Option<bool>, Option<bool>), StoreError> {
    let message: Option<i64> = tx
        .db()
        .query_opt(
            "SELECT le.message_id FROM receipt_outcome ro JOIN logical_event le ON le.id = ro.logical_event_id
             WHERE ro.receipt_id = ?1",
            &[&id],
            |r| r.get(0),
        )?
        .flatten();
    let Some(m) = message
        .map(|m| crate::tables::message::message_facts(tx, m))
        .transpose()?
        .flatten()
    else {
        return Ok((None, None));
    };
    let r = tx.db().query_row(
        "SELECT connection, source_addr, raw_text, done_ts, redaction IS NOT NULL, handset_fit, echo_fit
         FROM receipt WHERE id = ?1",
        &[&id],
        crate::tables::exception::read_receipt_facts,
    )?;
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

/// Removes everything personal of receipt `id`: its content and its addresses.
pub(crate) fn receipt(tx: &mut WriteTx<'_>, id: i64, t: i64) -> Result<bool, StoreError> {
    let removed = receipt_content(tx, id, t)?;
    receipt_addresses(tx, id, t)?;
    Ok(removed)
}

/// Replaces the numbers receipt `id` names (handset, recipient) by their hashes (on PostgreSQL read,
/// hashed in Rust and written back; its ILIKE is SQLite's LIKE, which ignores ASCII case).
fn receipt_addresses(tx: &mut WriteTx<'_>, id: i64, t: i64) -> Result<(), StoreError> {
    let db = tx.db();
    let Db::Postgres(pg) = db else {
        db.execute(
            "UPDATE receipt SET source_addr = number_token(source_addr), destination_addr = number_token(destination_addr),
                 redaction = coalesce(redaction, ?2)
             WHERE id = ?1 AND (coalesce(source_addr, 'h:') NOT LIKE 'h:%' OR coalesce(destination_addr, 'h:') NOT LIKE 'h:%')",
            &[&id, &t],
        )?;
        return Ok(());
    };
    let key = number_token::required(pg)?;
    let addresses: Option<(Option<String>, Option<String>)> = db.query_opt(
        "SELECT source_addr, destination_addr FROM receipt
         WHERE id = ?1 AND (coalesce(source_addr, 'h:') NOT ILIKE 'h:%' OR coalesce(destination_addr, 'h:') NOT ILIKE 'h:%')",
        &[&id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    if let Some((source, destination)) = addresses {
        db.execute(
            "UPDATE receipt SET source_addr = ?3, destination_addr = ?4, redaction = coalesce(redaction, ?2) WHERE id = ?1",
            &[
                &id,
                &t,
                &hash_opt(key, source.as_deref()),
                &hash_opt(key, destination.as_deref()),
            ],
        )?;
    }
    Ok(())
}

/// The statement of [`receipt_content`].
static RECEIPT_CONTENT: LazyLock<String> = LazyLock::new(|| {
    format!(
        "UPDATE receipt SET pdu = NULL, raw = x'',
             raw_text = CASE WHEN instr(lower(raw_text), 'text:') > 0
                             THEN substr(raw_text, 1, instr(lower(raw_text), 'text:') + 4) END,
             tlvs_json = (SELECT CASE WHEN count(*) > 0 THEN json_group_array(json(value)) END
                          FROM json_each(tlvs_json) WHERE json_extract(value, '$.tag') IN {KEPT_TLVS}),
             redaction = ?2, handset_fit = ?3, echo_fit = ?4
         WHERE id = ?1 AND redaction IS NULL"
    )
});

/// [`RECEIPT_CONTENT`] in PostgreSQL's words: an empty bytea, `strpos` for `instr`, and the TLVs
/// kept with the json functions (each kept TLV as it was written, in its order; the list is
/// joined with ", " where SQLite joins it with ",").
static RECEIPT_CONTENT_PG: LazyLock<String> = LazyLock::new(|| {
    format!(
        "UPDATE receipt SET pdu = NULL, raw = '\\x'::bytea,
             raw_text = CASE WHEN strpos(lower(raw_text), 'text:') > 0
                             THEN substr(raw_text, 1, strpos(lower(raw_text), 'text:') + 4) END,
             tlvs_json = (SELECT CASE WHEN count(*) > 0 THEN json_agg(t.value ORDER BY t.n)::text END
                          FROM json_array_elements(tlvs_json::json) WITH ORDINALITY AS t(value, n)
                          WHERE t.value ->> 'tag' IN {KEPT_TLVS}),
             redaction = ?2, handset_fit = ?3, echo_fit = ?4
         WHERE id = ?1 AND redaction IS NULL"
    )
});

/// Removes receipt `id`'s raw bytes (which carry its addresses too), its echo of the text (what
/// follows `text:`) and the TLVs that are not facts, keeping what comparing the handset and the
/// echo with the message found. Its parsed facts stay, and its addresses (see
/// [`receipt_addresses`]).
fn receipt_content(tx: &mut WriteTx<'_>, id: i64, t: i64) -> Result<bool, StoreError> {
    let (handset_fit, echo_fit) = verdicts(tx, id)?;
    let sql = match tx.db().dialect() {
        Dialect::Sqlite => &*RECEIPT_CONTENT,
        Dialect::Postgres => &*RECEIPT_CONTENT_PG,
    };
    let n = tx.db().execute(sql, &[&id, &t, &handset_fit, &echo_fit])?;
    if n > 0 {
        tx.changed(Entity::Receipt, id);
    }
    Ok(n > 0)
}

/// Removes reply `id`'s number and text, and those of the PDUs that carried it (and their raw
/// receipts). Returns the rows redacted (the reply, its parts, their receipts).
pub(crate) fn reply(tx: &mut WriteTx<'_>, id: i64, t: i64) -> Result<u64, StoreError> {
    let db = tx.db();
    let n = match db {
        Db::Sqlite(_) => db.execute(
            "UPDATE inbox_message SET text = '', handset = number_token(handset), phone = number_token(phone),
                 thread = number_token(thread), redaction = ?2
             WHERE id = ?1 AND redaction IS NULL",
            &[&id, &t],
        )?,
        Db::Postgres(pg) => {
            let key = number_token::required(pg)?;
            let numbers: Option<[Option<String>; 3]> = db.query_opt(
                "SELECT handset, phone, thread FROM inbox_message WHERE id = ?1 AND redaction IS NULL",
                &[&id],
                |r| Ok([r.get(0)?, r.get(1)?, r.get(2)?]),
            )?;
            match numbers {
                None => 0,
                Some([handset, phone, thread]) => db.execute(
                    "UPDATE inbox_message SET text = '', handset = ?3, phone = ?4, thread = ?5, redaction = ?2
                     WHERE id = ?1 AND redaction IS NULL",
                    &[
                        &id,
                        &t,
                        &hash_opt(key, handset.as_deref()),
                        &hash_opt(key, phone.as_deref()),
                        &hash_opt(key, thread.as_deref()),
                    ],
                )?,
            }
        }
    } as u64;
    if n > 0 {
        tx.changed(Entity::Inbox, id);
    }
    let parts: Vec<i64> = db.query(
        "SELECT id FROM inbound_message WHERE inbox_message_id = ?1 AND redaction IS NULL",
        &[&id],
        |r| r.get(0),
    )?;
    let mut done = n;
    for part in parts {
        done += inbound(tx, part, t)?;
    }
    Ok(done)
}

/// Removes the number and text of one PDU from a handset, and its raw receipt.
pub(crate) fn inbound(tx: &mut WriteTx<'_>, id: i64, t: i64) -> Result<u64, StoreError> {
    let db = tx.db();
    let receipt_id: Option<Option<i64>> = match db {
        Db::Sqlite(_) => db.query_opt(
            "UPDATE inbound_message SET body = NULL, text = '', source_addr = number_token(source_addr), redaction = ?2
             WHERE id = ?1 AND redaction IS NULL RETURNING receipt_id",
            &[&id, &t],
            |r| r.get(0),
        )?,
        Db::Postgres(pg) => {
            let key = number_token::required(pg)?;
            let source: Option<Option<String>> = db.query_opt(
                "SELECT source_addr FROM inbound_message WHERE id = ?1 AND redaction IS NULL",
                &[&id],
                |r| r.get(0),
            )?;
            match source {
                None => None,
                Some(source) => db.query_opt(
                    "UPDATE inbound_message SET body = NULL, text = '', source_addr = ?3, redaction = ?2
                     WHERE id = ?1 AND redaction IS NULL RETURNING receipt_id",
                    &[&id, &t, &hash_opt(key, source.as_deref())],
                    |r| r.get(0),
                )?,
            }
        }
    };
    let receipt_id = receipt_id.flatten();
    let Some(r) = receipt_id else { return Ok(0) };
    Ok(1 + u64::from(receipt(tx, r, t)?))
}

mod answers;
#[cfg(test)]
pub(crate) use answers::IDEMPOTENCY_DUE;
pub(crate) use answers::{idempotency_before, idempotency_naming};

#[cfg(test)]
#[path = "redact_tests.rs"]
mod tests;
