//! How a refused request is answered: a status and an [`ApiError`] body with a stable code.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use smsdesk_engine::api::ApiError;
use smsdesk_engine::apikeys::KeyError;
use smsdesk_engine::dispatch::queue::ActionError;
use smsdesk_engine::receipts::exceptions::ResolveError;
use smsdesk_engine::service::ServiceError;

/// A refused request.
#[derive(Debug)]
pub struct Failure {
    pub status: StatusCode,
    pub body: ApiError,
}

impl Failure {
    pub fn new(status: StatusCode, code: &str, message: impl Into<String>) -> Failure {
        Failure {
            status,
            body: ApiError::new(code, message),
        }
    }

    pub fn unauthorized(message: &str) -> Failure {
        Failure::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let unauthorized = self.status == StatusCode::UNAUTHORIZED;
        let mut r = (self.status, Json(self.body)).into_response();
        if unauthorized {
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"smsdesk\""),
            );
        }
        r
    }
}

impl From<ServiceError> for Failure {
    fn from(e: ServiceError) -> Failure {
        use StatusCode as S;
        let message = e.to_string();
        let (status, code) = match &e {
            ServiceError::Invalid(errors) => {
                let mut f = Failure::new(S::UNPROCESSABLE_ENTITY, "invalid", describe(errors));
                f.body.errors = errors.clone();
                return f;
            }
            ServiceError::BadRequest(_) => (S::BAD_REQUEST, "bad_request"),
            ServiceError::NotFound(_) => (S::NOT_FOUND, "not_found"),
            ServiceError::InFlight => (S::CONFLICT, "idempotency_key_in_flight"),
            ServiceError::KeyReused => (S::UNPROCESSABLE_ENTITY, "idempotency_key_reused"),
            ServiceError::Forbidden(_) => (S::FORBIDDEN, "forbidden"),
            ServiceError::NoWindow => (S::CONFLICT, "no_window"),
            ServiceError::Settings(smsdesk_engine::settings::SettingsError::Config(_)) => {
                (S::CONFLICT, "config_invalid")
            }
            ServiceError::Settings(_) => (S::INTERNAL_SERVER_ERROR, "internal"),
            ServiceError::Action(a) => match a {
                ActionError::NotFound(_) => (S::NOT_FOUND, "not_found"),
                ActionError::NotAllowed(..) => (S::CONFLICT, "not_allowed"),
                ActionError::ConfirmationRequired(_) => (S::CONFLICT, "confirmation_required"),
                ActionError::ValidityEnded => (S::CONFLICT, "validity_ended"),
                ActionError::Store(_) => (S::INTERNAL_SERVER_ERROR, "internal"),
            },
            ServiceError::Resolve(r) => match r {
                ResolveError::NoteRequired => (S::UNPROCESSABLE_ENTITY, "note_required"),
                ResolveError::NotFound(_) | ResolveError::MessageNotFound(_) => (S::NOT_FOUND, "not_found"),
                ResolveError::NotOpen { .. } => (S::CONFLICT, "not_open"),
                ResolveError::NotAllowed { .. } => (S::UNPROCESSABLE_ENTITY, "not_allowed"),
                ResolveError::MismatchesNotSeen { .. } => (S::CONFLICT, "mismatches_not_seen"),
                ResolveError::Queue(ActionError::Store(_)) | ResolveError::Store(_) => {
                    (S::INTERNAL_SERVER_ERROR, "internal")
                }
                ResolveError::Queue(_) => (S::CONFLICT, "not_allowed"),
            },
            ServiceError::Key(k) => match k {
                KeyError::BadName | KeyError::BadWebhook(_) => (S::UNPROCESSABLE_ENTITY, "invalid"),
                KeyError::NotFound(_) => (S::NOT_FOUND, "not_found"),
                KeyError::AlreadyRevoked(_) => (S::CONFLICT, "already_revoked"),
                KeyError::Store(_) => (S::INTERNAL_SERVER_ERROR, "internal"),
            },
            ServiceError::View(v) if v.is_client_error() => (S::UNPROCESSABLE_ENTITY, v.code()),
            ServiceError::View(_) => (S::INTERNAL_SERVER_ERROR, "internal"),
            ServiceError::Export(smsdesk_engine::views::ExportError::View(v)) if v.is_client_error() => {
                (S::UNPROCESSABLE_ENTITY, v.code())
            }
            ServiceError::Export(smsdesk_engine::views::ExportError::Cancelled) => (S::CONFLICT, "cancelled"),
            ServiceError::Export(x) => (S::INTERNAL_SERVER_ERROR, x.code()),
            ServiceError::Store(smsdesk_engine::store::StoreError::Closed) => (S::SERVICE_UNAVAILABLE, "stopping"),
            ServiceError::Store(_) => (S::INTERNAL_SERVER_ERROR, "internal"),
        };
        if status.is_server_error() {
            tracing::error!(error = %message, "request failed");
        }
        Failure::new(status, code, message)
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
