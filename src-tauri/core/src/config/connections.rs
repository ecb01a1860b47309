//! Named SMPP connections (`[connections.<name>]`) and the routes that choose among them
//! (`[[routes]]`).
//!
//! - A connection's table takes the keys of `[smpp]` (host, port, system_id, password, bind_mode,
//!   binds, window, tps, ...; `sandbox` is false unless set), `enabled`, and, over the values of their own sections, the receipt
//!   id rules of `[receipts]` ([`OVERRIDABLE`]) and the code lists of `[retry]`.
//! - Routes are tried in order and the first that matches a message wins. A route matches when
//!   every criterion it sets matches (destination prefixes, countries, kinds, API key names; any
//!   of a criterion's values). Its connections are the primary first, then the failover list.
//! - With no `[connections]`, `[smpp]` is the one connection, named `sandbox` while it is the
//!   embedded sandbox and `smpp` otherwise (the names stored rows of earlier versions carry).
//! - With no `[[routes]]`, one route takes every message: to the first enabled connection, then
//!   to the others in the order the file lists them.

use super::settings::{Config, ConnectionSettings, Route, RouteInput, SmppSettings};
use crate::domain::MessageKind;

/// The keys of `[receipts]` and `[retry]` a connection may set for itself.
pub const OVERRIDABLE: &[(&str, &str)] = &[
    ("receipts", "response_id"),
    ("receipts", "receipt_id"),
    ("receipts", "tlv_id"),
    ("receipts", "id_ignore_case"),
    ("receipts", "id_ignore_leading_zeros"),
    ("retry", "throttled_codes"),
    ("retry", "temporary_codes"),
    ("retry", "permanent_codes"),
];

/// The route used when the file lists none.
pub const DEFAULT_ROUTE: &str = "default";

impl Config {
    /// Every connection: the file's, or the one `[smpp]` makes (see the module documentation).
    pub fn connection_list(&self) -> Vec<ConnectionSettings> {
        if !self.connections.is_empty() {
            return self.connections.clone();
        }
        vec![ConnectionSettings {
            name: if self.smpp.sandbox { "sandbox" } else { "smpp" }.into(),
            enabled: true,
            smpp: self.smpp.clone(),
            overrides: Vec::new(),
        }]
    }

    /// The routes in the order they are tried: the file's, or the one default route.
    pub fn route_list(&self) -> Vec<Route> {
        if !self.routes.is_empty() {
            return self.routes.clone();
        }
        vec![Route {
            name: DEFAULT_ROUTE.into(),
            connections: self
                .connection_list()
                .into_iter()
                .filter(|c| c.enabled)
                .map(|c| c.name)
                .collect(),
            ..Route::default()
        }]
    }

    /// The settings as `connection` sees them: its `[smpp]` keys and its own receipt id rules and
    /// retry codes over the sections' values. `None` for a connection the settings do not have.
    pub fn for_connection(&self, connection: &str) -> Option<Config> {
        let c = self.connection_list().into_iter().find(|c| c.name == connection)?;
        let mut config = self.clone();
        config.smpp = c.smpp;
        for (section, key, value) in &c.overrides {
            // Checked when the file was read.
            let _ = config.set_from_toml(section, key, value);
        }
        Some(config)
    }

    /// The first route that takes `m`, if any.
    pub fn route_for(&self, m: &RouteInput<'_>) -> Option<Route> {
        self.route_list().into_iter().find(|r| r.matches(m))
    }

    /// Connections no route names (shown as a warning: they bind, and send nothing).
    pub fn unrouted_connections(&self) -> Vec<String> {
        let routes = self.route_list();
        self.connection_list()
            .into_iter()
            .map(|c| c.name)
            .filter(|n| !routes.iter().any(|r| r.connections.contains(n)))
            .collect()
    }
}

