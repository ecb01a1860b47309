//! A settings update checked before anything is written: the configuration it would give, the
//! edits it makes to the file, the changes it reports, and every refused field.

use crate::said::FieldCode;
use std::collections::BTreeMap;

use super::catalog::{self, Applies, SettingKind};
use super::credentials::{password_error, system_id_error};
use super::types::{GeneratedSecret, ProviderEdit, SettingChange};
use super::{edit_text, field_error, file, lookup, providers, Settings};
use crate::config::Config;
use crate::intake::FieldError;

pub(super) struct Draft {
    /// The configuration with every accepted value in it.
    pub candidate: Config,
    pub errors: Vec<FieldError>,
    pub edits: Vec<file::Edit<'static>>,
    pub changes: Vec<SettingChange>,
    /// Secrets made for new callback providers, shown once.
    pub generated: Vec<GeneratedSecret>,
}

impl Draft {
    pub fn new(saved: &Config) -> Draft {
        Draft {
            candidate: saved.clone(),
            errors: Vec::new(),
            edits: Vec::new(),
            changes: Vec::new(),
            generated: Vec::new(),
        }
    }

    /// Plain values, `section.key` → text: each one known, editable here, not locked by the
    /// environment, and valid, or refused.
    pub fn values(&mut self, settings: &Settings, values: &BTreeMap<String, String>) {
        for (key, value) in values {
            if let Err(e) = self.value(settings, key, value) {
                self.errors.push(e);
            }
        }
    }

    fn value(&mut self, settings: &Settings, key: &str, value: &str) -> Result<(), FieldError> {
        let Some((section, spec)) = lookup(key) else {
            return Err(field_error(
                key,
                FieldCode::UnknownSetting,
                format!("there is no setting `{key}`"),
            ));
        };
        let entry = catalog::entry_for(section.name, spec.name, spec);
        if matches!(entry.kind, SettingKind::Password | SettingKind::Providers) {
            return Err(field_error(
                key,
                FieldCode::NotAValue,
                "set this with its own field (`password`, `callback_providers`)".into(),
            ));
        }
        if entry.read_only {
            return Err(field_error(
                key,
                FieldCode::ReadOnly,
                format!("`{key}` is changed in the config file only"),
            ));
        }
        if section.name == "smpp" && !self.candidate.connections.is_empty() {
            return Err(field_error(
                key,
                FieldCode::ReadOnly,
                "with [connections], each connection's settings are in its [connections.<name>] table of the config file".into(),
            ));
        }
        let before = self.candidate.value_as_toml(section.name, spec.name);
        if let Some(var) = settings.env_set(section.name, spec.name) {
            // The screen sends what it shows: an unchanged locked value is no edit.
            let mut same = self.candidate.clone();
            if same.set_from_env(section.name, spec.name, value).is_ok()
                && same.value_as_toml(section.name, spec.name) == before
            {
                return Ok(());
            }
            return Err(locked(key, &var));
        }
        if key == "smpp.system_id" {
            if let Some(e) = system_id_error(key, value) {
                return Err(e);
            }
        }
        self.candidate
            .set_from_env(section.name, spec.name, value)
            .map_err(|reason| field_error(key, invalid_code(key), reason))?;
        let after = self.candidate.value_as_toml(section.name, spec.name);
        if after != before {
            self.changes.push(SettingChange {
                key: key.to_owned(),
                from: before.as_deref().map(edit_text),
                to: after.as_deref().map(edit_text),
                secret: false,
                applies: entry.applies,
            });
            self.edits.push(file::Edit {
                section: section.name,
                key: spec.name,
                value: after,
            });
        }
        Ok(())
    }

    /// Refuses an address beyond this computer without `http.allow_network`: smsdesk would
    /// refuse to start with it.
    pub fn network_reach(&mut self) {
        if !self.candidate.http.bind.is_loopback() && !self.candidate.http.allow_network {
            self.errors.push(field_error(
                "http.bind",
                FieldCode::NeedsAllowNetwork,
                format!(
                    "{} is beyond this computer: set http.allow_network as well, or smsdesk will refuse to start",
                    self.candidate.http.bind
                ),
            ));
        }
    }

    /// The whole list of callback providers, replacing the `saved` ones.
    pub fn providers(&mut self, settings: &Settings, saved: &Config, list: &[ProviderEdit]) {
        if let Some(var) = settings.env_set("callbacks", "providers") {
            self.errors.push(locked("callbacks.providers", &var));
            return;
        }
        let (providers, mut errs, generated, changes) = providers::edit(&saved.callbacks.providers, list);
        if !errs.is_empty() {
            self.errors.append(&mut errs);
            return;
        }
        if changes.is_empty() {
            return;
        }
        self.generated = generated;
        self.changes.extend(changes);
        let toml = crate::config::SettingValue::to_toml(&providers);
        self.candidate.callbacks.providers = providers;
        self.edits.push(file::Edit {
            section: "callbacks",
            key: "providers",
            value: Some(toml),
        });
    }

    /// A new SMPP password: kept out of the file (`text`), where a clear one is removed.
    pub fn password(&mut self, settings: &Settings, text: &str, password: &str) {
        if let Some(var) = settings.env_set("smpp", "password") {
            self.errors.push(locked("smpp.password", &var));
            return;
        }
        if let Some(e) = password_error("smpp.password", password) {
            self.errors.push(e);
            return;
        }
        self.changes.push(SettingChange {
            key: "smpp.password".into(),
            from: None,
            to: None,
            secret: true,
            applies: Applies::Reconnect,
        });
        // Once set here, never in clear in the file.
        if file::sets(text, "smpp", "password") {
            self.edits.push(file::Edit {
                section: "smpp",
                key: "password",
                value: None,
            });
        }
    }
}

/// The code of a value its setting refuses: `unknown_country` for the office's country (a name
/// such as "France" where two letters are wanted), `invalid` for the others.
fn invalid_code(key: &str) -> FieldCode {
    match key {
        "intake.default_region" => FieldCode::UnknownCountry,
        _ => FieldCode::Invalid,
    }
}

/// A setting an environment variable decides.
fn locked(key: &str, var: &str) -> FieldError {
    field_error(
        key,
        FieldCode::LockedByEnvironment,
        format!("set by the environment variable {var}; change or remove it there"),
    )
}
