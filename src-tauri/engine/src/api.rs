//! Types that cross from the engine to the UI (over Tauri IPC or HTTP). The TypeScript versions in
//! `ui/src/bindings/` are generated from these (see `bindings.rs`); a test fails when they drift.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// How this instance was started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum RunMode {
    /// The desktop window.
    Window,
    /// Headless `smsdesk serve`.
    Serve,
}

/// What the UI shows about the running instance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppInfo {
    pub product: String,
    pub version: String,
    pub mode: RunMode,
    /// Where the data lives: for admins only (absent for other callers, whom a server's paths
    /// would only help to attack it).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[ts(as = "Option<String>", optional)]
    #[schema(required = false)]
    pub data_dir: String,
    /// For admins only, as `data_dir`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[ts(as = "Option<String>", optional)]
    #[schema(required = false)]
    pub database_path: String,
    /// For admins only, as `data_dir`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[ts(as = "Option<String>", optional)]
    #[schema(required = false)]
    pub config_path: String,
    pub schema_version: u32,
    /// Where the HTTP server listens, when it runs.
    pub http_url: Option<String>,
    #[ts(type = "number")]
    pub started_at_ms: i64,
}

impl AppInfo {
    /// The same, without where the data lives: what a caller who is not an admin is told.
    pub fn without_paths(&self) -> AppInfo {
        AppInfo {
            data_dir: String::new(),
            database_path: String::new(),
            config_path: String::new(),
            ..self.clone()
        }
    }
}

/// An error as the UI and API clients see it: a stable machine code to branch on, and a message
/// for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    /// With code "invalid": every invalid field, each with its own code and message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<crate::intake::FieldError>>", optional)]
    pub errors: Vec<crate::intake::FieldError>,
    /// With code "permanent_failure_retry": the name of the SMSC's status the message's last try
    /// was refused with for good (`ESME_RINVDSTADR`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub command_status: Option<String>,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
            errors: Vec::new(),
            command_status: None,
        }
    }
}

macro_rules! error_codes {
    ($( $(#[doc = $doc:literal])+ $variant:ident = $text:tt, $status:literal; )+) => {
        /// Every code an answer of the engine can carry (HTTP and the window alike), with the HTTP
        /// status it comes with: one code, one status. Clients branch on these, never on messages.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS, utoipa::ToSchema)]
        pub enum ErrorCode {
            $( $(#[doc = $doc])+ #[serde(rename = $text)] $variant, )+
        }

        impl ErrorCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),+];

            /// The code as the wire spells it.
            pub const fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $text),+ }
            }

            /// The HTTP status an answer with this code has.
            pub const fn status(self) -> u16 {
                match self { $(ErrorCode::$variant => $status),+ }
            }

            /// What the code means, for the API's description.
            pub const fn meaning(self) -> &'static str {
                match self { $(ErrorCode::$variant => concat!($($doc),+)),+ }
            }
        }
    };
}

