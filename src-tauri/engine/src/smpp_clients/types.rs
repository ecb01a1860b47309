//! What the SMPP server's accounts and sessions look like to the API, the command line and the UI.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::access::{KeyLimits, Scope};
use crate::domain::MessageKind;
use crate::smpp::session::BindRole;

/// What a new SMPP account needs. It is an API key with an SMPP password: its name is the
/// `system_id` a client binds with, and it has a key's scopes and limits.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(optional_fields = nullable)]
pub struct NewSmppAccount {
    /// The system_id: 1 to 15 letters, digits, `-`, `_` or `.`.
    pub name: String,
    /// Submits per second at most, for each of its sessions (10 when not given).
    #[serde(default)]
    pub tps: Option<u32>,
    /// Submits awaiting their answer at most, for each of its sessions (10 when not given).
    #[serde(default)]
    pub window: Option<u32>,
    /// The kinds it may send; the first is what a submit without a `service_type` is sent as
    /// (`transactional` alone when not given).
    #[serde(default)]
    pub kinds: Option<Vec<MessageKind>>,
    /// What it may do, as an API key's scopes: `send` and `read:own` when not given.
    #[serde(default)]
    pub scopes: Option<Vec<Scope>>,
    /// Limits on what it hands in, as an API key's.
    #[serde(default)]
    pub limits: KeyLimits,
}

/// An SMPP account, as lists show it (never its password).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SmppAccountInfo {
    /// Its API key's id.
    #[ts(type = "number")]
    pub id: i64,
    /// The system_id it binds with.
    pub name: String,
    pub tps: u32,
    pub window: u32,
    pub kinds: Vec<MessageKind>,
    pub scopes: Vec<Scope>,
    #[ts(type = "number")]
    pub created_at_ms: i64,
    pub created_by: String,
    #[ts(type = "number | null")]
    pub revoked_at_ms: Option<i64>,
}

/// A new account, or a new password: the only time the password can be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct CreatedSmppAccount {
    pub info: SmppAccountInfo,
    /// The bind's password: 8 characters (SMPP's limit). Not stored; cannot be shown again.
    pub password: String,
}

/// One client bound to smsdesk's SMPP server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SmppServerSession {
    /// Numbered from 1 since the server started.
    #[ts(type = "number")]
    pub id: u64,
    /// The account (system_id) it bound as.
    pub account: String,
    pub bind: BindRole,
    /// The client's address and port.
    pub peer: String,
    pub tls: bool,
    #[ts(type = "number")]
    pub since_ms: i64,
    /// Messages it handed in on this session.
    #[ts(type = "number")]
    pub submitted: u64,
    /// Submits refused on this session (throttled, invalid, opted out, over a limit).
    #[ts(type = "number")]
    pub refused: u64,
    /// Messages handed in per second, over the last 10 seconds.
    pub rate_per_s: f64,
    /// Receipts and replies it acknowledged on this session.
    #[ts(type = "number")]
    pub delivered: u64,
}

/// The SMPP server as the dashboard shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SmppServerStatus {
    /// `smpp_server.enabled`.
    pub enabled: bool,
    /// Where it listens (`address:port`), once it does.
    pub listening: Option<String>,
    pub tls: bool,
    /// Why it does not listen, when enabled and not listening (the port taken, a certificate
    /// that cannot be read).
    pub problem: Option<String>,
    pub sessions: Vec<SmppServerSession>,
    /// Receipts and replies waiting for their client to bind (or to answer).
    #[ts(type = "number")]
    pub waiting: i64,
}
