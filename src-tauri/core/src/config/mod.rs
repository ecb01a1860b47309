//! The configuration: `smsdesk.toml` in the data directory, created on first run with every
//! setting documented, each overridable by an environment variable `SMSDESK_<SECTION>_<KEY>`.
//!
//! Precedence, highest first: command-line flag (where one exists), environment variable, config
//! file, built-in default. A bad value is refused at start with the file (or variable), the key and
//! the reason; an unknown key is refused too, since a misspelt setting silently ignored is worse.

#[macro_use]
mod settings_macro;
mod alerting;
mod callbacks;
mod connections;
mod days;
mod guardrails;
mod hosts;
mod lists;
mod networks;
mod region;
mod routes;
mod settings;
mod store;
mod tls;
mod value;

use std::path::{Path, PathBuf};

pub use alerting::{Addresses, AlertLanguage, Hour, Percent, QuietHours, SmtpSecurity};
pub use callbacks::{CallbackProvider, CallbackProviders};
pub use connections::{DEFAULT_ROUTE, OVERRIDABLE};
pub use days::Days;
pub use guardrails::{Countries, Currency, Money, Price, Prices, ANY_COUNTRY, MICROS};
pub use hosts::HostNames;
pub use lists::{Kinds, Words};
pub use networks::{Network, Networks};
pub use region::Region;
pub use settings::*;
pub use store::{PgUrl, StoreBackend};
pub use tls::Pin;
pub use value::{
    AtLeastOne, BindCount, BindModeSetting, IdBase, LogFilter, OnUnknownOutcome, ReceiptRequest, SettingValue,
    SmppVersion, StatusCodes, TlvIdBase, UtcOffset,
};

/// The config file's name inside the data directory.
pub const FILE_NAME: &str = "smsdesk.toml";
/// Prefix of every environment override.
pub const ENV_PREFIX: &str = "SMSDESK_";

/// Why the configuration was refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {file}: {source}")]
    Read {
        file: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot create {file}: {source}")]
    Create {
        file: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{file} is not valid TOML: {message}")]
    Syntax { file: PathBuf, message: String },
    #[error("{file}: `{key}`: {reason}")]
    InFile { file: PathBuf, key: String, reason: String },
    #[error("environment variable {var} (setting `{key}`): {reason}")]
    InEnv { var: String, key: String, reason: String },
}

/// One documented setting.
#[derive(Debug, Clone, Copy)]
pub struct KeySpec {
    pub name: &'static str,
    pub doc: &'static str,
    pub kind: &'static str,
}

/// One documented section of the config file.
#[derive(Debug, Clone, Copy)]
pub struct SectionSpec {
    pub name: &'static str,
    pub doc: &'static str,
    pub keys: &'static [KeySpec],
}

/// The environment variable that overrides `section.key`.
pub fn env_var(section: &str, key: &str) -> String {
    format!(
        "{ENV_PREFIX}{}_{}",
        section.to_ascii_uppercase(),
        key.to_ascii_uppercase()
    )
}

/// Builds a config from the text of a config file and an environment.
pub fn from_sources(
    file: &Path,
    text: &str,
    env: impl IntoIterator<Item = (String, String)>,
) -> Result<Config, ConfigError> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| ConfigError::Syntax {
        file: file.into(),
        message: e.to_string(),
    })?;
    let mut config = Config::default();
    let in_file = |key: String, reason: String| ConfigError::InFile {
        file: file.into(),
        key,
        reason,
    };

    // Settings of earlier versions first, so that the ones that replaced them win when both are set.
    for (section_name, key, value) in table
        .iter()
        .filter_map(|(s, v)| Some((s, v.as_table()?)))
        .flat_map(|(s, keys)| keys.iter().map(move |(k, v)| (s, k, v)))
    {
        if let Some(read) = retired_setting(section_name, key) {
            let full = format!("{section_name}.{key}");
            read(&mut config, value).map_err(|reason| in_file(full.clone(), reason))?;
            tracing::warn!(setting = %full, file = %file.display(), "a setting of an earlier version, read into the settings that replaced it (see the manual, docs/admin/upgrades.md)");
        }
    }
    for (section_name, section_value) in &table {
        let read = match section_name.as_str() {
            "connections" => connections::read_connections(section_value).map(|c| config.connections = c),
            "routes" => connections::read_routes(section_value).map(|r| config.routes = r),
            _ => Ok(()),
        };
        read.map_err(|(key, reason)| in_file(key, reason))?;
        if section_name == "connections" || section_name == "routes" {
            continue;
        }
        let Some(section) = SECTIONS.iter().find(|s| s.name == section_name) else {
            return Err(in_file(
                section_name.clone(),
                format!(
                    "unknown section; known sections: {}, connections, routes",
                    section_names()
                ),
            ));
        };
        let Some(keys) = section_value.as_table() else {
            return Err(in_file(
                section_name.clone(),
                "must be a section ([name]), not a value".into(),
            ));
        };
        for (key, value) in keys {
            let full = format!("{section_name}.{key}");
            if retired_setting(section_name, key).is_some() {
                continue;
            }
            if !section.keys.iter().any(|k| k.name == key) {
                let known: Vec<_> = section.keys.iter().map(|k| k.name).collect();
                return Err(in_file(
                    full,
                    format!("unknown setting; [{section_name}] has: {}", known.join(", ")),
                ));
            }
            config
                .set_from_toml(section_name, key, value)
                .map_err(|reason| in_file(full, reason))?;
        }
    }

    let smpp_from_env = apply_env(&mut config, env)?;
    connections::check(&config, table.contains_key("smpp") || smpp_from_env)
        .map_err(|(key, reason)| in_file(key, reason))?;
    Ok(config)
}

