//! How a refused request is answered: a status and an [`ApiError`] body with a stable code.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use smsdesk_engine::accounts::AccountError;
use smsdesk_engine::api::{ApiError, ErrorCode};
use smsdesk_engine::apikeys::KeyError;
use smsdesk_engine::decisions::ResolveError;
use smsdesk_engine::queue::ActionError;
use smsdesk_engine::service::ServiceError;
use smsdesk_engine::service::TemplateError;

/// Seconds a client is told to wait before sending again what a full disk refused.
pub const STORAGE_FULL_RETRY_AFTER_SECS: u64 = 30;

/// A refused request.
#[derive(Debug)]
pub struct Failure {
    pub status: StatusCode,
    pub body: ApiError,
    /// Seconds to wait before trying again, sent as `Retry-After`.
    pub retry_after: Option<u64>,
}

impl Failure {
    /// A refusal with `code`, answered with the status that code comes with.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Failure {
        Failure {
            status: StatusCode::from_u16(code.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            body: ApiError::new(code, message),
            retry_after: None,
        }
    }

    /// The same refusal, with when to try again.
    pub fn retry_after(mut self, seconds: u64) -> Failure {
        self.retry_after = Some(seconds);
        self
    }

    pub fn unauthorized(message: &str) -> Failure {
        Failure::new(ErrorCode::Unauthorized, message)
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let unauthorized = self.status == StatusCode::UNAUTHORIZED;
        let retry_after = self.retry_after;
        let storage_full = self.body.code == ErrorCode::StorageFull;
        let mut r = (self.status, Json(self.body)).into_response();
        if let Some(secs) = retry_after {
            r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if unauthorized {
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"smsdesk\""),
            );
        }
        if storage_full {
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(STORAGE_FULL_RETRY_AFTER_SECS));
        }
        r
    }
}

impl From<ServiceError> for Failure {
    fn from(e: ServiceError) -> Failure {
        use smsdesk_engine::views::{ExportError, ViewError};
        use ErrorCode as C;
        let message = e.to_string();
        if e.is_storage_full() {
            tracing::error!(error = %message, "request refused: the disk holding the database is full");
            return Failure::new(C::StorageFull, message);
        }
        let code = match &e {
            ServiceError::Invalid(errors) | ServiceError::OptedOut(errors) => {
                let code = if matches!(e, ServiceError::Invalid(_)) {
                    C::Invalid
                } else {
                    C::DestinationOptedOut
                };
                let mut f = Failure::new(code, describe(errors));
                f.body.errors = errors.clone();
                return f;
            }
            ServiceError::Refused(r) => return refusal(r, message),
            ServiceError::BadRequest(_) => C::BadRequest,
            ServiceError::NotNow(_) => C::NotAllowed,
            ServiceError::NotFound(_) => C::NotFound,
            ServiceError::InFlight => C::IdempotencyKeyInFlight,
            ServiceError::KeyReused => C::IdempotencyKeyReused,
            ServiceError::Forbidden(_) => C::Forbidden,
            ServiceError::NoWindow => C::NoWindow,
            ServiceError::Settings(smsdesk_engine::settings::SettingsError::Config(_)) => C::ConfigInvalid,
            ServiceError::Settings(_) => C::Internal,
            ServiceError::Action(ActionError::PermanentFailure { status, .. }) => {
                let mut f = Failure::new(C::PermanentFailureRetry, message);
                f.body.command_status = Some(status.clone());
                return f;
            }
            ServiceError::Action(a) => action(a),
            ServiceError::Resolve(r) => match r {
                ResolveError::NoteRequired => C::NoteRequired,
                ResolveError::NotFound(_) | ResolveError::MessageNotFound(_) => C::NotFound,
                ResolveError::NotOpen { .. } => C::NotOpen,
                ResolveError::NotAllowed { .. } => C::DecisionNotAllowed,
                ResolveError::MismatchesNotSeen { .. } => C::MismatchesNotSeen,
                ResolveError::Store(_) => C::Internal,
                ResolveError::Queue(a) => action(a),
            },
            ServiceError::Key(k) => key(k),
            ServiceError::View(v) | ServiceError::Export(ExportError::View(v)) => match v {
                ViewError::InvalidCursor { .. } => C::InvalidCursor,
                ViewError::InvalidFilter(_) => C::InvalidFilter,
                _ => C::Internal,
            },
            ServiceError::Export(ExportError::Cancelled) => C::Cancelled,
            ServiceError::Export(ExportError::Write(_)) => C::WriteFailed,
            ServiceError::Export(_) => C::Internal,
            ServiceError::Account(a) => match a {
                AccountError::Invalid(_) => C::Invalid,
                AccountError::NameTaken(_) => C::NameTaken,
                AccountError::NotFound(_) => C::NotFound,
                AccountError::LastAdmin(_) => C::LastAdmin,
                AccountError::Store(_) => C::Internal,
            },
            ServiceError::Template(TemplateError::NameTaken(_)) => C::NameTaken,
            ServiceError::Template(TemplateError::Store(_)) => C::Internal,
            ServiceError::SignInFailed(_) => C::Unauthorized,
            ServiceError::TooManyAttempts { .. } => C::TooManyAttempts,
            ServiceError::Busy { .. } => C::Busy,
            ServiceError::RateLimited { .. } => C::RateLimited,
            ServiceError::SetupTokenInvalid => C::SetupTokenInvalid,
            ServiceError::DestinationNotAllowed(_) => C::DestinationNotAllowed,
            ServiceError::NotSandbox => C::NotSandbox,
            ServiceError::Store(smsdesk_engine::StoreError::Closed) => C::Stopping,
            ServiceError::Store(_) => C::Internal,
        };
        let mut failure = Failure::new(code, message);
        failure.retry_after = retry_after(&e);
        if failure.status.is_server_error() {
            tracing::error!(error = %failure.body.message, "request failed");
        }
        failure
    }
}