/// Reads `[connections.<name>]` tables, in the file's order.
pub(super) fn read_connections(value: &toml::Value) -> Result<Vec<ConnectionSettings>, (String, String)> {
    let table = value.as_table().ok_or_else(|| {
        (
            "connections".to_owned(),
            "must hold one [connections.<name>] table per connection".to_owned(),
        )
    })?;
    let mut out = Vec::new();
    for (name, keys) in table {
        let at = |key: &str| format!("connections.{name}.{key}");
        check_name(name).map_err(|reason| (format!("connections.{name}"), reason))?;
        let keys = keys.as_table().ok_or_else(|| {
            (
                format!("connections.{name}"),
                "must be a table ([connections.name])".to_owned(),
            )
        })?;
        let mut scratch = Config::default();
        // A named connection is a provider's unless it says `sandbox = true`.
        scratch.smpp.sandbox = false;
        let mut c = ConnectionSettings {
            name: name.clone(),
            enabled: true,
            smpp: SmppSettings::default(),
            overrides: Vec::new(),
        };
        for (key, value) in keys {
            if key == "enabled" {
                c.enabled = value
                    .as_bool()
                    .ok_or_else(|| (at(key), "expected true or false".to_owned()))?;
            } else if let Some(&(section, k)) = OVERRIDABLE.iter().find(|(_, k)| k == key) {
                scratch
                    .set_from_toml(section, k, value)
                    .map_err(|reason| (at(key), reason))?;
                c.overrides.push((section, k, value.clone()));
            } else if smpp_keys().any(|k| k == key) {
                scratch
                    .set_from_toml("smpp", key, value)
                    .map_err(|reason| (at(key), reason))?;
            } else {
                let mut known: Vec<&str> = vec!["enabled"];
                known.extend(smpp_keys());
                known.extend(OVERRIDABLE.iter().map(|(_, k)| *k));
                return Err((
                    at(key),
                    format!("unknown setting; a connection has: {}", known.join(", ")),
                ));
            }
        }
        c.smpp = scratch.smpp;
        out.push(c);
    }
    if out.iter().filter(|c| c.smpp.sandbox).count() > 1 {
        return Err((
            "connections".into(),
            "only one connection may be the embedded sandbox (sandbox = true)".into(),
        ));
    }
    Ok(out)
}

fn smpp_keys() -> impl Iterator<Item = &'static str> {
    super::SECTIONS
        .iter()
        .filter(|s| s.name == "smpp")
        .flat_map(|s| s.keys.iter().map(|k| k.name))
}

/// Every price is in the office's currency (`guardrails.currency`): spend adds them up.
fn check_currencies(config: &Config) -> Result<(), (String, String)> {
    let office = &config.guardrails.currency.0;
    for c in config.connection_list() {
        if let Some(p) = c
            .smpp
            .prices
            .0
            .iter()
            .find(|p| p.currency.as_ref().is_some_and(|x| x != office))
        {
            let key = match config.connections.is_empty() {
                true => "smpp.prices".to_owned(),
                false => format!("connections.{}.prices", c.name),
            };
            let currency = p.currency.as_deref().unwrap_or_default();
            return Err((
                key,
                format!(
                    "the price to {} is in {currency}, but spend is counted in {office} (guardrails.currency): \
                     give every price in {office}",
                    p.to
                ),
            ));
        }
    }
    Ok(())
}

/// A name for URLs, logs and stored rows.
fn check_name(name: &str) -> Result<(), String> {
    let ok = (1..=32).contains(&name.len()) && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    match ok {
        true => Ok(()),
        false => Err(format!("connection name `{name}`: 1 to 32 letters, digits, - or _")),
    }
}

