//! Personal data, to an admin: the retention in force and its runs, erasure and access by number.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Service, ServiceError};
use crate::apikeys::Caller;
use crate::audit::AuditAction;
use crate::config::{Days, RetentionSettings};
use crate::intake;
use crate::intake::FieldError;
use crate::privacy::{self, Erased, RetentionRun};
use crate::said::FieldCode;
use crate::store::privacy::access::SubjectRecord;
use crate::store::privacy::{recent, Tombstone};
use crate::store::tables::NewAudit;

/// A retention period as the screens show it: days, or None for never.
fn days(d: Days) -> Option<u32> {
    match d {
        Days::Days(n) => Some(n),
        Days::Never => None,
    }
}

/// The retention in force (days; None: kept for ever).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct RetentionPeriods {
    pub otp_text_days: Option<u32>,
    pub transactional_text_days: Option<u32>,
    pub bulk_text_days: Option<u32>,
    pub destination_days: Option<u32>,
    pub replies_days: Option<u32>,
    pub audit_days: Option<u32>,
}

impl From<&RetentionSettings> for RetentionPeriods {
    fn from(s: &RetentionSettings) -> RetentionPeriods {
        RetentionPeriods {
            otp_text_days: days(s.otp_text_days),
            transactional_text_days: days(s.transactional_text_days),
            bulk_text_days: days(s.bulk_text_days),
            destination_days: days(s.destination_days),
            replies_days: days(s.replies_days),
            audit_days: days(s.audit_days),
        }
    }
}

/// What the Personal data screen shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct PrivacyOverview {
    pub retention: RetentionPeriods,
    /// The latest removals (retention runs, one line per rule, and erasures), newest first.
    pub recent: Vec<Tombstone>,
}

/// A number to erase, and why (kept in the audit, without the number).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct EraseNumber {
    pub number: String,
    pub note: String,
}

/// Everything held about a number, as JSON and as CSV (one line per message, reply or opt-out
/// entry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SubjectAccess {
    pub record: SubjectRecord,
    pub csv: String,
}

/// A number to look up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SubjectRequest {
    pub number: String,
}

impl Service {
    fn admin_only(caller: &Caller, what: &str) -> Result<(), ServiceError> {
        match caller.is_admin() {
            true => Ok(()),
            false => Err(ServiceError::Forbidden(format!("{what} is an admin's"))),
        }
    }

    /// The retention settings in force (the defaults where no running engine holds settings).
    pub fn retention_in_force(&self) -> RetentionSettings {
        match (&self.settings, &self.retention) {
            (Some(s), _) => s.running().retention.clone(),
            (None, Some(r)) => r.clone(),
            (None, None) => RetentionSettings::default(),
        }
    }

    /// The number as E.164, read as intake reads one (national numbers in the office's country).
    fn subject_number(&self, typed: &str) -> Result<String, ServiceError> {
        intake::normalize_destination(typed, self.region().as_deref()).map_err(|e| {
            ServiceError::Invalid(vec![FieldError {
                field: "number".into(),
                ..e
            }])
        })
    }

    /// The retention in force and the latest removals (admin only).
    pub async fn privacy_overview(&self, caller: &Caller) -> Result<PrivacyOverview, ServiceError> {
        Self::admin_only(caller, "personal data")?;
        let recent = self.store.reader().read(|c| recent(c, 40)).await?;
        Ok(PrivacyOverview {
            retention: RetentionPeriods::from(&self.retention_in_force()),
            recent,
        })
    }

    /// Runs retention now (admin only; audited with its counts).
    pub async fn run_retention(&self, caller: &Caller) -> Result<RetentionRun, ServiceError> {
        Self::admin_only(caller, "running retention")?;
        Ok(privacy::run(&self.store, &self.retention_in_force(), &caller.actor()).await?)
    }

    /// Erases everything held about a number (admin only; a note is required; audited without
    /// the number).
    pub async fn erase_number(&self, caller: &Caller, req: EraseNumber) -> Result<Erased, ServiceError> {
        Self::admin_only(caller, "erasing a number")?;
        let number = self.subject_number(&req.number)?;
        if req.note.trim().is_empty() {
            return Err(ServiceError::Invalid(vec![FieldError::new(
                "note",
                FieldCode::Required,
                "say why the number is erased (the request it answers): the audit keeps it",
            )]));
        }
        Ok(privacy::erase(&self.store, &number, &caller.actor(), req.note.trim()).await?)
    }

    /// Everything held about a number (admin only; the access is audited, with the number's
    /// hash rather than the number).
    pub async fn subject_access(&self, caller: &Caller, req: SubjectRequest) -> Result<SubjectAccess, ServiceError> {
        Self::admin_only(caller, "access by number")?;
        let number = self.subject_number(&req.number)?;
        let record = privacy::record(&self.store, &number).await?;
        let hash = self.store.number_key().map(|k| k.token(&number));
        let (actor, n) = (
            caller.actor(),
            record.messages.len() + record.replies.len() + record.opt_outs.len(),
        );
        self.store
            .writer()
            .write(move |tx| {
                tx.audit().append(&NewAudit {
                    details_json: Some(serde_json::json!({ "number_hash": hash, "items": n }).to_string()),
                    ..NewAudit::new(actor, AuditAction::PrivacyAccess)
                })
            })
            .await?;
        let csv = privacy::record_csv(&record);
        Ok(SubjectAccess { record, csv })
    }
}
