//! The `projection` table (each message's computed state, as its fold state and the columns the
//! lists filter by) and `projection_input` (what was folded in, in order). Every projection is
//! written here, which also keeps the dashboard's running totals and puts state notifications in
//! the webhook outbox, in the same transaction.

use smsdesk_core::domain::{DeliveryState, ExceptionKind, WebhookField};
use smsdesk_core::receipts::mismatch::MessageFacts;
use smsdesk_core::receipts::rules::{EventFacts, Input, Projection, Rule, RULES_VERSION};

use crate::db::{Db, Row};
use crate::tables::{start_check, webhook};
use crate::totals::Delta;
use crate::writer::WriteTx;
use crate::Reads;
use crate::{StoreError, Text};

mod statements;

/// A message's projection row as stored.
#[derive(Debug, Clone)]
pub struct Stored {
    /// The fold state.
    pub fold: Projection,
    /// The columns the running totals counted the row by (the same facts as the fold, unless
    /// the row was tampered with).
    counted: Counted,
}

/// What the running totals count a projection by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Counted {
    state: DeliveryState,
    /// None for a rule this build does not know.
    rule: Option<Rule>,
    no_receipt: bool,
}

impl Counted {
    fn of(p: &Projection) -> Counted {
        Counted {
            state: p.state,
            rule: Some(p.rule),
            no_receipt: p.no_receipt,
        }
    }
}

/// The stored fold state of a message (the default when nothing was applied yet).
pub fn load(conn: &impl Reads, message_id: i64) -> Result<Projection, StoreError> {
    Ok(stored(conn, message_id)?.map(|s| s.fold).unwrap_or_default())
}

/// A message's projection row, if it has one.
pub fn stored(conn: &impl Reads, message_id: i64) -> Result<Option<Stored>, StoreError> {
    let row = conn.db().query_opt(
        "SELECT fold_json, state, rule, flag_no_receipt FROM projection WHERE message_id = ?1",
        &[&message_id],
        |r| stored_columns(r, 0),
    )?;
    row.flatten().map(|c| c.parse(message_id)).transpose()
}

/// The state a message's projection shows now (what the network reported, or an operator
/// decided), if it has a projection row.
pub fn state(conn: &impl Reads, message_id: i64) -> Result<Option<DeliveryState>, StoreError> {
    conn.db().query_opt(
        "SELECT state FROM projection WHERE message_id = ?1",
        &[&message_id],
        |r| r.get::<Text<_>>(0).map(|t| t.0),
    )
}

/// A projection row's columns as read, before its fold is parsed.
struct StoredColumns {
    fold_json: String,
    state: DeliveryState,
    rule: String,
    no_receipt: bool,
}

/// Reads `fold_json, state, rule, flag_no_receipt` from column `at` on; None when there is no
/// projection row (a NULL fold, from a LEFT JOIN).
fn stored_columns(r: &Row<'_, '_>, at: usize) -> Result<Option<StoredColumns>, StoreError> {
    let Some(fold_json) = r.get(at)? else {
        return Ok(None);
    };
    Ok(Some(StoredColumns {
        fold_json,
        state: r.get::<Text<_>>(at + 1)?.0,
        rule: r.get(at + 2)?,
        no_receipt: r.get(at + 3)?,
    }))
}

impl StoredColumns {
    fn parse(self, message_id: i64) -> Result<Stored, StoreError> {
        let fold = serde_json::from_str(&self.fold_json)
            .map_err(|e| StoreError::Corrupt(format!("projection {message_id}: {e}")))?;
        let rule = Rule::ALL.into_iter().find(|r| r.as_str() == self.rule);
        Ok(Stored {
            fold,
            counted: Counted {
                state: self.state,
                rule,
                no_receipt: self.no_receipt,
            },
        })
    }
}

/// Writes a message's projection row in place of `before` (the stored one, if any), and records
/// what the change adds to the dashboard's running totals.
pub fn save(tx: &mut WriteTx<'_>, message_id: i64, before: Option<&Stored>, p: &Projection) -> Result<(), StoreError> {
    let message = read_message(&*tx, message_id)?.map(|m| m.context);
    save_known(tx, message_id, before, p, message.as_ref(), None)
}

