//! Why a request was refused.

use crate::accounts::AccountError;
use crate::apikeys::KeyError;
use crate::decisions::ResolveError;
use crate::intake::FieldError;
use crate::queue::ActionError;
use crate::settings::SettingsError;
pub use crate::store::tables::template::TemplateError;
use crate::store::StoreError;
use crate::views::{self, ViewError};

/// Why a request was refused. The edges (HTTP, IPC, CLI) turn each into their own answer; the
/// message is for people.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("the request has invalid fields")]
    Invalid(Vec<FieldError>),
    #[error("{0}")]
    BadRequest(String),
    /// Not allowed in the present state of what it names (an alert acknowledged or ended).
    #[error("{0}")]
    NotNow(String),
    #[error("{0} not found")]
    NotFound(String),
    #[error("a request with this Idempotency-Key is still being processed; try again in a moment")]
    InFlight,
    #[error("this Idempotency-Key was used with a different request; use a new key for a new request")]
    KeyReused,
    #[error("{0}")]
    Forbidden(String),
    #[error("this instance runs headless (smsdesk serve): it has no window to show")]
    NoWindow,
    #[error(transparent)]
    Settings(SettingsError),
    #[error(transparent)]
    Action(#[from] ActionError),
    #[error(transparent)]
    Resolve(#[from] ResolveError),
    #[error(transparent)]
    Key(#[from] KeyError),
    #[error(transparent)]
    View(#[from] ViewError),
    #[error(transparent)]
    Export(#[from] views::ExportError),
    #[error(transparent)]
    Account(AccountError),
    #[error(transparent)]
    Template(#[from] TemplateError),
    #[error("{0}")]
    SignInFailed(String),
    #[error("too many failed sign-ins for this account or from this address: try again in {retry_after_secs} s")]
    TooManyAttempts { retry_after_secs: u64 },
    #[error("every password check is taken by others: try again in {retry_after_secs} s")]
    Busy { retry_after_secs: u64 },
    #[error("this setup link is unknown, used or expired (or an account exists already): restart `smsdesk serve` for a new one, run `smsdesk user add NAME --role admin`, or sign in")]
    SetupTokenInvalid,
    #[error("{message}")]
    RateLimited { message: String, retry_after_secs: u64 },
    #[error("{0}")]
    DestinationNotAllowed(String),
    #[error("only the sandbox SMSC can play a handset: it is not the connection now (smpp.sandbox)")]
    NotSandbox,
    #[error("the destination is on the opt-out list")]
    OptedOut(Vec<FieldError>),
    #[error("{}", .0.message())]
    Refused(crate::guardrails::Refusal),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// An account's invalid fields are invalid fields like any other request's.
impl From<AccountError> for ServiceError {
    fn from(e: AccountError) -> ServiceError {
        match e {
            AccountError::Invalid(errors) => ServiceError::Invalid(errors),
            other => ServiceError::Account(other),
        }
    }
}

/// A number that cannot be searched: a refused filter, or a field error (`country_needed`).
impl From<views::NumberSearchError> for ServiceError {
    fn from(e: views::NumberSearchError) -> ServiceError {
        match e {
            views::NumberSearchError::Filter(v) => ServiceError::View(v),
            views::NumberSearchError::Field(f) => ServiceError::Invalid(vec![f]),
        }
    }
}

/// Invalid settings are invalid fields like any other request's; the rest stay settings errors.
impl From<SettingsError> for ServiceError {
    fn from(e: SettingsError) -> ServiceError {
        match e {
            SettingsError::Invalid(errors) => ServiceError::Invalid(errors),
            other => ServiceError::Settings(other),
        }
    }
}

impl ServiceError {
    /// Whether the request failed for want of room on the disk (SQLITE_FULL from the store, or
    /// ENOSPC writing the config file): nothing of it was stored, and the same request may
    /// succeed once there is room. The edges answer it as `storage_full` (HTTP 503, with
    /// `Retry-After`), never as an internal error.
    pub fn is_storage_full(&self) -> bool {
        use crate::views::ExportError;
        let store = match self {
            ServiceError::Store(e)
            | ServiceError::Action(ActionError::Store(e))
            | ServiceError::Resolve(ResolveError::Store(e))
            | ServiceError::Resolve(ResolveError::Queue(ActionError::Store(e)))
            | ServiceError::Key(KeyError::Store(e))
            | ServiceError::Template(TemplateError::Store(e))
            | ServiceError::View(ViewError::Store(e))
            | ServiceError::Export(ExportError::View(ViewError::Store(e))) => e,
            ServiceError::Settings(SettingsError::Io { source, .. }) => {
                return source.kind() == std::io::ErrorKind::StorageFull
            }
            _ => return false,
        };
        store.is_storage_full()
    }
}
