//! The Settings screen's connections and routes: each named connection's link settings (its
//! password kept in the secret store under its own name, never in the file), and the ordered
//! routes. A save rewrites `[connections.*]` and `[[routes]]` in smsdesk.toml, keeping every key of
//! a connection the screen does not edit (its id rules, retry codes, timeouts), and moves a
//! single `[smpp]` into `[connections.<name>]` the first time connections are saved. The loader
//! itself checks the result (a route naming an unknown connection, a bad prefix, two sandboxes)
//! before anything is written.

use serde::{Deserialize, Serialize};
use toml_edit::{value, Array, ArrayOfTables, DocumentMut, Item, Table};
use ts_rs::TS;

use super::credentials::{password_error, system_id_error};
use super::{field_error, SecretStore, Settings, SettingsError, SettingsSaved};
use crate::config::{self, BindModeSetting, Config, ConnectionSettings, SettingValue};
use crate::domain::MessageKind;
use crate::intake::FieldError;
use crate::said::FieldCode;

/// One connection as the screen edits it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct ConnectionEdit {
    /// Letters, digits, `-` and `_`: in routes, on every try and receipt.
    pub name: String,
    /// The embedded sandbox SMSC (no real SMS); the link keys below are then not used.
    pub sandbox: bool,
    pub host: String,
    pub port: u16,
    pub system_id: String,
    pub system_type: String,
    /// `transceiver`, or `transmitter_receiver`.
    pub bind_mode: String,
    /// Sending binds to open.
    pub binds: u32,
    /// Requests awaiting their answer at most, on each sending bind.
    pub window: u32,
    /// Submits per second at most, shared by its binds.
    pub tps: u32,
    /// The sender id its messages carry (empty: the provider's default).
    pub source_addr: String,
    /// A disabled connection binds nothing and takes nothing.
    pub enabled: bool,
    /// A new password (kept in the OS keyring or encrypted, never in the file); null keeps the
    /// one it has. Never sent back: `password_set` says whether one is kept.
    pub password: Option<String>,
    /// Whether a password is kept for it (in the file, the keyring or encrypted).
    pub password_set: bool,
    /// Over TLS (never in clear once set); the `tls_*` fields below apply then.
    #[serde(default)]
    pub tls: bool,
    /// PEM file of the authorities to trust; empty: the system's.
    #[serde(default)]
    pub tls_ca_file: String,
    /// The name the certificate must be for; empty: the host.
    #[serde(default)]
    pub tls_server_name: String,
    /// The SHA-256 of the provider's certificate (hex, colons allowed); empty: no pin.
    #[serde(default)]
    pub tls_pin_sha256: String,
    /// PEM files of the client certificate and its key; empty: none.
    #[serde(default)]
    pub tls_client_cert_file: String,
    #[serde(default)]
    pub tls_client_key_file: String,
}

/// One route as the screen edits it: which messages (every list set must match), and its
/// connections, the primary first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct RouteEdit {
    pub name: String,
    /// Destination prefixes, international (`+3361`).
    pub prefixes: Vec<String>,
    /// Destination countries (two-letter codes).
    pub countries: Vec<String>,
    pub kinds: Vec<MessageKind>,
    /// Names of the API keys whose messages it takes.
    pub api_keys: Vec<String>,
    pub connections: Vec<String>,
}

/// The connections and routes as saved, in the order they are listed and tried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct ConnectionsView {
    /// False while the one connection is `[smpp]` (its name is `smpp`, or `sandbox`): the first
    /// save moves it into `[connections.<name>]`.
    pub named: bool,
    pub connections: Vec<ConnectionEdit>,
    /// Empty: one route takes every message, to the enabled connections in their order.
    pub routes: Vec<RouteEdit>,
    /// Connections no route names: they bind and send nothing.
    pub unrouted: Vec<String>,
}

/// The whole list of connections and routes to save.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct ConnectionsUpdate {
    pub connections: Vec<ConnectionEdit>,
    pub routes: Vec<RouteEdit>,
}