/// [`save`], for a caller that has already read the message and, for an event, knows when its
/// first receipt arrived.
pub fn save_known(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    before: Option<&Stored>,
    p: &Projection,
    message: Option<&MessageContext>,
    arrived: Option<Arrived>,
) -> Result<(), StoreError> {
    let before = before.map(|b| b.counted);
    let now = tx.now_ms();
    write_row(tx.db(), message_id, p, now)?;
    tx.report_changed(message_id);
    // The webhook outbox hears of a new projection and of every change of state.
    if let Some(key) = message.and_then(|m| m.webhook_key) {
        if before.map(|b| b.state) != Some(p.state) {
            webhook::enqueue(&*tx, key, message_id, WebhookField::State, p.state.as_str(), now)?;
        }
    }
    // So does the SMPP client that handed it in, of its final state.
    if let Some(receipt) = message.and_then(|m| m.smpp_receipt) {
        if before.map(|b| b.state) != Some(p.state) && p.state.is_final() {
            super::smpp::receipt_due(tx, message_id, receipt, p.state)?;
        }
    }
    count(
        tx,
        before,
        Counted::of(p),
        p.supporting.first().copied(),
        message,
        arrived,
    )
}

/// What a projection change needs to know about its message besides the fold, read in one
/// statement: its day and whether its queue row says it was never sent (the outcomes chart), when
/// its last accepted submit was answered (receipt latency), and its API key if that key wants
/// webhooks (a live key with a URL).
#[derive(Debug, Clone)]
pub struct MessageContext {
    created_at: i64,
    not_sent: bool,
    accepted_at: Option<i64>,
    webhook_key: Option<i64>,
    /// The receipt its SMPP client asked for, when it was handed in over smsdesk's SMPP server.
    smpp_receipt: Option<u8>,
}

/// When a logical event's first receipt arrived, if the caller has it in hand.
#[derive(Debug, Clone, Copy)]
pub struct Arrived {
    pub event: i64,
    pub at: i64,
}

/// A message as a change of its projection needs it: its facts for the mismatch check, its
/// [`MessageContext`] and its stored projection, read in one statement.
pub struct MessageRow {
    pub id: i64,
    pub facts: MessageFacts,
    pub context: MessageContext,
    pub stored: Option<Stored>,
}

impl MessageRow {
    fn read(r: &Row<'_, '_>) -> Result<(MessageRow, Option<StoredColumns>), StoreError> {
        let created_at = r.get(4)?;
        let status: Option<String> = r.get(5)?;
        let stored = stored_columns(r, 8)?;
        let row = MessageRow {
            id: r.get(0)?,
            facts: MessageFacts {
                connections: crate::tables::message::connections(r.get(1)?),
                destination: r.get(2)?,
                body: r.get(3)?,
                created_at,
                segments: r.get(12)?,
                text_removed: r.get(13)?,
                number_removed: r.get(14)?,
            },
            context: MessageContext {
                created_at,
                not_sent: matches!(status.as_deref(), Some("failed" | "cancelled" | "expired")),
                accepted_at: r.get(6)?,
                webhook_key: r.get(7)?,
                smpp_receipt: r.get(15)?,
            },
            stored: None,
        };
        Ok((row, stored))
    }

    fn parsed(read: Option<(MessageRow, Option<StoredColumns>)>) -> Result<Option<MessageRow>, StoreError> {
        let Some((mut row, stored)) = read else {
            return Ok(None);
        };
        row.stored = stored.map(|c| c.parse(row.id)).transpose()?;
        Ok(Some(row))
    }
}

/// A message by id, as a change of its projection needs it.
pub fn read_message(conn: &impl Reads, message_id: i64) -> Result<Option<MessageRow>, StoreError> {
    let db = conn.db();
    let read = db.query_opt(statements::BY_ID, &[&message_id], MessageRow::read)?;
    MessageRow::parsed(read)
}

/// The one message whose accepted submits on `connection` carry the provider id `key`, read as
/// [`read_message`] does; None when no message or several do (tell them apart with
/// `tables::attempt::messages_with_provider_key`).
pub fn read_message_by_provider_id(
    conn: &impl Reads,
    connection: &str,
    key: &str,
) -> Result<Option<MessageRow>, StoreError> {
    let db = conn.db();
    let read = db.query_opt(statements::BY_PROVIDER_ID, &[&connection, &key], MessageRow::read)?;
    MessageRow::parsed(read)
}

