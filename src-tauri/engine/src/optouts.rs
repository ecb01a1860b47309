//! The opt-out list in action: a number goes on it (a reply with a stop word, an operator, an
//! import) or comes off it (a start word, an operator), each step audited with its evidence; the
//! messages already waiting for a number that goes on are held for a person instead of sent; and
//! the dispatcher and intake ask [`blocks`] before a message goes anywhere.

use crate::audit::AuditAction;
use crate::domain::{ExceptionKind, MessageKind, QueueStatus};
use crate::queue_reason::{self as reason, OptOutVia};
use crate::said::{self, Summary, SummaryCode};
use crate::store::tables::opt_out::{self, NewOptOut, Reason};
use crate::store::tables::{exception, queue, NewAudit};
use crate::store::{Reads, StoreError, WriteTx};

/// The entry that stops a message of `kind` to `phone`, when there is one.
pub fn blocks(conn: &impl Reads, phone: &str, kind: MessageKind) -> Result<Option<i64>, StoreError> {
    Ok(opt_out::current(conn, phone)?
        .filter(|c| c.kinds.contains(&kind))
        .map(|c| c.id))
}

/// Holds a queued message whose number is on the list (entry `entry`): it is not sent, and an
/// exception asks a person to cancel it or, once the number is off the list, send it.
pub fn hold(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    phone: &str,
    entry: i64,
    via: OptOutVia<'_>,
) -> Result<(), StoreError> {
    let note = reason::opted_out(phone, via);
    queue::set_status(tx, message_id, QueueStatus::Held, Some(&note), None)?;
    let why = via.english();
    if exception::open_for_message(&*tx, message_id, ExceptionKind::OptedOut)?.is_none() {
        exception::open(
            tx,
            &exception::NewException {
                kind: ExceptionKind::OptedOut,
                message_id: Some(message_id),
                logical_event_id: None,
                summary: Summary::new(
                    SummaryCode::OptedOut,
                    said::params([("phone", phone.to_owned())]),
                    format!(
                        "{phone} opted out ({why}) while this message waited to be sent: it is held, not sent. \
                         Cancel it, or take the number off the opt-out list and send it."
                    ),
                ),
            },
        )?;
    }
    // The facts, for the screens to word (the number, how it came on the list): no sentence.
    let mut details = serde_json::json!({ "opt_out_id": entry });
    for (k, v) in &note.reason.params {
        details[k] = v.as_str().into();
    }
    tx.audit().append(&NewAudit {
        actor: "system".into(),
        action: AuditAction::MessageHoldOptedOut,
        subject_type: Some("message".into()),
        subject_id: Some(message_id),
        note: None,
        details_json: Some(details.to_string()),
    })?;
    Ok(())
}

/// Holds every message of `kinds` waiting in the queue for `phone`; returns their ids.
fn hold_waiting(
    tx: &mut WriteTx<'_>,
    phone: &str,
    kinds: &[MessageKind],
    entry: i64,
    via: OptOutVia<'_>,
) -> Result<Vec<i64>, StoreError> {
    let waiting = opt_out::queued_to(&*tx, phone, kinds)?;
    for id in &waiting {
        hold(tx, *id, phone, entry, via)?;
    }
    Ok(waiting)
}

/// What putting a number on the list came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Added {
    /// A new entry, and the messages it held.
    New { id: i64, held: Vec<i64> },
    /// The number was on the list already (entry `id`): nothing changed.
    Already { id: i64 },
}

/// Who and why, for an entry.
pub struct Source<'a> {
    pub reason: Reason,
    pub note: Option<&'a str>,
    /// The reply that asked for it.
    pub inbox_message_id: Option<i64>,
    /// The keyword the reply matched.
    pub keyword: Option<&'a str>,
    /// The audit log's name for who did it.
    pub actor: &'a str,
}

impl<'a> Source<'a> {
    /// A person's doing (`reason` operator or import), with their note.
    pub fn by(actor: &'a str, reason: Reason, note: Option<&'a str>) -> Source<'a> {
        Source {
            reason,
            note,
            inbox_message_id: None,
            keyword: None,
            actor,
        }
    }

    fn via(&self) -> OptOutVia<'a> {
        match self.reason {
            Reason::Reply => OptOutVia::Reply(self.keyword),
            Reason::Operator => OptOutVia::Operator(self.actor),
            Reason::Import => OptOutVia::Import(self.actor),
        }
    }

    /// How the entry came or went, as the audit entry's details say it: `reason` (`reply`,
    /// `operator`, `import`) and the reply's `keyword`.
    fn reason_code(&self) -> &'static str {
        match self.reason {
            Reason::Reply => "reply",
            Reason::Operator => "operator",
            Reason::Import => "import",
        }
    }

    fn audit_action(&self, on: bool) -> AuditAction {
        match (self.reason, on) {
            (Reason::Reply, true) => AuditAction::OptOutReply,
            (Reason::Reply, false) => AuditAction::OptInReply,
            (Reason::Operator, true) => AuditAction::OptOutAdd,
            (Reason::Operator, false) => AuditAction::OptOutRemove,
            (Reason::Import, true) => AuditAction::OptOutImport,
            (Reason::Import, false) => AuditAction::OptOutRemove,
        }
    }
}

/// Puts `phone` on the list for `kinds`, holding what waits for it; audited.
pub fn add(tx: &mut WriteTx<'_>, phone: &str, kinds: &[MessageKind], src: &Source<'_>) -> Result<Added, StoreError> {
    if let Some(c) = opt_out::current(&*tx, phone)? {
        return Ok(Added::Already { id: c.id });
    }
    let id = opt_out::add(
        tx,
        &NewOptOut {
            phone,
            kinds,
            reason: src.reason,
            note: src.note,
            inbox_message_id: src.inbox_message_id,
            by: src.actor,
        },
    )?;
    let held = hold_waiting(tx, phone, kinds, id, src.via())?;
    // The note is the person's own, as typed; what the engine knows goes in the details.
    tx.audit().append(&NewAudit {
        actor: src.actor.into(),
        action: src.audit_action(true),
        subject_type: Some("opt_out".into()),
        subject_id: Some(id),
        note: src.note.map(str::to_owned),
        details_json: Some(
            serde_json::json!({
                "phone": phone, "kinds": kinds, "inbox_message_id": src.inbox_message_id,
                "reason": src.reason_code(), "keyword": src.keyword, "held_messages": held,
            })
            .to_string(),
        ),
    })?;
    Ok(Added::New { id, held })
}

/// Takes `phone` off the list; audited. Returns the entry it ended, `None` when the number was
/// not on the list. Messages held meanwhile stay held: each needs a person's decision.
pub fn remove(tx: &mut WriteTx<'_>, phone: &str, src: &Source<'_>) -> Result<Option<i64>, StoreError> {
    let Some(c) = opt_out::current(&*tx, phone)? else {
        return Ok(None);
    };
    opt_out::end(tx, c.id, src.reason, src.note, src.inbox_message_id, src.actor)?;
    tx.audit().append(&NewAudit {
        actor: src.actor.into(),
        action: src.audit_action(false),
        subject_type: Some("opt_out".into()),
        subject_id: Some(c.id),
        note: src.note.map(str::to_owned),
        details_json: Some(
            serde_json::json!({
                "phone": phone, "inbox_message_id": src.inbox_message_id,
                "reason": src.reason_code(), "keyword": src.keyword,
            })
            .to_string(),
        ),
    })?;
    Ok(Some(c.id))
}