/// A guardrail's refusal: its code, each message's error, and when to try again.
fn refusal(r: &smsdesk_engine::guardrails::Refusal, message: String) -> Failure {
    use smsdesk_engine::guardrails::GuardrailReason as G;
    let code = match r.reason {
        G::CountryNotAllowed | G::UnusualVolume => ErrorCode::CountryNotAllowed,
        G::VelocityLimit => ErrorCode::VelocityLimit,
        G::SpendLimit => ErrorCode::SpendLimit,
    };
    let mut f = Failure::new(code, message);
    f.body.errors = r.errors.clone();
    f.retry_after = r.retry_after_secs;
    f
}

/// When a refusal that passes with time may be tried again, in seconds.
fn retry_after(e: &ServiceError) -> Option<u64> {
    match e {
        ServiceError::TooManyAttempts { retry_after_secs }
        | ServiceError::Busy { retry_after_secs }
        | ServiceError::RateLimited { retry_after_secs, .. } => Some(*retry_after_secs),
        _ => None,
    }
}

/// An API key's refusal.
fn key(k: &KeyError) -> ErrorCode {
    match k {
        KeyError::BadName
        | KeyError::BadWebhook(_)
        | KeyError::NoScope
        | KeyError::BadPrefix(_)
        | KeyError::BadLimit
        | KeyError::BadCountry(_)
        | KeyError::BadAmount(_) => ErrorCode::Invalid,
        KeyError::NotFound(_) => ErrorCode::NotFound,
        KeyError::AlreadyRevoked(_) => ErrorCode::AlreadyRevoked,
        KeyError::Store(_) => ErrorCode::Internal,
    }
}

/// A queue action's refusal (also when resolving an exception acts on the queue).
fn action(a: &ActionError) -> ErrorCode {
    match a {
        ActionError::NotFound(_) => ErrorCode::NotFound,
        ActionError::NotAllowed(..) => ErrorCode::NotAllowed,
        ActionError::ConfirmationRequired(_) => ErrorCode::ConfirmationRequired,
        ActionError::ValidityEnded => ErrorCode::ValidityEnded,
        ActionError::TooOld { .. } => ErrorCode::TooOld,
        ActionError::AttemptsExhausted { .. } => ErrorCode::AttemptsExhausted,
        ActionError::OptedOut(_) => ErrorCode::DestinationOptedOut,
        ActionError::PermanentFailure { .. } => ErrorCode::PermanentFailureRetry,
        ActionError::Store(_) => ErrorCode::Internal,
    }
}

fn describe(errors: &[smsdesk_engine::intake::FieldError]) -> String {
    match errors {
        [one] => format!("{}: {}", one.field, one.message),
        _ => format!(
            "{} fields are invalid: {}",
            errors.len(),
            errors.iter().map(|e| e.field.as_str()).collect::<Vec<_>>().join(", ")
        ),
    }
}