/// The link keys the screen edits in a connection's table (the others are kept as they are).
const EDITED: &[&str] = &[
    "sandbox",
    "host",
    "port",
    "system_id",
    "system_type",
    "bind_mode",
    "binds",
    "window",
    "tps",
    "source_addr",
    "enabled",
    "tls",
    "tls_ca_file",
    "tls_server_name",
    "tls_pin_sha256",
    "tls_client_cert_file",
    "tls_client_key_file",
];

impl Settings {
    /// The connections and routes as saved.
    pub fn connections_view(&self) -> Result<ConnectionsView, SettingsError> {
        let text = self.read_file()?;
        let saved = config::from_sources(&self.file, &text, self.env.clone())?;
        self.connections_view_of(&text, &saved)
    }

    fn connections_view_of(&self, text: &str, saved: &Config) -> Result<ConnectionsView, SettingsError> {
        let named = !saved.connections.is_empty();
        let mut connections = Vec::new();
        for c in saved.connection_list() {
            let in_file = match named {
                true => sets_in_connection(text, &c.name, "password"),
                false => super::file::sets(text, "smpp", "password"),
            };
            let stored = self.connection_secrets(named, &c.name).password()?.is_some();
            connections.push(edit_of(&c, in_file || stored || !c.smpp.password.is_empty()));
        }
        let routes = saved
            .routes
            .iter()
            .map(|r| RouteEdit {
                name: r.name.clone(),
                prefixes: r.prefixes.clone(),
                countries: r.countries.clone(),
                kinds: r.kinds.clone(),
                api_keys: r.api_keys.clone(),
                connections: r.connections.clone(),
            })
            .collect();
        Ok(ConnectionsView {
            named,
            connections,
            routes,
            unrouted: saved.unrouted_connections(),
        })
    }

    /// Where a connection's password is kept: under its name once connections are named; the
    /// `[smpp]` one's where it always was.
    fn connection_secrets(&self, named: bool, name: &str) -> SecretStore {
        match named {
            true => self.secrets.for_connection(name),
            false => self.secrets.clone(),
        }
    }

    /// Saves the whole list of connections and routes (see the module documentation), keeps the
    /// passwords typed in the secret store, and puts the result into effect (the links bind
    /// again). Nothing is written when any field is invalid; the error names each one.
    pub async fn update_connections(&self, req: ConnectionsUpdate) -> Result<SettingsSaved, SettingsError> {
        let _one_at_a_time = self.writing.lock().await;
        let text = self.read_file()?;
        let saved = config::from_sources(&self.file, &text, self.env.clone())?;
        let errors = check(&req);
        if !errors.is_empty() {
            return Err(SettingsError::Invalid(errors));
        }
        let migrating = saved.connections.is_empty();
        let new_text = rewrite(&text, &req)
            .map_err(|e| SettingsError::Invalid(vec![field_error("connections", FieldCode::Invalid, e)]))?;
        // The loader must accept the result, or the next start would fail; its message names the key.
        let mut new_saved = config::from_sources(&self.file, &new_text, self.env.clone())
            .map_err(|e| SettingsError::Invalid(vec![field_error("connections", FieldCode::Invalid, e.to_string())]))?;
        for (i, c) in req.connections.iter().enumerate() {
            let store = self.secrets.for_connection(&c.name);
            match &c.password {
                Some(p) => store.set_password(p)?,
                // Moving `[smpp]` into a named table: its stored password goes with it.
                None if migrating && i == 0 => {
                    if let Some(p) = self.secrets.password()? {
                        store.set_password(&p)?;
                    }
                }
                None => {}
            }
        }
        if migrating {
            tracing::info!(
                connections = req.connections.len(),
                "the [smpp] section was moved into [connections.<name>] tables"
            );
        }
        super::file::write_atomic(&self.file, &new_text).map_err(|source| SettingsError::Io {
            path: self.file.clone(),
            source,
        })?;
        self.fill_passwords(&new_text, &mut new_saved)?;
        let reconnected = self.put_in_effect(&new_saved).await.reconnected;
        Ok(SettingsSaved {
            settings: self.view_of(&new_text, &new_saved)?,
            changes: Vec::new(),
            reconnected,
            generated_secrets: Vec::new(),
        })
    }