/// Applies the environment's overrides (in order of their names); true when one set an `[smpp]`
/// key.
fn apply_env(config: &mut Config, env: impl IntoIterator<Item = (String, String)>) -> Result<bool, ConfigError> {
    let mut overrides: Vec<(String, String)> = env.into_iter().collect();
    overrides.sort();
    let mut smpp_set = false;
    for (var, value) in overrides {
        let Some((section, key)) = match_env_var(&var)? else {
            continue;
        };
        smpp_set |= section.name == "smpp";
        config
            .set_from_env(section.name, key.name, &value)
            .map_err(|reason| ConfigError::InEnv {
                var: var.clone(),
                key: format!("{}.{}", section.name, key.name),
                reason,
            })?;
    }
    Ok(smpp_set)
}

/// Maps `SMSDESK_HTTP_PORT` to (http, port). Variables that name a known section but no key in it
/// are refused (a typo); variables outside every section (such as SMSDESK_DATA_DIR) are not ours.
fn match_env_var(var: &str) -> Result<Option<(&'static SectionSpec, &'static KeySpec)>, ConfigError> {
    let Some(rest) = var.strip_prefix(ENV_PREFIX) else {
        return Ok(None);
    };
    // The longest section name first: SMSDESK_SMPP_SERVER_PORT is [smpp_server] port, not [smpp]
    // server_port.
    let mut sections: Vec<&'static SectionSpec> = SECTIONS.iter().collect();
    sections.sort_by_key(|s| std::cmp::Reverse(s.name.len()));
    for section in sections {
        let Some(key_part) = rest.strip_prefix(&format!("{}_", section.name.to_ascii_uppercase())) else {
            continue;
        };
        return match section.keys.iter().find(|k| k.name.eq_ignore_ascii_case(key_part)) {
            Some(key) => Ok(Some((section, key))),
            None => Err(ConfigError::InEnv {
                var: var.into(),
                key: format!("{}.{}", section.name, key_part.to_ascii_lowercase()),
                reason: format!(
                    "no such setting; [{}] has: {}",
                    section.name,
                    section
                        .keys
                        .iter()
                        .map(|k| env_var(section.name, k.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }),
        };
    }
    Ok(None)
}

/// How a setting earlier versions had is read into the settings that replaced it.
type Retired = fn(&mut Config, &toml::Value) -> Result<(), String>;

/// Settings of earlier versions that a config file may still hold.
fn retired_setting(section: &str, key: &str) -> Option<Retired> {
    match (section, key) {
        // Version 0.1's one receipt deadline, in hours, for every kind: now per kind, in minutes.
        // It keeps setting the transactional and bulk deadlines; a one-time code's is its own.
        ("receipts", "deadline_hours") => Some(|c, v| {
            let hours = AtLeastOne::from_toml(v)?;
            let minutes = AtLeastOne(hours.0.saturating_mul(60));
            c.receipts.transactional_deadline_minutes = minutes;
            c.receipts.bulk_deadline_minutes = minutes;
            Ok(())
        }),
        _ => None,
    }
}

fn section_names() -> String {
    SECTIONS.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
}

/// The documented config file written on first run: every setting, commented out at its default,
/// so that a later version's better default reaches users who never changed it.
pub fn template() -> String {
    let defaults = Config::default();
    let mut out = String::from(
        "# smsdesk configuration.\n\
         #\n\
         # Every setting is listed below at its default value, commented out. To change one, remove the\n\
         # leading `#` and edit the value; smsdesk reads this file at start and refuses to start on a bad\n\
         # value, naming the key and the reason.\n\
         #\n\
         # Each setting can also be set by an environment variable, which wins over this file:\n\
         # SMSDESK_<SECTION>_<KEY>, for example SMSDESK_HTTP_PORT=8471.\n",
    );
    for section in SECTIONS {
        out.push('\n');
        for line in section.doc.lines() {
            out.push_str(&format!("# {}\n", line.trim()).replace("# \n", "#\n"));
        }
        out.push_str(&format!("[{}]\n", section.name));
        for key in section.keys {
            out.push('\n');
            for line in key.doc.lines() {
                out.push_str(&format!("# {}\n", line.trim()).replace("# \n", "#\n"));
            }
            out.push_str(&format!(
                "# ({}; environment: {})\n",
                key.kind,
                env_var(section.name, key.name)
            ));
            let default = defaults.value_as_toml(section.name, key.name).unwrap_or_default();
            out.push_str(&format!("# {} = {}\n", key.name, default));
        }
    }
    out
}

#[cfg(test)]
mod tests;
