//! What every window command takes and answers: the engine (emptied on exit), and the HTTP API's
//! own error body.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use smsdesk_engine::api::{ApiError, AppInfo, ErrorCode};
use smsdesk_engine::service::{Service, ServiceError};
use smsdesk_engine::Engine;
use smsdesk_http::Failure;

/// The engine, as the window's commands reach it. Emptied on exit.
pub struct EngineState(Mutex<Option<Engine>>);

static UI_CONNECTED: AtomicBool = AtomicBool::new(false);

impl EngineState {
    pub fn new(engine: Engine) -> EngineState {
        EngineState(Mutex::new(Some(engine)))
    }

    fn with<T>(&self, f: impl FnOnce(&Engine) -> T) -> Result<T, ApiError> {
        if !UI_CONNECTED.swap(true, Ordering::Relaxed) {
            // The first command proves the window loaded the UI and reached the engine.
            tracing::info!("window UI connected");
        }
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(f)
            .ok_or_else(|| ApiError::new(ErrorCode::Stopping, "the engine has stopped"))
    }

    pub fn info(&self) -> Result<AppInfo, ApiError> {
        self.with(|e| e.info().clone())
    }

    /// The engine, taken out to be shut down (the window is closing).
    pub fn take(&self) -> Option<Engine> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// A handle on the engine's operations, taken out of the lock so a command can await it.
    pub fn service(&self) -> Result<Service, ApiError> {
        self.with(|e| e.service().clone())
    }
}

pub(crate) type Reply<T> = Result<T, ApiError>;

/// The same code and message the HTTP API would answer (the engine's own mapping, not a copy).
pub(crate) fn refused(e: ServiceError) -> ApiError {
    Failure::from(e).body
}

#[cfg(test)]
mod tests {
    use smsdesk_engine::intake::FieldError;
    use smsdesk_engine::queue::{ActionError, DuplicateRisk};
    use smsdesk_engine::said::FieldCode;

    use super::*;

    #[test]
    fn a_refusal_crosses_with_the_code_the_http_api_uses() {
        let e = refused(ServiceError::NotFound("message 7".into()));
        assert_eq!(
            (e.code.as_str(), e.message.as_str()),
            ("not_found", "message 7 not found"),
            "the window must see the same code as a browser would"
        );
        let e = refused(ServiceError::Action(ActionError::ConfirmationRequired(
            DuplicateRisk::Accepted,
        )));
        assert_eq!(
            e.code.as_str(),
            "confirmation_required",
            "a retry needing confirmation keeps its code"
        );
    }

    #[test]
    fn invalid_fields_cross_with_every_field_named() {
        let fields = vec![
            FieldError::new("destination", FieldCode::InvalidNumber, "not a phone number"),
            FieldError::new("text", FieldCode::Required, "a message needs a text"),
        ];
        let e = refused(ServiceError::Invalid(fields.clone()));
        assert_eq!(e.code.as_str(), "invalid");
        assert_eq!(
            e.errors, fields,
            "each invalid field must reach the UI with its own code"
        );
    }
}
