//! API keys as the API lists them. (Making and checking keys is the engine's; storing them the
//! store's.)

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::access::{KeyLimits, Scope};

/// A key as lists show it (never the key itself).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct ApiKeyInfo {
    #[ts(type = "number")]
    pub id: i64,
    pub name: String,
    /// The key's first characters.
    pub prefix: String,
    #[ts(type = "number")]
    pub created_at_ms: i64,
    pub created_by: String,
    #[ts(type = "number | null")]
    pub revoked_at_ms: Option<i64>,
    pub webhook_url: Option<String>,
    /// What it may do.
    pub scopes: Vec<Scope>,
    /// What it may hand in.
    pub limits: KeyLimits,
}
