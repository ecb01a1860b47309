//! Keeping each message's projection: load the stored fold state, apply one input, store it, and
//! open or close the exceptions the change calls for. Used by ingestion, late correlation,
//! deadlines and operator decisions alike, so all of them go through the same rules.

use rusqlite::{params, Connection, OptionalExtension};

use super::exceptions::{self, NewException};
use super::rules::{self, EventFacts, Input, Projection, RuleSettings, RULES_VERSION};
use crate::domain::{DeliveryState, ExceptionKind};
use crate::store::{Entity, StoreError, WriteTx};

/// The stored fold state of a message (the default when nothing was applied yet).
pub fn load(conn: &Connection, message_id: i64) -> Result<Projection, StoreError> {
    let json: Option<String> = conn
        .prepare_cached("SELECT fold_json FROM projection WHERE message_id = ?1")?
        .query_row([message_id], |r| r.get(0))
        .optional()?;
    Ok(match json {
        Some(j) => {
            serde_json::from_str(&j).map_err(|e| StoreError::Corrupt(format!("projection {message_id}: {e}")))?
        }
        None => Projection::default(),
    })
}

/// Writes a message's projection row.
pub fn save(conn: &Connection, message_id: i64, p: &Projection, now: i64) -> Result<(), StoreError> {
    let fold = serde_json::to_string(p).expect("a projection serialises");
    let supporting = serde_json::to_string(&p.supporting).expect("ids serialise");
    conn.prepare_cached(
        "INSERT INTO projection (message_id, state, rule, supporting_json, flag_late, flag_conflict,
             flag_no_receipt, flag_mismatch, flag_id_disagree, fold_json, rules_version, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
         ON CONFLICT (message_id) DO UPDATE SET state = excluded.state, rule = excluded.rule,
             supporting_json = excluded.supporting_json, flag_late = excluded.flag_late,
             flag_conflict = excluded.flag_conflict, flag_no_receipt = excluded.flag_no_receipt,
             flag_mismatch = excluded.flag_mismatch, flag_id_disagree = excluded.flag_id_disagree,
             fold_json = excluded.fold_json, rules_version = excluded.rules_version,
             updated_at = excluded.updated_at",
    )?
    .execute(params![
        message_id,
        p.state,
        p.rule.as_str(),
        supporting,
        p.late,
        p.conflict,
        p.no_receipt,
        p.mismatch,
        p.id_disagree,
        fold,
        RULES_VERSION,
        now
    ])?;
    Ok(())
}

/// Applies one input to a message's projection, records it as applied, and keeps the exception
/// queue in step: a new conflict opens (or extends) the message's conflict exception, and a final
/// receipt closes an open "no receipt" exception.
pub fn apply(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    input: &Input,
    settings: RuleSettings,
) -> Result<Projection, StoreError> {
    let now = tx.now_ms();
    let before = load(tx.conn(), message_id)?;
    let mut after = before.clone();
    rules::apply(&mut after, input, settings);

    let (kind, event, exception) = match input {
        Input::Event(EventFacts { event, .. }) => ("event", Some(*event), None),
        Input::Deadline { exception } => ("deadline", None, Some(*exception)),
        Input::Decision { exception, .. } => ("decision", None, Some(*exception)),
    };
    tx.conn()
        .prepare_cached(
            "INSERT INTO projection_input (message_id, kind, logical_event_id, exception_id, applied_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![message_id, kind, event, exception, now])?;
    save(tx.conn(), message_id, &after, now)?;
    tx.changed(Entity::Projection, message_id);

    let new_conflicts: Vec<i64> = after
        .conflicting
        .iter()
        .copied()
        .filter(|e| !before.conflicting.contains(e))
        .collect();
    if after.conflict && !new_conflicts.is_empty() {
        open_or_extend_conflict(tx, message_id, &after, &new_conflicts)?;
    }
    if before.no_receipt && !after.no_receipt && after.state != DeliveryState::Pending {
        if let Some(id) = exceptions::open_for_message(tx.conn(), message_id, ExceptionKind::NoReceipt)? {
            exceptions::close_automatically(
                tx,
                id,
                "auto:final_receipt",
                "A final receipt arrived after the deadline.",
            )?;
        }
    }
    Ok(after)
}

fn open_or_extend_conflict(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    p: &Projection,
    new_conflicts: &[i64],
) -> Result<(), StoreError> {
    let existing = exceptions::open_for_message(tx.conn(), message_id, ExceptionKind::ConflictingFinal)?;
    let id = match existing {
        Some(id) => id,
        None => {
            let summary = format!(
                "Incompatible final receipts: the first said {}, a later one says otherwise.",
                p.state.as_str().to_uppercase()
            );
            let id = exceptions::open(
                tx,
                &NewException {
                    kind: ExceptionKind::ConflictingFinal,
                    message_id: Some(message_id),
                    logical_event_id: None,
                    summary,
                },
            )?;
            for event in &p.supporting {
                exceptions::link_event_receipts(tx.conn(), id, *event, "materialised_final")?;
            }
            id
        }
    };
    for event in new_conflicts {
        exceptions::link_event_receipts(tx.conn(), id, *event, "conflicting_final")?;
    }
    Ok(())
}
