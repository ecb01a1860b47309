//! The operator's actions: on a message (retry, cancel) and on an exception (resolve). Each is
//! audited with the note given.

use crate::said::FieldCode;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Service, ServiceError};
use crate::apikeys::Caller;
use crate::decisions::{self, Action, Resolution};
use crate::domain::DeliveryState;
use crate::intake::FieldError;
use crate::queue::{self, RetryLimits};
use crate::store::tables::message;

/// A note with an action on a message.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageAction {
    /// Why (kept in the audit log).
    #[serde(default)]
    pub note: String,
    /// Retry only: the last try was accepted or its outcome is unknown, so the message may arrive
    /// twice; set true to go on anyway.
    #[serde(default)]
    pub confirm_duplicate: bool,
    /// Retry only, admins only: send it although its kind's limits on tries or age say no (an OTP
    /// tried twice, or older than its 5 minutes). Needs a note; audited as an override.
    #[serde(default)]
    pub override_limits: bool,
    /// Retry only: its last try was refused for good by the SMSC (an invalid destination, say),
    /// so it will most likely fail again; set true to send it anyway. Audited as such.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub confirm_permanent_failure: Option<bool>,
}

/// The operator's decision on an exception.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum ResolveRequest {
    /// Decide the message's state (a conflict, no receipt by the deadline).
    ChooseState { state: DeliveryState, note: String },
    /// Attach an uncorrelated receipt to a message; `mismatches_seen` after reviewing every
    /// mismatch the preview showed.
    Attach {
        #[ts(type = "number")]
        message_id: i64,
        #[serde(default)]
        mismatches_seen: bool,
        note: String,
    },
    /// Send again what was not accepted (outcome unknown, or partly sent), or send a message held
    /// because its number opted out (refused while the number is still on the list). When evidence says
    /// the network had the message (an accepted try or a receipt), `confirm_duplicate: true` is
    /// needed as well.
    Resend {
        note: String,
        #[serde(default)]
        confirm_duplicate: bool,
        /// Admins only: send it although its kind's limits on tries or age say no (audited).
        #[serde(default)]
        override_limits: bool,
    },
    /// Settle the message as failed (outcome unknown); for a message held because its number
    /// opted out, do not send it: it is cancelled.
    MarkFailed { note: String },
    /// Close it without changing anything.
    Dismiss { note: String },
}

impl ResolveRequest {
    /// The decision, and the note that goes with it; `limits` for a resend that does not
    /// override them.
    fn into_parts(self, limits: RetryLimits) -> (Action, String) {
        match self {
            ResolveRequest::ChooseState { state, note } => (Action::ChooseState(state), note),
            ResolveRequest::Attach {
                message_id,
                mismatches_seen,
                note,
            } => (
                Action::Attach {
                    message_id,
                    mismatches_seen,
                },
                note,
            ),
            ResolveRequest::Resend {
                note,
                confirm_duplicate,
                override_limits,
            } => {
                let limits = if override_limits { RetryLimits::Override } else { limits };
                (
                    Action::Resend {
                        confirm_duplicate,
                        limits,
                    },
                    note,
                )
            }
            ResolveRequest::MarkFailed { note } => (Action::MarkFailed, note),
            ResolveRequest::Dismiss { note } => (Action::Dismiss, note),
        }
    }
}

impl Service {
    /// Refuses, as if it did not exist, a message the caller may not read.
    pub(super) async fn visible(&self, caller: &Caller, id: i64) -> Result<(), ServiceError> {
        if caller.only_own().is_none() {
            return Ok(());
        }
        let owner = self.store.reader().read(move |c| message::owner(c, id)).await?;
        match owner {
            Some(owner) if caller.may_see(owner) => Ok(()),
            _ => Err(ServiceError::NotFound(format!("message {id}"))),
        }
    }

    /// The limits a retry by `caller` obeys: the kinds', or none when an admin overrides them
    /// with a note.
    fn retry_limits(&self, caller: &Caller, override_limits: bool, note: &str) -> Result<RetryLimits, ServiceError> {
        if !override_limits {
            return Ok(RetryLimits::Obey(self.live().retry));
        }
        if !caller.is_admin() {
            return Err(ServiceError::Forbidden(
                "only an admin may send a message past its kind's limits".into(),
            ));
        }
        if note.trim().is_empty() {
            return Err(ServiceError::Invalid(vec![FieldError::new(
                "note",
                FieldCode::Required,
                "overriding the limits needs a note saying why",
            )]));
        }
        Ok(RetryLimits::Override)
    }

    /// Sends a message again now (audited), within its kind's limits unless an admin overrides
    /// them.
    pub async fn retry(&self, caller: &Caller, id: i64, a: MessageAction) -> Result<(), ServiceError> {
        check_note(&a.note)?;
        self.visible(caller, id).await?;
        let limits = self.retry_limits(caller, a.override_limits, &a.note)?;
        let actor = caller.actor();
        Ok(self
            .store
            .writer()
            .write(move |tx| {
                let confirmed = queue::Confirmed {
                    duplicate: a.confirm_duplicate,
                    permanent_failure: a.confirm_permanent_failure.unwrap_or(false),
                };
                queue::operator_retry(tx, id, confirmed, limits, &actor, &a.note)
            })
            .await?)
    }

    /// Takes a message that has not been sent out of the queue (audited).
    pub async fn cancel(&self, caller: &Caller, id: i64, a: MessageAction) -> Result<(), ServiceError> {
        check_note(&a.note)?;
        self.visible(caller, id).await?;
        let actor = caller.actor();
        Ok(self
            .store
            .writer()
            .write(move |tx| queue::cancel(tx, id, &actor, &a.note))
            .await?)
    }

    /// Applies an operator's decision to an exception (audited; the evidence is never changed).
    pub async fn resolve(&self, caller: &Caller, id: i64, req: ResolveRequest) -> Result<(), ServiceError> {
        let overriding = matches!(
            req,
            ResolveRequest::Resend {
                override_limits: true,
                ..
            }
        );
        let note_given = match &req {
            ResolveRequest::Resend { note, .. } => note.clone(),
            _ => String::new(),
        };
        let limits = self.retry_limits(caller, overriding, &note_given)?;
        let (action, note) = req.into_parts(limits);
        check_note(&note)?;
        let resolution = Resolution {
            exception_id: id,
            action,
            note,
            actor: caller.actor(),
        };
        let policy = self.policy();
        Ok(self
            .store
            .writer()
            .write(move |tx| decisions::resolve(tx, &resolution, &policy))
            .await?)
    }
}

/// A note is kept in the audit log as written: line breaks and tabs are fine, other control
/// characters (a NUL would cut it short in the database) are refused.
fn check_note(note: &str) -> Result<(), ServiceError> {
    match note
        .chars()
        .position(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        None => Ok(()),
        Some(at) => Err(ServiceError::Invalid(vec![FieldError::new(
            "note",
            FieldCode::InvalidCharacter,
            format!("the note holds a control character at position {at}; write it in plain text"),
        )])),
    }
}
