//! Applying one stored receipt: de-duplicated into a logical event, correlated by the provider's
//! message id, folded into its message's projection, or raised as an exception. A message from a
//! handset is filed in the inbox instead.

use serde::Serialize;

use super::dedup;
use super::exceptions::{self, NewException};
use super::facts::{facts, parts_reported};
use super::fields::ReceiptFields;
use super::mismatch;
use super::parse::Stat;
use super::policy::ReceiptPolicy;
use super::project;
use super::rules::{state_from_stat, EventFacts, Input};
use super::uncorrelated;
use crate::domain::{Correlation, DeliveryState, EvidenceRole, ExceptionKind, IdSource, ReceiptKind};
use crate::inbox::Filed;
use crate::said::{self, Summary, SummaryCode};
use crate::store::tables::{attempt, logical_event, receipt, NewReceipt};
use crate::store::{StoreError, WriteTx};

/// What became of one report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Applied to a message's projection.
    Applied { message_id: i64, state: DeliveryState },
    /// The same logical event again: recorded, linked, and nothing else.
    Repeat { logical_event_id: i64 },
    /// No message carries its id (yet): an exception, nothing applied.
    Uncorrelated { exception_id: i64 },
    /// Several messages carry its id: an exception, nothing applied.
    Ambiguous { exception_id: i64 },
    /// No message carries its id yet: it waits (a submit's answer may still bring the id) before
    /// an exception opens.
    Waiting { logical_event_id: i64 },
    /// Its status word names no status: kept as evidence for its message, with an exception;
    /// nothing applied.
    StatusUnreadable { message_id: i64, exception_id: i64 },
    /// Nothing usable in it: kept with its parse error, and an exception.
    Unparseable { exception_id: i64 },
    /// Not a report: an incoming message.
    Inbound { inbound_id: i64 },
    /// An incoming message its provider posted before (the same message id): recorded, flagged
    /// as a repeat, and not filed again.
    InboundRepeat { inbound_id: i64 },
    /// An SME acknowledgement: kept as evidence; it says nothing about delivery.
    Acknowledgement,
    /// The evidence is committed but applying it failed; it will be applied again later.
    Deferred,
}

/// The facts of a receipt that processing needs, borrowed from its row (the one just appended,
/// or one read back by [`process_pending`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct ReceiptView<'a> {
    id: i64,
    connection: &'a str,
    kind: ReceiptKind,
    parse_error: Option<&'a str>,
    /// What the report says.
    fields: &'a ReceiptFields,
    source_addr: Option<&'a str>,
    raw_text: Option<&'a str>,
    received_at: i64,
}