    /// Gives each named connection whose table sets no password the one kept for it.
    pub(super) fn fill_passwords(&self, text: &str, config: &mut Config) -> Result<(), SettingsError> {
        // The SMTP account's, set with `smsdesk smtp-password`, unless the file or the
        // environment sets one.
        let smtp_var = crate::config::env_var("smtp", "password");
        if !super::file::sets(text, "smtp", "password") && !self.env.iter().any(|(k, _)| *k == smtp_var) {
            if let Some(p) = self.secrets.for_smtp().password()? {
                config.smtp.password = p;
            }
        }
        for c in &mut config.connections {
            if !sets_in_connection(text, &c.name, "password") {
                if let Some(p) = self.secrets.for_connection(&c.name).password()? {
                    c.smpp.password = p;
                }
            }
        }
        Ok(())
    }
}

/// A connection as the screen shows it.
fn edit_of(c: &ConnectionSettings, password_set: bool) -> ConnectionEdit {
    ConnectionEdit {
        name: c.name.clone(),
        sandbox: c.smpp.sandbox,
        host: c.smpp.host.clone(),
        port: c.smpp.port,
        system_id: c.smpp.system_id.clone(),
        system_type: c.smpp.system_type.clone(),
        bind_mode: match c.smpp.bind_mode {
            BindModeSetting::Transceiver => "transceiver",
            BindModeSetting::TransmitterReceiver => "transmitter_receiver",
        }
        .into(),
        binds: c.smpp.binds.0,
        window: c.smpp.window.0,
        tps: c.smpp.tps.0,
        source_addr: c.smpp.source_addr.clone(),
        enabled: c.enabled,
        password: None,
        password_set,
        tls: c.smpp.tls,
        tls_ca_file: c.smpp.tls_ca_file.clone(),
        tls_server_name: c.smpp.tls_server_name.clone(),
        tls_pin_sha256: c.smpp.tls_pin_sha256.to_toml().trim_matches('"').to_owned(),
        tls_client_cert_file: c.smpp.tls_client_cert_file.clone(),
        tls_client_key_file: c.smpp.tls_client_key_file.clone(),
    }
}

/// What the loader cannot say by field: names, and passwords (which never reach the file).
fn check(req: &ConnectionsUpdate) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if req.connections.is_empty() {
        errors.push(field_error(
            "connections",
            FieldCode::Required,
            "at least one connection".into(),
        ));
    }
    for (i, c) in req.connections.iter().enumerate() {
        let field = format!("connections[{i}].name");
        if c.name.is_empty()
            || !c
                .name
                .chars()
                .all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_')
        {
            errors.push(field_error(
                &field,
                FieldCode::Invalid,
                "letters, digits, - and _ only".into(),
            ));
        } else if req.connections[..i].iter().any(|o| o.name == c.name) {
            errors.push(field_error(
                &field,
                FieldCode::Invalid,
                format!("{:?} is named twice", c.name),
            ));
        }
        if let Some(e) = c
            .password
            .as_deref()
            .and_then(|p| password_error(&format!("connections[{i}].password"), p))
        {
            errors.push(e);
        }
        if !c.sandbox {
            if let Some(e) = system_id_error(&format!("connections[{i}].system_id"), &c.system_id) {
                errors.push(e);
            }
        }
        if c.tls {
            if let Err(e) = config::Pin::from_env(&c.tls_pin_sha256) {
                errors.push(field_error(
                    &format!("connections[{i}].tls_pin_sha256"),
                    FieldCode::Invalid,
                    e,
                ));
            }
            if c.tls_client_cert_file.trim().is_empty() != c.tls_client_key_file.trim().is_empty() {
                errors.push(field_error(
                    &format!("connections[{i}].tls_client_key_file"),
                    FieldCode::Invalid,
                    "a client certificate needs both its file and its key's".into(),
                ));
            }
        }
    }
    for (i, r) in req.routes.iter().enumerate() {
        if r.connections.is_empty() {
            errors.push(field_error(
                &format!("routes[{i}].connections"),
                FieldCode::Required,
                "a route needs a connection".into(),
            ));
        }
        for name in &r.connections {
            if !req.connections.iter().any(|c| &c.name == name) {
                errors.push(field_error(
                    &format!("routes[{i}].connections"),
                    FieldCode::Invalid,
                    format!("no connection is named {name:?}"),
                ));
            }
        }
    }
    errors
}

