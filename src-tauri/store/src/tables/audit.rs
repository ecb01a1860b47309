use smsdesk_core::audit::AuditAction;
use smsdesk_core::redact::redact_urls_in;

use crate::writer::{Entity, WriteTx};
use crate::{StoreError, Text};

/// One audited action: who (an operator's name, or "system"), what, on which subject, and why.
#[derive(Debug, Clone)]
pub struct NewAudit {
    pub actor: String,
    pub action: AuditAction,
    pub subject_type: Option<String>,
    pub subject_id: Option<i64>,
    pub note: Option<String>,
    pub details_json: Option<String>,
}

impl NewAudit {
    /// `actor` did `action`, on no subject in particular, without a note.
    pub fn new(actor: impl Into<String>, action: AuditAction) -> NewAudit {
        NewAudit {
            actor: actor.into(),
            action,
            subject_type: None,
            subject_id: None,
            note: None,
            details_json: None,
        }
    }
}

impl<'c> WriteTx<'c> {
    /// The audit log. It can only append.
    pub fn audit(&mut self) -> AuditLog<'_, 'c> {
        AuditLog::new(self)
    }
}

/// The audit table's only write handle: it appends.
pub struct AuditLog<'t, 'c> {
    tx: &'t mut WriteTx<'c>,
}

impl<'t, 'c> AuditLog<'t, 'c> {
    fn new(tx: &'t mut WriteTx<'c>) -> Self {
        AuditLog { tx }
    }

    /// Appends one entry, stamped with the batch's time, and returns its id. A URL in its note or
    /// details is kept without credentials ([`redact_urls_in`]): the audit is read by people, and
    /// kept for ever.
    pub fn append(self, a: &NewAudit) -> Result<i64, StoreError> {
        let at = self.tx.now_ms();
        let id: i64 = self.tx.db().one(
            "INSERT INTO audit (at, actor, action, subject_type, subject_id, note, details_json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id",
            &[
                &at,
                &a.actor,
                &Text(a.action),
                &a.subject_type,
                &a.subject_id,
                &a.note.as_deref().map(|t| redact_urls_in(t).into_owned()),
                &a.details_json.as_deref().map(|t| redact_urls_in(t).into_owned()),
            ],
        )?;
        self.tx.changed(Entity::Audit, id);
        Ok(id)
    }
}