impl<'a> ReceiptView<'a> {
    pub(super) fn from_row(id: i64, r: &'a NewReceipt) -> ReceiptView<'a> {
        ReceiptView {
            id,
            connection: &r.connection,
            kind: r.kind.unwrap_or(ReceiptKind::Unparseable),
            parse_error: r.parse_error.as_deref(),
            fields: &r.fields,
            source_addr: r.source_addr.as_deref(),
            raw_text: r.raw_text.as_deref(),
            received_at: r.received_at,
        }
    }

    fn receipt_facts(&self) -> mismatch::ReceiptFacts {
        mismatch::ReceiptFacts {
            connection: self.connection.to_owned(),
            handset: self.source_addr.map(str::to_owned),
            text: self.raw_text.and_then(crate::receipts::mismatch::receipt_text_field),
            done_ts: self.fields.done_ts.clone(),
            // A receipt in hand is whole; one stored may have been redacted since.
            ..Default::default()
        }
    }

    /// The key its message id is matched on, under the connection's rules for the place the id
    /// was read (a receipt stored before ids had a place was read as a receipt text's).
    fn id_key(&self, policy: &ReceiptPolicy) -> Option<String> {
        self.fields
            .message_id_raw
            .as_deref()
            .filter(|s| !s.is_empty())
            .map(|m| policy.receipt_key(m, self.fields.id_source.unwrap_or(IdSource::Text)))
    }
}

/// Applies one stored receipt: de-duplicate, correlate, project, raise exceptions.
pub(super) fn process(
    tx: &mut WriteTx<'_>,
    r: &ReceiptView<'_>,
    policy: &ReceiptPolicy,
) -> Result<Outcome, StoreError> {
    // Its ids are read by the rules of the connection it arrived on.
    let policy = policy.on(r.connection);
    match r.kind {
        ReceiptKind::Mo => file_reply(tx, r, policy),
        ReceiptKind::Acknowledgement => {
            receipt::record_outcome(tx, r.id, None, false, None)?;
            Ok(Outcome::Acknowledgement)
        }
        ReceiptKind::Unparseable => unparseable(tx, r, r.parse_error.unwrap_or("nothing usable")),
        ReceiptKind::Receipt | ReceiptKind::Intermediate => report(tx, r, policy),
    }
}

/// A message from a handset: filed in the inbox, once.
fn file_reply(tx: &mut WriteTx<'_>, r: &ReceiptView<'_>, policy: &ReceiptPolicy) -> Result<Outcome, StoreError> {
    Ok(match crate::inbox::receive(tx, r.id, &policy.inbox)? {
        Filed::New(inbound_id) => {
            receipt::record_outcome(tx, r.id, None, false, None)?;
            Outcome::Inbound { inbound_id }
        }
        Filed::Repeat(inbound_id) => {
            receipt::record_outcome(tx, r.id, None, true, None)?;
            Outcome::InboundRepeat { inbound_id }
        }
    })
}

/// The messages a report's id names on its connection: the one found with what applying the
/// report needs to know of it, or the ids of none or several.
struct Candidates {
    found: Option<project::MessageRow>,
    ids: Vec<i64>,
}

/// A delivery report (final or intermediate): its logical event is recorded once, then applied to
/// the one message its id names, or held as uncorrelated or ambiguous.
fn report(tx: &mut WriteTx<'_>, r: &ReceiptView<'_>, policy: &ReceiptPolicy) -> Result<Outcome, StoreError> {
    // A status word nobody can read says nothing: it is kept, never applied as UNKNOWN.
    let state = r
        .fields
        .stat
        .filter(|_| !r.fields.status_unreadable)
        .map(state_from_stat);
    if state.is_none() && !r.fields.status_unreadable {
        return unparseable(tx, r, "the report carries no delivery status");
    }
    let id_key = r.id_key(policy);
    let key = dedup::key(
        r.fields.event_id.as_deref(),
        id_key.as_deref(),
        r.fields.stat.map(Stat::as_str),
        r.fields.err.as_deref(),
        r.fields.done_date.as_deref(),
        r.fields.message_state,
        r.kind,
    );
    let candidates = candidates(tx, r.connection, id_key.as_deref())?;
    let message_id = match candidates.ids.as_slice() {
        [one] => Some(*one),
        _ => None,
    };
    let correlation = match candidates.ids.len() {
        0 => Correlation::None,
        1 => Correlation::Matched,
        _ => Correlation::Ambiguous,
    };
    let Some(event) = new_logical_event(tx, r, &key, correlation, message_id)? else {
        // The same logical event again: link it, flag it, and do nothing else.
        let event = logical_event::by_dedup_key(&*tx, r.connection, &key.key)?;
        receipt::record_outcome(tx, r.id, Some(event), true, None)?;
        return Ok(Outcome::Repeat {
            logical_event_id: event,
        });
    };
    match (message_id, state) {
        (Some(m), Some(state)) => apply_to(tx, r, event, (m, candidates.found), state, id_key.as_deref(), policy),
        (Some(m), None) => {
            let ex = exceptions::open_status_unreadable(tx, m, event, r.id, r.fields.stat_raw.as_deref())?;
            receipt::record_outcome(tx, r.id, Some(event), false, None)?;
            Ok(Outcome::StatusUnreadable {
                message_id: m,
                exception_id: ex,
            })
        }
        (None, _) if candidates.ids.is_empty() => uncorrelated(tx, r, event, id_key.is_some(), policy),
        (None, _) => ambiguous(
            tx,
            r,
            event,
            candidates.ids.len(),
            id_key.as_deref().unwrap_or_default(),
        ),
    }
}

/// The usual answer, one message, comes with everything applying the receipt needs to know of it;
/// none or several are told apart by their ids.
fn candidates(tx: &WriteTx<'_>, connection: &str, id_key: Option<&str>) -> Result<Candidates, StoreError> {
    let Some(k) = id_key else {
        return Ok(Candidates {
            found: None,
            ids: Vec::new(),
        });
    };
    Ok(match project::read_message_by_provider_id(tx, connection, k)? {
        Some(m) => Candidates {
            ids: vec![m.id],
            found: Some(m),
        },
        None => Candidates {
            found: None,
            ids: attempt::messages_with_provider_key(tx, connection, k)?,
        },
    })
}

/// Applies the report's logical event `event` to its message's projection.
fn apply_to(
    tx: &mut WriteTx<'_>,
    r: &ReceiptView<'_>,
    event: i64,
    (m, found): (i64, Option<project::MessageRow>),
    state: DeliveryState,
    id_key: Option<&str>,
    policy: &ReceiptPolicy,
) -> Result<Outcome, StoreError> {
    let message = match found {
        Some(row) => row,
        None => project::read_message(&*tx, m)?
            .ok_or_else(|| StoreError::Corrupt(format!("message {m} carries an attempt but does not exist")))?,
    };
    let parts = parts_reported(&*tx, m, message.facts.segments, r.connection, id_key)?;
    let facts = facts(
        event,
        state,
        &r.receipt_facts(),
        r.fields.message_id_raw.as_deref(),
        r.fields.text_id.as_deref(),
        Some(&message.facts),
        parts,
        policy,
    );
    let flags = flags_json(&facts);
    let arrived = project::Arrived {
        event,
        at: r.received_at,
    };
    project::apply_known(tx, message, &Input::Event(facts), policy.rules(), Some(arrived))?;
    receipt::record_outcome(tx, r.id, Some(event), false, flags)?;
    Ok(Outcome::Applied { message_id: m, state })
}

/// No message carries the report's id: it waits a while when it has one (a submit's answer may
/// still bring it), else an exception opens at once.
fn uncorrelated(
    tx: &mut WriteTx<'_>,
    r: &ReceiptView<'_>,
    event: i64,
    has_id: bool,
    policy: &ReceiptPolicy,
) -> Result<Outcome, StoreError> {
    receipt::record_outcome(tx, r.id, Some(event), false, None)?;
    if policy.uncorrelated_grace_ms > 0 && has_id {
        // It may be a receipt that came before its submit's answer: it waits a while before
        // anyone is asked about it (`uncorrelated::sweep`).
        uncorrelated::wait(tx, event, r.connection, r.received_at)?;
        return Ok(Outcome::Waiting {
            logical_event_id: event,
        });
    }
    let ex = uncorrelated::open_exception(tx, event, r.id, r.connection, r.fields.message_id_raw.as_deref())?;
    Ok(Outcome::Uncorrelated { exception_id: ex })
}

/// Several messages carry the report's id: nothing is applied, and a person chooses among them.
fn ambiguous(
    tx: &mut WriteTx<'_>,
    r: &ReceiptView<'_>,
    event: i64,
    count: usize,
    key: &str,
) -> Result<Outcome, StoreError> {
    let id = r.fields.message_id_raw.as_deref().unwrap_or_default();
    let summary = Summary::new(
        SummaryCode::Ambiguous,
        said::params([
            ("count", count.to_string()),
            ("connection", r.connection.to_owned()),
            ("id", id.to_owned()),
        ]),
        format!(
            "{count} messages sent on {} have the provider id {id:?}; none was chosen.",
            r.connection,
        ),
    );
    let ex = exceptions::open_for_receipt(tx, ExceptionKind::Ambiguous, None, event, r.id, summary)?;
    for a in attempt::with_provider_key(&*tx, r.connection, key)? {
        exceptions::link_attempt(&*tx, ex, a, EvidenceRole::Candidate)?;
    }
    receipt::record_outcome(tx, r.id, Some(event), false, None)?;
    Ok(Outcome::Ambiguous { exception_id: ex })
}

/// Records a new logical event with its correlation; None when the event is already recorded
/// (a repeat).
fn new_logical_event(
    tx: &mut WriteTx<'_>,
    r: &ReceiptView<'_>,
    key: &dedup::DedupKey,
    correlation: Correlation,
    message_id: Option<i64>,
) -> Result<Option<i64>, StoreError> {
    logical_event::record(
        tx,
        &logical_event::NewEvent {
            connection: r.connection,
            key,
            first_receipt_id: r.id,
            correlation,
            message_id,
        },
    )
}

fn unparseable(tx: &mut WriteTx<'_>, r: &ReceiptView<'_>, why: &str) -> Result<Outcome, StoreError> {
    let summary = Summary::new(
        SummaryCode::Unparseable,
        said::params([("connection", r.connection.to_owned())]),
        format!(
            "A report on {} could not be read: {why}. It is kept as received.",
            r.connection
        ),
    );
    let ex = exceptions::open(
        tx,
        &NewException {
            kind: ExceptionKind::Unparseable,
            message_id: None,
            logical_event_id: None,
            summary,
        },
    )?;
    exceptions::link_receipt(&*tx, ex, r.id, EvidenceRole::Receipt)?;
    receipt::record_outcome(tx, r.id, None, false, None)?;
    Ok(Outcome::Unparseable { exception_id: ex })
}

fn flags_json(f: &EventFacts) -> Option<String> {
    (f.mismatch || f.id_disagree)
        .then(|| serde_json::json!({ "mismatch": f.mismatch, "id_disagree": f.id_disagree }).to_string())
}

/// Applies stored receipts that have no outcome yet (their effects failed), in receive order,
/// starting after receipt `after` and taking at most `limit`. Returns how many were looked at and
/// the last receipt id seen, the cursor for the next call; a receipt that fails again is logged
/// and stays listed for the next start rather than retried in a loop.
pub fn process_pending(
    tx: &mut WriteTx<'_>,
    policy: &ReceiptPolicy,
    after: i64,
    limit: u32,
) -> Result<(usize, i64), StoreError> {
    let pending = receipt::unprocessed(&*tx, after, limit)?;
    for (id, row) in &pending {
        match tx.nested(|tx| process(tx, &ReceiptView::from_row(*id, row), policy)) {
            Ok(_) => receipt::applied_at_last(tx, *id)?,
            Err(e) => {
                tracing::error!(receipt_id = id, error = %e, "applying a stored receipt failed again");
                receipt::defer(tx, *id)?;
            }
        }
    }
    Ok((pending.len(), pending.last().map_or(after, |(id, _)| *id)))
}