/// The file's text with `[smpp]` gone, and `[connections.*]` and `[[routes]]` as `req` says.
fn rewrite(text: &str, req: &ConnectionsUpdate) -> Result<String, String> {
    let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| e.to_string())?;
    let old_smpp = doc.remove("smpp").and_then(|i| i.into_table().ok());
    let mut old = doc
        .remove("connections")
        .and_then(|i| i.into_table().ok())
        .unwrap_or_default();
    let mut connections = Table::new();
    connections.set_implicit(true);
    for (i, c) in req.connections.iter().enumerate() {
        // A connection keeps what the screen does not edit; the first one takes `[smpp]`'s.
        let mut table = match (old.remove(&c.name), &old_smpp) {
            (Some(Item::Table(t)), _) => t,
            (_, Some(smpp)) if i == 0 => smpp.clone(),
            _ => Table::new(),
        };
        set_link(&mut table, c);
        if c.password.is_some() {
            // Typed anew: kept in the secret store, which the file's would hide.
            table.remove("password");
        }
        connections.insert(&c.name, Item::Table(table));
    }
    doc.insert("connections", Item::Table(connections));
    doc.remove("routes");
    if !req.routes.is_empty() {
        let mut routes = ArrayOfTables::new();
        for r in &req.routes {
            routes.push(route_table(r));
        }
        doc.insert("routes", Item::ArrayOfTables(routes));
    }
    Ok(doc.to_string())
}

fn set_link(t: &mut Table, c: &ConnectionEdit) {
    for key in EDITED {
        t.remove(key);
    }
    t.insert("sandbox", value(c.sandbox));
    if !c.sandbox {
        t.insert("host", value(c.host.trim()));
        t.insert("port", value(i64::from(c.port)));
        t.insert("system_id", value(c.system_id.trim()));
        if !c.system_type.is_empty() {
            t.insert("system_type", value(c.system_type.trim()));
        }
        t.insert("bind_mode", value(c.bind_mode.as_str()));
        t.insert("binds", value(i64::from(c.binds)));
        t.insert("window", value(i64::from(c.window)));
        t.insert("tps", value(i64::from(c.tps)));
    }
    if !c.source_addr.is_empty() {
        t.insert("source_addr", value(c.source_addr.trim()));
    }
    if !c.enabled {
        t.insert("enabled", value(false));
    }
    if c.tls {
        t.insert("tls", value(true));
        for (key, text) in [
            ("tls_ca_file", &c.tls_ca_file),
            ("tls_server_name", &c.tls_server_name),
            ("tls_pin_sha256", &c.tls_pin_sha256),
            ("tls_client_cert_file", &c.tls_client_cert_file),
            ("tls_client_key_file", &c.tls_client_key_file),
        ] {
            if !text.trim().is_empty() {
                t.insert(key, value(text.trim()));
            }
        }
    }
}

fn route_table(r: &RouteEdit) -> Table {
    let list = |items: &[String]| Item::Value(items.iter().map(|s| s.trim()).collect::<Array>().into());
    let mut t = Table::new();
    t.insert("name", value(r.name.trim()));
    if !r.prefixes.is_empty() {
        t.insert("prefixes", list(&r.prefixes));
    }
    if !r.countries.is_empty() {
        t.insert("countries", list(&r.countries));
    }
    if !r.kinds.is_empty() {
        let kinds: Vec<String> = r.kinds.iter().map(|k| k.as_str().to_owned()).collect();
        t.insert("kinds", list(&kinds));
    }
    if !r.api_keys.is_empty() {
        t.insert("api_keys", list(&r.api_keys));
    }
    t.insert("connections", list(&r.connections));
    t
}

/// Whether `[connections.<name>]` in the file sets `key`.
fn sets_in_connection(text: &str, name: &str, key: &str) -> bool {
    text.parse::<DocumentMut>()
        .ok()
        .and_then(|d| d.get("connections")?.get(name)?.get(key).map(|_| ()))
        .is_some()
}
