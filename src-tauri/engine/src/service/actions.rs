//! The operator's actions: on a message (retry, cancel) and on an exception (resolve). Each is
//! audited with the note given.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Service, ServiceError};
use crate::apikeys::Caller;
use crate::dispatch::queue;
use crate::domain::DeliveryState;
use crate::intake::FieldError;
use crate::receipts::exceptions::{self, Action, Resolution};

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
    /// Send again what was not accepted (outcome unknown, or partly sent). When evidence says
    /// the network had the message (an accepted try or a receipt), `confirm_duplicate: true` is
    /// needed as well.
    Resend {
        note: String,
        #[serde(default)]
        confirm_duplicate: bool,
    },
    /// Settle the message as failed (outcome unknown).
    MarkFailed { note: String },
    /// Close it without changing anything.
    Dismiss { note: String },
}

impl ResolveRequest {
    /// The decision, and the note that goes with it.
    fn into_parts(self) -> (Action, String) {
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
            } => (Action::Resend { confirm_duplicate }, note),
            ResolveRequest::MarkFailed { note } => (Action::MarkFailed, note),
            ResolveRequest::Dismiss { note } => (Action::Dismiss, note),
        }
    }
}

impl Service {
    /// Sends a message again now (audited).
    pub async fn retry(&self, caller: &Caller, id: i64, a: MessageAction) -> Result<(), ServiceError> {
        check_note(&a.note)?;
        let actor = caller.actor();
        Ok(self
            .store
            .writer()
            .write(move |tx| queue::retry(tx, id, a.confirm_duplicate, &actor, &a.note))
            .await?)
    }

    /// Takes a message that has not been sent out of the queue (audited).
    pub async fn cancel(&self, caller: &Caller, id: i64, a: MessageAction) -> Result<(), ServiceError> {
        check_note(&a.note)?;
        let actor = caller.actor();
        Ok(self
            .store
            .writer()
            .write(move |tx| queue::cancel(tx, id, &actor, &a.note))
            .await?)
    }

    /// Applies an operator's decision to an exception (audited; the evidence is never changed).
    pub async fn resolve(&self, caller: &Caller, id: i64, req: ResolveRequest) -> Result<(), ServiceError> {
        let (action, note) = req.into_parts();
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
            .write(move |tx| exceptions::resolve(tx, &resolution, &policy))
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
        Some(at) => Err(ServiceError::Invalid(vec![FieldError {
            field: "note".into(),
            code: "invalid_character".into(),
            message: format!("the note holds a control character at position {at}; write it in plain text"),
        }])),
    }
}
