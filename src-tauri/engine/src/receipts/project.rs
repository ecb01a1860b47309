//! Keeping each message's projection: fold one input into the stored state, store it (through
//! the store's `projection` table), and open or close the exceptions the change calls for. Used
//! by ingestion, late correlation, deadlines and operator decisions alike, so all of them go
//! through the same rules.

use super::exceptions::{self, NewException};
use super::rules::{self, Input, Projection, RuleSettings};
use crate::domain::{DeliveryState, EvidenceRole, ExceptionKind};
use crate::said::{self, Summary, SummaryCode};
use crate::store::tables::projection;
use crate::store::{Entity, StoreError, WriteTx};

pub use crate::store::tables::projection::{
    load, read_message, read_message_by_provider_id, save, stored, Arrived, MessageContext, MessageRow, Stored,
};

/// Applies one input to a message's projection, records it as applied, and keeps the exception
/// queue in step: a new conflict opens (or extends) the message's conflict exception, and a final
/// receipt closes an open "no receipt" exception.
pub fn apply(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    input: &Input,
    settings: RuleSettings,
) -> Result<Projection, StoreError> {
    match read_message(&*tx, message_id)? {
        Some(m) => apply_known(tx, m, input, settings, None),
        // No such message: nothing to count it by, and no projection stored for it.
        None => apply_to(tx, message_id, None, None, input, settings, None),
    }
}

/// [`apply`], for a caller that has already read the message and, for an event, knows when its
/// first receipt arrived.
pub(crate) fn apply_known(
    tx: &mut WriteTx<'_>,
    message: MessageRow,
    input: &Input,
    settings: RuleSettings,
    arrived: Option<Arrived>,
) -> Result<Projection, StoreError> {
    let MessageRow {
        id, context, stored, ..
    } = message;
    apply_to(tx, id, stored, Some(&context), input, settings, arrived)
}

fn apply_to(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    stored: Option<Stored>,
    message: Option<&MessageContext>,
    input: &Input,
    settings: RuleSettings,
    arrived: Option<Arrived>,
) -> Result<Projection, StoreError> {
    let before = stored.as_ref().map(|s| s.fold.clone()).unwrap_or_default();
    let mut after = before.clone();
    rules::apply(&mut after, input, settings);

    projection::record_input(tx, message_id, input)?;
    projection::save_known(tx, message_id, stored.as_ref(), &after, message, arrived)?;
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
        if let Some(id) = exceptions::open_for_message(&*tx, message_id, ExceptionKind::NoReceipt)? {
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
    let existing = exceptions::open_for_message(&*tx, message_id, ExceptionKind::ConflictingFinal)?;
    let id = match existing {
        Some(id) => id,
        None => {
            let summary = Summary::new(
                SummaryCode::ConflictingFinal,
                said::params([("state", p.state.as_str().to_owned())]),
                format!(
                    "Incompatible final receipts: the first said {}, a later one says otherwise.",
                    p.state.as_str().to_uppercase()
                ),
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
                exceptions::link_event_receipts(&*tx, id, *event, EvidenceRole::MaterialisedFinal)?;
            }
            id
        }
    };
    for event in new_conflicts {
        exceptions::link_event_receipts(&*tx, id, *event, EvidenceRole::ConflictingFinal)?;
    }
    Ok(())
}