fn write_row(db: Db<'_>, message_id: i64, p: &Projection, now: i64) -> Result<(), StoreError> {
    let fold = serde_json::to_string(p).expect("a projection serialises");
    let supporting = serde_json::to_string(&p.supporting).expect("ids serialise");
    db.execute(
        "INSERT INTO projection (message_id, state, rule, supporting_json, flag_late, flag_conflict,
             flag_no_receipt, flag_mismatch, flag_id_disagree, fold_json, rules_version, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
         ON CONFLICT (message_id) DO UPDATE SET state = excluded.state, rule = excluded.rule,
             supporting_json = excluded.supporting_json, flag_late = excluded.flag_late,
             flag_conflict = excluded.flag_conflict, flag_no_receipt = excluded.flag_no_receipt,
             flag_mismatch = excluded.flag_mismatch, flag_id_disagree = excluded.flag_id_disagree,
             fold_json = excluded.fold_json, rules_version = excluded.rules_version,
             updated_at = excluded.updated_at",
        &[
            &message_id,
            &Text(p.state),
            &p.rule.as_str(),
            &supporting,
            &p.late,
            &p.conflict,
            &p.no_receipt,
            &p.mismatch,
            &p.id_disagree,
            &fold,
            &RULES_VERSION,
            &now,
        ],
    )?;
    Ok(())
}

/// Where a message stands in the outcomes-by-day chart (`activity_outcome`, whose rules are in
/// `0005_activity.sql`): `not_sent` says whether its queue row failed, was cancelled or expired.
fn outcome(p: Option<Counted>, not_sent: bool) -> &'static str {
    match p {
        Some(p) if p.rule == Some(Rule::OperatorDecision) => "decided",
        // Every part of a long message has its final: delivered only when all are.
        Some(p) if matches!(p.rule, Some(Rule::FirstFinal | Rule::PartsFinal)) => match p.state {
            DeliveryState::Delivered => "delivered",
            DeliveryState::Expired => "expired",
            _ => "failed",
        },
        _ if not_sent => "not_sent",
        Some(p) if p.no_receipt => "no_receipt",
        _ => "pending",
    }
}

/// Records what replacing `before` with `after` adds to the running totals: projections by
/// state, the receipt latency of a first final (from its supporting event's first receipt), and
/// the message's outcome. `message` is None only for a message that does not exist.
fn count(
    tx: &mut WriteTx<'_>,
    before: Option<Counted>,
    after: Counted,
    supporting: Option<i64>,
    message: Option<&MessageContext>,
    arrived: Option<Arrived>,
) -> Result<(), StoreError> {
    if before.map(|b| b.state) != Some(after.state) {
        if let Some(b) = before {
            tx.count(Delta::ProjectionState {
                state: b.state.as_str(),
                n: -1,
            });
        }
        tx.count(Delta::ProjectionState {
            state: after.state.as_str(),
            n: 1,
        });
    }
    let Some(message) = message else {
        return Ok(());
    };

    // The first final is counted once, when the message (every part of it) first has one: a
    // projection never leaves those rules for another receipt.
    let first_final = matches!(after.rule, Some(Rule::FirstFinal | Rule::PartsFinal))
        && before.is_none_or(|b| matches!(b.rule, Some(Rule::NoReport | Rule::Intermediate | Rule::PartsPending)));
    if let (true, Some(event), Some(accepted)) = (first_final, supporting, message.accepted_at) {
        // From the answer to the message's last accepted submit to the receipt's arrival.
        let at = match arrived {
            Some(a) if a.event == event => Some(a.at),
            _ => tx.db().query_opt(
                "SELECT rc.received_at FROM logical_event e JOIN receipt rc ON rc.id = e.first_receipt_id
                 WHERE e.id = ?1",
                &[&event],
                |r| r.get(0),
            )?,
        };
        if let Some(at) = at {
            tx.count(Delta::Latency { at, ms: at - accepted });
        }
    }

    let (from, to) = (
        outcome(before, message.not_sent),
        outcome(Some(after), message.not_sent),
    );
    // 'pending' is not stored: it is what 'created' leaves over.
    for (outcome, n) in [(from, -1), (to, 1)] {
        if from != to && outcome != "pending" {
            tx.count(Delta::Outcome {
                created_at: message.created_at,
                outcome,
                n,
            });
        }
    }
    Ok(())
}

