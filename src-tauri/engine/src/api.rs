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
    pub data_dir: String,
    pub database_path: String,
    pub config_path: String,
    pub schema_version: u32,
    /// Where the HTTP server listens, when it runs.
    pub http_url: Option<String>,
    #[ts(type = "number")]
    pub started_at_ms: i64,
}

/// The answer of `GET /api/v1/health`: what a monitor needs to tell a working instance from one
/// that only answers HTTP.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    pub status: HealthStatus,
    pub version: String,
    pub schema_version: u32,
    pub writer: WriterHealth,
    /// The SMPP connection and its link now; `None` when there is none.
    pub connection: Option<crate::service::ConnectionStatus>,
    /// When the database's write-ahead log was last copied into the database file.
    #[ts(type = "number | null")]
    pub last_checkpoint_ms: Option<i64>,
}

/// The instance as a whole: `unavailable` (HTTP 503) when nothing it is given can be stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum HealthStatus {
    /// Storing and sending.
    Ok,
    /// Storing, but not sending: the SMPP link is not bound (messages wait in the queue).
    Degraded,
    /// The database writer does not answer: nothing new can be stored.
    Unavailable,
}

/// Whether the database writer takes work: it must run an empty operation within
/// [`WriterHealth::PROBE_TIMEOUT_MS`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WriterHealth {
    pub answered: bool,
    /// How long it took, when it answered.
    #[ts(type = "number | null")]
    pub answered_in_ms: Option<u64>,
    /// Why it did not answer, when it did not.
    pub error: Option<String>,
}

impl WriterHealth {
    /// How long the writer may take to run a health probe before it is reported stuck.
    pub const PROBE_TIMEOUT_MS: u64 = 2_000;
}

/// An error as the UI and API clients see it: a stable machine code to branch on, and a message
/// for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct ApiError {
    pub code: String,
    pub message: String,
    /// With code "invalid": every invalid field, each with its own code and message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<crate::intake::FieldError>>", optional)]
    pub errors: Vec<crate::intake::FieldError>,
}

impl ApiError {
    pub fn new(code: &str, message: impl Into<String>) -> ApiError {
        ApiError {
            code: code.into(),
            message: message.into(),
            errors: Vec::new(),
        }
    }
}
