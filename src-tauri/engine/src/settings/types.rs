//! What the Settings screen reads and sends.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::catalog::{Applies, SettingKind};
use super::secret::SecretBackend;

/// Where a setting's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SettingSource {
    /// Nothing sets it: the built-in default.
    Default,
    /// smsdesk.toml.
    File,
    /// An environment variable (shown read-only: it wins over the file).
    Env,
    /// The OS keyring (the SMPP password only).
    Keyring,
    /// Encrypted in the data directory (the SMPP password only).
    EncryptedFile,
}

/// One setting as saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SettingField {
    /// `section.key`, as in smsdesk.toml.
    pub key: String,
    pub section: String,
    /// The saved value as text (as an environment variable would give it); empty for secrets.
    pub value: String,
    /// The built-in default, as text.
    pub default: String,
    pub kind: SettingKind,
    /// The allowed values of a `choice`.
    pub choices: Vec<String>,
    pub source: SettingSource,
    /// The environment variable that overrides it.
    pub env_var: String,
    /// False when an environment variable sets it, or it is changed in the file only.
    pub editable: bool,
    pub applies: Applies,
    /// Saved, but smsdesk still runs with the value it started with (applies at next start).
    pub pending_restart: bool,
    /// What it does (the config file's documentation).
    pub doc: String,
}

/// An HTTP provider allowed to post receipts; its secret is never shown again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct ProviderView {
    pub name: String,
    pub preset: Option<String>,
    pub connection: Option<String>,
    /// The secret's last four characters, to recognise it.
    pub secret_hint: String,
}

/// Every setting, as the Settings screen shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SettingsView {
    /// The config file these are saved in.
    pub config_file: String,
    pub fields: Vec<SettingField>,
    /// Whether an SMPP password is set (it is never shown).
    pub password_set: bool,
    /// Where a password set from this screen is kept.
    pub secret_store: SecretBackend,
    pub providers: Vec<ProviderView>,
    /// The built-in provider mappings a callback provider may use.
    pub presets: Vec<String>,
}

/// A callback provider as the screen sends it. The list given replaces the configured one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProviderEdit {
    pub name: String,
    /// A new secret (16 characters at least); `null` keeps the current one, or makes one for a
    /// new provider (shown once in the answer).
    #[serde(default)]
    pub secret: Option<String>,
    /// A built-in mapping; `null` uses the one named like the provider.
    #[serde(default)]
    pub preset: Option<String>,
    /// The connection whose message ids its reports carry; `null` for the SMPP connection's.
    #[serde(default)]
    pub connection: Option<String>,
}

/// Changes to save. Settings not named are left as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SettingsUpdate {
    /// `section.key` → the new value as text (`"smpp.tps": "25"`).
    #[serde(default)]
    #[ts(type = "Record<string, string>")]
    pub values: BTreeMap<String, String>,
    /// A new SMPP password (kept in the OS keyring, or encrypted); `""` removes it; `null` keeps it.
    #[serde(default)]
    pub password: Option<String>,
    /// The callback providers, all of them; `null` leaves them as they are.
    #[serde(default)]
    pub callback_providers: Option<Vec<ProviderEdit>>,
}

/// One saved change, as audited. Secrets appear as changed, never with a value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SettingChange {
    pub key: String,
    pub from: Option<String>,
    pub to: Option<String>,
    /// A secret changed (its values are not given).
    pub secret: bool,
    pub applies: Applies,
}

/// A secret smsdesk made for a new callback provider: shown in this answer only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct GeneratedSecret {
    pub provider: String,
    pub secret: String,
}

/// The answer to a save.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SettingsSaved {
    /// The settings now.
    pub settings: SettingsView,
    /// What changed (empty when nothing did).
    pub changes: Vec<SettingChange>,
    /// The SMPP link was unbound and bound again with the new connection settings.
    pub reconnected: bool,
    pub generated_secrets: Vec<GeneratedSecret>,
}

/// Connection settings to try, unsaved; what is not given is taken from the settings in effect.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ConnectionTest {
    /// The connection whose saved settings complete the test (`[connections.<name>]`); null: the
    /// first (`[smpp]` without named connections).
    #[serde(default)]
    pub connection: Option<String>,
    pub sandbox: Option<bool>,
    pub host: Option<String>,
    pub port: Option<u16>,
    pub system_id: Option<String>,
    /// `null` tries the saved password, but only against the saved server (its host, port and
    /// system_id): for another server, type its password.
    pub password: Option<String>,
    pub system_type: Option<String>,
    /// "3.4" or "5.0".
    pub interface_version: Option<String>,
    pub address_range: Option<String>,
    /// Over TLS; null: as saved. The saved password is never sent in clear to a server it is
    /// saved for over TLS.
    #[serde(default)]
    pub tls: Option<bool>,
    /// The name the certificate must be for; null: as saved (empty: the host).
    #[serde(default)]
    pub tls_server_name: Option<String>,
    /// PEM file of the authorities to trust; null: as saved (empty: the system's).
    #[serde(default)]
    pub tls_ca_file: Option<String>,
    /// The certificate's SHA-256 in hex; null: as saved (empty: no pin).
    #[serde(default)]
    pub tls_pin_sha256: Option<String>,
}

/// How a trial bind went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TestOutcome {
    /// Bound (and unbound again).
    Bound,
    /// The SMSC refused the bind; `status_name` says why.
    Refused,
    /// No connection could be made.
    Unreachable,
    /// Nothing answered in time.
    Timeout,
    /// Something else went wrong; `message` says what.
    Failed,
    /// TLS was asked for and the handshake failed (most often the certificate: `message` names
    /// the problem). Nothing was sent in clear.
    Tls,
}

/// The answer to a connection test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct ConnectionTestResult {
    pub outcome: TestOutcome,
    /// `host:port` tried.
    pub target: String,
    /// The bind's command_status when refused.
    pub status: Option<u32>,
    /// Its name (ESME_RINVPASWD, ...).
    pub status_name: Option<String>,
    /// For people.
    pub message: String,
    #[ts(type = "number")]
    pub elapsed_ms: u64,
}