error_codes! {
    /// The request is malformed (a bad header, path or parameter).
    BadRequest = "bad_request", 400;
    /// The body is not valid JSON.
    BadJson = "bad_json", 400;
    /// No credential, or an unknown or revoked one.
    Unauthorized = "unauthorized", 401;
    /// The caller may not do this.
    Forbidden = "forbidden", 403;
    /// A state-changing request of a signed-in browser lacks its session's `X-CSRF-Token`.
    CsrfTokenMissing = "csrf_token_missing", 403;
    /// The setup link is unknown, used or expired: ask for a new one (`smsdesk user setup-link`).
    SetupTokenInvalid = "setup_token_invalid", 403;
    /// No such thing (or not one the caller may see).
    NotFound = "not_found", 404;
    /// No such callback provider is configured.
    UnknownProvider = "unknown_provider", 404;
    /// This build carries no UI.
    NoUi = "no_ui", 404;
    /// The route exists, but not with this method.
    MethodNotAllowed = "method_not_allowed", 405;
    /// The request did not arrive whole in time.
    RequestTimeout = "request_timeout", 408;
    /// A request with this Idempotency-Key is still being processed.
    IdempotencyKeyInFlight = "idempotency_key_in_flight", 409;
    /// Not allowed in the message's present state.
    NotAllowed = "not_allowed", 409;
    /// The message may arrive twice: the action needs `confirm_duplicate: true`.
    ConfirmationRequired = "confirmation_required", 409;
    /// The message's validity has ended: sending it now would be useless.
    ValidityEnded = "validity_ended", 409;
    /// The message's last try was refused for good by the SMSC (an invalid destination, a barred
    /// number), so sending it again will fail the same way; `command_status` names the status.
    /// The retry needs `confirm_permanent_failure: true`.
    PermanentFailureRetry = "permanent_failure_retry", 409;
    /// The exception is already resolved.
    NotOpen = "not_open", 409;
    /// Receipt text that disagrees with the message was not acknowledged.
    MismatchesNotSeen = "mismatches_not_seen", 409;
    /// The key was already revoked.
    AlreadyRevoked = "already_revoked", 409;
    /// An account, or a template, with this name exists already.
    NameTaken = "name_taken", 409;
    /// The last active admin cannot be removed, disabled or demoted.
    LastAdmin = "last_admin", 409;
    /// The message used up the attempts its kind allows (an admin may override, with a note).
    AttemptsExhausted = "attempts_exhausted", 409;
    /// The message is older than its kind's maximum age (an admin may override, with a note).
    TooOld = "too_old", 409;
    /// The instance runs headless: there is no window to show.
    NoWindow = "no_window", 409;
    /// Only the sandbox SMSC can do this, and it is not the connection now.
    NotSandbox = "not_sandbox", 409;
    /// The config file no longer loads: fix it before changing settings.
    ConfigInvalid = "config_invalid", 409;
    /// What was under way was cancelled.
    Cancelled = "cancelled", 409;
    /// The body is larger than this server accepts (`http.max_body_kib`).
    TooLarge = "too_large", 413;
    /// The request's address is longer than this server accepts.
    UriTooLong = "uri_too_long", 414;
    /// The `Host` is not one this server answers to (bound address or `http.allowed_hosts`).
    HostNotAllowed = "host_not_allowed", 421;
    /// Fields were refused; `errors` names each.
    Invalid = "invalid", 422;
    /// The Idempotency-Key was used before with another body.
    IdempotencyKeyReused = "idempotency_key_reused", 422;
    /// The decision needs a note.
    NoteRequired = "note_required", 422;
    /// The decision does not apply to this kind of exception.
    DecisionNotAllowed = "decision_not_allowed", 422;
    /// The key may not send to this destination (its allowed prefixes).
    DestinationNotAllowed = "destination_not_allowed", 422;
    /// The number opted out of this kind of message (it is on the opt-out list); `errors` names
    /// each such message of a batch.
    DestinationOptedOut = "destination_opted_out", 422;
    /// The number's country is not one the office (`guardrails.countries`,
    /// `guardrails.otp_countries`) or the API key sends this kind of message to; `errors` names
    /// each message and its country. Nothing was stored.
    CountryNotAllowed = "country_not_allowed", 422;
    /// A spend limit of the office or the API key (`guardrails.spend_day`, `spend_month`) would
    /// be passed; `errors` says which, with the amounts. Nothing was stored.
    SpendLimit = "spend_limit", 422;
    /// The cursor was not given out by this list.
    InvalidCursor = "invalid_cursor", 422;
    /// A filter value is invalid.
    InvalidFilter = "invalid_filter", 422;
    /// The key's message limit per minute or per day is reached; `Retry-After` says when to try again.
    RateLimited = "rate_limited", 429;
    /// A one-time code limit is reached (per number, per number prefix or per API key,
    /// `[guardrails]`); `Retry-After` says when one more fits. Nothing was stored.
    VelocityLimit = "velocity_limit", 429;
    /// Too many failed sign-ins for this account from this address (or for this account from
    /// many); `Retry-After` says when to try again.
    TooManyAttempts = "too_many_attempts", 429;
    /// This address has as many connections open (`http.max_connections_per_address`) as it may;
    /// `Retry-After` says when to try again.
    TooManyConnections = "too_many_connections", 429;
    /// Something failed on our side (logged).
    Internal = "internal", 500;
    /// The export file could not be written.
    WriteFailed = "write_failed", 500;
    /// The engine is stopping: try again once it runs.
    Stopping = "stopping", 503;
    /// Every password check is taken (sign-ins, password changes, at most as many at once as
    /// the server has cores): nothing was checked; try again after `Retry-After`.
    Busy = "busy", 503;
    /// The disk holding the database is full: nothing was stored; try again after `Retry-After`.
    StorageFull = "storage_full", 503;
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
