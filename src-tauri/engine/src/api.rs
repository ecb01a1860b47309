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

/// The answer of `GET /api/v1/health`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    pub status: String,
    pub version: String,
    pub schema_version: u32,
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