/// Records that `input` was folded into a message's projection, after those before it.
pub fn record_input(tx: &mut WriteTx<'_>, message_id: i64, input: &Input) -> Result<(), StoreError> {
    let (kind, event, exception) = match input {
        Input::Event(EventFacts { event, .. }) => ("event", Some(*event), None),
        Input::Deadline { exception } => ("deadline", None, Some(*exception)),
        Input::Decision { exception, .. } => ("decision", None, Some(*exception)),
    };
    tx.db().execute(
        "INSERT INTO projection_input (message_id, kind, logical_event_id, exception_id, applied_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        &[&message_id, &kind, &event, &exception, &tx.now_ms()],
    )?;
    Ok(())
}

/// The message ids that have a projection, in order, after `after` (a cursor), at most `limit`.
pub fn messages_after(conn: &impl Reads, after: i64, limit: u32) -> Result<Vec<i64>, StoreError> {
    conn.db().query(
        "SELECT message_id FROM projection WHERE message_id > ?1 ORDER BY message_id LIMIT ?2",
        &[&after, &limit],
        |r| r.get(0),
    )
}

/// How many messages have a projection.
pub fn how_many(conn: &impl Reads) -> Result<usize, StoreError> {
    conn.db().one("SELECT count(*) FROM projection", &[])
}

/// One input folded into a message's projection, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputRow {
    /// event, deadline or decision.
    pub kind: String,
    pub logical_event_id: Option<i64>,
    pub exception_id: Option<i64>,
    /// The exception's kind and resolution, for a decision.
    pub exception_kind: Option<ExceptionKind>,
    pub resolution: Option<String>,
}

/// What was folded into a message's projection, in order.
pub fn input_rows(conn: &impl Reads, message_id: i64) -> Result<Vec<InputRow>, StoreError> {
    conn.db().query(
        "SELECT i.kind, i.logical_event_id, i.exception_id, e.kind, e.resolution
         FROM projection_input i LEFT JOIN exception e ON e.id = i.exception_id
         WHERE i.message_id = ?1 ORDER BY i.seq",
        &[&message_id],
        |r| {
            Ok(InputRow {
                kind: r.get(0)?,
                logical_event_id: r.get(1)?,
                exception_id: r.get(2)?,
                exception_kind: r.get::<Option<Text<_>>>(3)?.map(|t| t.0),
                resolution: r.get(4)?,
            })
        },
    )
}

/// Puts on the rebuild work list every projection whose `rules_version` is older than `version`;
/// returns how many were added.
///
/// It reads the projections only when the last look was under other rules (`start_check`):
/// every projection is written with the rules of the build that writes it, so under the same rules
/// there is nothing older to find, and a start does not read a million rows to learn it. A build
/// with other rules (newer, or older after a downgrade) looks once, and records its own.
pub fn want_rebuilt_before(tx: &mut WriteTx<'_>, version: u32) -> Result<usize, StoreError> {
    let under = version.to_string();
    if start_check::last(&*tx, "projection_rules")?.as_deref() == Some(under.as_str()) {
        return Ok(0);
    }
    let added = tx.db().execute(
        "INSERT INTO rebuild_wanted (message_id)
         SELECT message_id FROM projection WHERE rules_version < ?1 ON CONFLICT DO NOTHING",
        &[&version],
    )?;
    start_check::record(tx, "projection_rules", &under)?;
    Ok(added)
}

/// The first `limit` messages on the rebuild work list.
pub fn rebuild_wanted(tx: &WriteTx<'_>, limit: u32) -> Result<Vec<i64>, StoreError> {
    tx.db().query(
        "SELECT message_id FROM rebuild_wanted ORDER BY message_id LIMIT ?1",
        &[&limit],
        |r| r.get(0),
    )
}

/// Takes rebuilt messages off the work list; their projections, changed or not, are now those of
/// the rules `version`.
pub fn rebuilt(tx: &mut WriteTx<'_>, messages: &[i64], version: u32) -> Result<(), StoreError> {
    for m in messages {
        tx.db()
            .execute("DELETE FROM rebuild_wanted WHERE message_id = ?1", &[m])?;
        tx.db().execute(
            "UPDATE projection SET rules_version = ?2 WHERE message_id = ?1 AND rules_version < ?2",
            &[m, &version],
        )?;
    }
    Ok(())
}