/// Reads `[[routes]]`.
pub(super) fn read_routes(value: &toml::Value) -> Result<Vec<Route>, (String, String)> {
    let list = value
        .as_array()
        .ok_or_else(|| ("routes".to_owned(), "must be a list of [[routes]] tables".to_owned()))?;
    let mut out = Vec::new();
    for (i, entry) in list.iter().enumerate() {
        let at = |key: &str| format!("routes[{}].{key}", i + 1);
        let keys = entry
            .as_table()
            .ok_or_else(|| (format!("routes[{}]", i + 1), "must be a table ([[routes]])".to_owned()))?;
        let mut r = Route {
            name: format!("route {}", i + 1),
            ..Route::default()
        };
        for (key, value) in keys {
            let texts = || texts(value).map_err(|reason| (at(key), reason));
            match key.as_str() {
                "name" => {
                    r.name = value
                        .as_str()
                        .ok_or_else(|| (at(key), "expected text".to_owned()))?
                        .into()
                }
                "prefixes" => {
                    r.prefixes = texts()?
                        .into_iter()
                        .map(|p| prefix(&p))
                        .collect::<Result<_, _>>()
                        .map_err(|e| (at(key), e))?
                }
                "countries" => {
                    r.countries = texts()?
                        .into_iter()
                        .map(|c| country(&c))
                        .collect::<Result<_, _>>()
                        .map_err(|e| (at(key), e))?
                }
                "kinds" => {
                    r.kinds = texts()?
                        .into_iter()
                        .map(|k| kind(&k))
                        .collect::<Result<_, _>>()
                        .map_err(|e| (at(key), e))?
                }
                "api_keys" => r.api_keys = texts()?,
                "connections" => r.connections = texts()?,
                _ => {
                    return Err((
                        at(key),
                        "unknown setting; a route has: name, prefixes, countries, kinds, api_keys, connections".into(),
                    ))
                }
            }
        }
        if r.connections.is_empty() {
            return Err((at("connections"), "a route needs at least one connection".into()));
        }
        out.push(r);
    }
    Ok(out)
}

/// A list of texts, or one text.
fn texts(value: &toml::Value) -> Result<Vec<String>, String> {
    match value {
        toml::Value::String(s) => Ok(vec![s.trim().to_owned()]),
        toml::Value::Array(items) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(|s| s.trim().to_owned())
                    .ok_or_else(|| "expected a list of texts".to_owned())
            })
            .collect(),
        other => Err(format!("expected a list of texts, found {}", other.type_str())),
    }
}

fn prefix(p: &str) -> Result<String, String> {
    let digits = p.strip_prefix('+').unwrap_or("");
    match !digits.is_empty() && digits.len() <= 15 && digits.chars().all(|c| c.is_ascii_digit()) {
        true => Ok(p.to_owned()),
        false => Err(format!(
            "`{p}` is not a destination prefix in international form, such as \"+33\" or \"+3361\""
        )),
    }
}

fn country(c: &str) -> Result<String, String> {
    let code = c.to_ascii_uppercase();
    match code.parse::<phonenumber::country::Id>() {
        Ok(_) => Ok(code),
        Err(_) => Err(format!(
            "`{c}` is not a country code numbers are known for (two letters, such as FR)"
        )),
    }
}

fn kind(k: &str) -> Result<MessageKind, String> {
    k.to_ascii_lowercase()
        .parse()
        .map_err(|_| format!("`{k}` is not a kind: otp, transactional or bulk"))
}

/// What must hold between connections and routes once both are read.
pub(super) fn check(config: &Config, smpp_set: bool) -> Result<(), (String, String)> {
    if !config.connections.is_empty() && smpp_set {
        return Err((
            "smpp".into(),
            "[smpp] (or an SMSDESK_SMPP_ variable) is the one connection of earlier versions: with \
             [connections], set its keys in a [connections.<name>] table"
                .into(),
        ));
    }
    let names: Vec<String> = config.connection_list().into_iter().map(|c| c.name).collect();
    check_currencies(config)?;
    for (i, route) in config.routes.iter().enumerate() {
        for (j, c) in route.connections.iter().enumerate() {
            if !names.contains(c) {
                return Err((
                    format!("routes[{}].connections", i + 1),
                    format!("no connection `{c}`; the connections are: {}", names.join(", ")),
                ));
            }
            if route.connections[..j].contains(c) {
                return Err((
                    format!("routes[{}].connections", i + 1),
                    format!("`{c}` is listed twice"),
                ));
            }
        }
    }
    if config.connection_list().iter().all(|c| !c.enabled) {
        return Err((
            "connections".into(),
            "every connection is disabled: nothing could be sent".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
#[path = "connections_tests.rs"]
mod tests;
