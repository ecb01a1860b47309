//! The Settings screen's engine side: the effective settings with where each comes from, edits
//! checked by the config loader's own parsers (every invalid field reported at once), written
//! into smsdesk.toml without disturbing the rest of it, and put into effect without a restart
//! where that is safe. The SMPP password set here is kept in the OS keyring, or encrypted in the
//! data directory, and is never shown, logged or written into the config.

mod catalog;
mod connections;
mod credentials;
mod file;
mod probe;
pub mod secret;
mod types;

use crate::said::FieldCode;
use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, OnceLock, RwLock, Weak};

pub use catalog::{Applies, SettingKind};
pub use connections::{ConnectionEdit, ConnectionsUpdate, ConnectionsView, RouteEdit};
pub use credentials::{MAX_PASSWORD_BYTES, MAX_SYSTEM_ID_BYTES};
pub use secret::{SecretBackend, SecretError, SecretStore};
pub use types::*;

use crate::config::{self, env_var, Config, ConfigError, KeySpec, SectionSpec, SECTIONS};
use crate::intake::FieldError;

/// Why settings could not be read or saved.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("the settings have invalid fields")]
    Invalid(Vec<FieldError>),
    /// The file on disk no longer loads (edited by hand since the start).
    #[error("{0}")]
    Config(#[from] ConfigError),
    #[error("cannot read or write {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Secret(#[from] SecretError),
    #[error("cannot start a sandbox SMSC for the test: {0}")]
    Sandbox(std::io::Error),
}

/// What puts a new configuration into effect in the running engine.
pub trait Apply: Send + Sync + 'static {
    /// Applies what may change while running; true when the SMPP link was re-bound.
    fn apply(&self, old: Arc<Config>, new: Arc<Config>) -> Pin<Box<dyn Future<Output = bool> + Send + '_>>;
    /// The embedded sandbox's address while it is the connection.
    fn sandbox_addr(&self) -> Option<SocketAddr>;
}

/// What re-reading the config file did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reloaded {
    /// Some setting that applies while running changed, and is in effect now.
    pub changed: bool,
    /// The SMPP link was re-bound for it.
    pub reconnected: bool,
    /// The file differs from what runs in settings that apply only at the next start.
    pub at_next_start: bool,
}

/// The settings of one data directory, as the running engine uses them.
pub struct Settings {
    file: PathBuf,
    env: Vec<(String, String)>,
    secrets: SecretStore,
    running: RwLock<Arc<Config>>,
    apply: OnceLock<Weak<dyn Apply>>,
    writing: tokio::sync::Mutex<()>,
}

impl Settings {
    /// Opens the settings of `dir` (whose config `config` was loaded from `file` and `env`), and
    /// returns the configuration to run with: the password comes from the secret store when
    /// neither the file nor the environment sets one.
    pub fn open(dir: &Path, file: PathBuf, env: Vec<(String, String)>, config: Config) -> (Settings, Config) {
        Self::with_store(SecretStore::open(dir), file, env, config)
    }

    /// The same, with a given secret store.
    pub fn with_store(
        secrets: SecretStore,
        file: PathBuf,
        env: Vec<(String, String)>,
        mut config: Config,
    ) -> (Settings, Config) {
        let env: Vec<_> = env
            .into_iter()
            .filter(|(k, _)| k.starts_with(config::ENV_PREFIX))
            .collect();
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        if !password_in(&text, &env) {
            match secrets.password() {
                Ok(Some(p)) => config.smpp.password = p,
                Ok(None) => {}
                Err(e) => tracing::error!(error = %e, "cannot read the stored SMPP password"),
            }
        }
        let settings = Settings {
            file,
            env,
            secrets,
            running: RwLock::new(Arc::new(config.clone())),
            apply: OnceLock::new(),
            writing: tokio::sync::Mutex::new(()),
        };
        if let Err(e) = settings.fill_passwords(&text, &mut config) {
            tracing::error!(error = %e, "cannot read a connection's stored SMPP password");
        }
        *settings.running.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(config.clone());
        (settings, config)
    }

    /// Lets saved changes reach the running engine (set once, after it started; the engine
    /// owns it, so a stopped engine is not kept alive by its settings).
    pub fn attach(&self, apply: Weak<dyn Apply>) {
        let _ = self.apply.set(apply);
    }

    /// The configuration in effect now.
    pub fn running(&self) -> Arc<Config> {
        self.running.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn env_set(&self, section: &str, key: &str) -> Option<String> {
        let var = env_var(section, key);
        self.env.iter().any(|(k, _)| *k == var).then_some(var)
    }

    fn read_file(&self) -> Result<String, SettingsError> {
        std::fs::read_to_string(&self.file).map_err(|source| SettingsError::Io {
            path: self.file.clone(),
            source,
        })
    }

    /// Every setting as saved, where it comes from, and when a change to it applies.
    pub fn view(&self) -> Result<SettingsView, SettingsError> {
        let text = self.read_file()?;
        let saved = config::from_sources(&self.file, &text, self.env.clone())?;
        self.view_of(&text, &saved)
    }

    fn view_of(&self, text: &str, saved: &Config) -> Result<SettingsView, SettingsError> {
        let running = self.running();
        let defaults = Config::default();
        let stored_password = self.secrets.password()?;
        let mut fields = Vec::new();
        for section in SECTIONS {
            for spec in section.keys {
                let entry = catalog::entry_for(section.name, spec.name, spec);
                let env = self.env_set(section.name, spec.name);
                let in_file = file::sets(text, section.name, spec.name);
                let mut source = match (&env, in_file) {
                    (Some(_), _) => SettingSource::Env,
                    (None, true) => SettingSource::File,
                    (None, false) => SettingSource::Default,
                };
                let secretish = matches!(entry.kind, SettingKind::Password | SettingKind::Providers);
                // The SMPP password's store (the SMTP account's has its own, set from the command line).
                let smpp_password = (section.name, spec.name) == ("smpp", "password");
                if smpp_password && source == SettingSource::Default && stored_password.is_some() {
                    source = match self.secrets.backend() {
                        SecretBackend::Keyring => SettingSource::Keyring,
                        SecretBackend::EncryptedFile => SettingSource::EncryptedFile,
                    };
                }
                let value_of = |c: &Config| c.value_as_toml(section.name, spec.name).unwrap_or_default();
                fields.push(SettingField {
                    key: format!("{}.{}", section.name, spec.name),
                    section: section.name.into(),
                    value: if secretish {
                        String::new()
                    } else {
                        edit_text(&value_of(saved))
                    },
                    default: if secretish {
                        String::new()
                    } else {
                        edit_text(&value_of(&defaults))
                    },
                    kind: entry.kind,
                    choices: entry.choices.iter().map(|c| (*c).to_owned()).collect(),
                    source,
                    env_var: env_var(section.name, spec.name),
                    // With [connections], [smpp] is not in force: each connection is edited in its table.
                    editable: env.is_none()
                        && !entry.read_only
                        && (section.name != "smpp" || saved.connections.is_empty()),
                    applies: entry.applies,
                    pending_restart: entry.applies == Applies::Restart && value_of(saved) != value_of(&running),
                    doc: spec.doc.split_whitespace().collect::<Vec<_>>().join(" "),
                });
            }
        }
        let providers = saved
            .callbacks
            .providers
            .0
            .iter()
            .map(|(name, p)| ProviderView {
                name: name.clone(),
                preset: p.preset.clone(),
                connection: p.connection.clone(),
                secret_hint: hint(&p.secret),
            })
            .collect();
        Ok(SettingsView {
            config_file: self.file.display().to_string(),
            fields,
            password_set: !saved.smpp.password.is_empty() || stored_password.is_some(),
            secret_store: self.secrets.backend(),
            providers,
            presets: crate::receipts::parse::BUILTIN_PROVIDERS
                .iter()
                .map(|p| (*p).to_owned())
                .collect(),
        })
    }

    /// Checks every edit with the loader's own parsers, writes the file, keeps the password in
    /// the secret store, and applies what may change while running. Nothing is written when any
    /// field is invalid; the error names each one.
    pub async fn update(&self, req: SettingsUpdate) -> Result<SettingsSaved, SettingsError> {
        let _one_at_a_time = self.writing.lock().await;
        let text = self.read_file()?;
        let saved = config::from_sources(&self.file, &text, self.env.clone())?;
        let mut draft = Draft::new(&saved);
        draft.values(self, &req.values);
        draft.network_reach();
        if let Some(list) = &req.callback_providers {
            draft.providers(self, &saved, list);
        }
        if let Some(password) = &req.password {
            draft.password(self, &text, password);
        }
        let Draft {
            errors,
            edits,
            changes,
            generated,
            ..
        } = draft;
        if !errors.is_empty() {
            return Err(SettingsError::Invalid(errors));
        }
        if changes.is_empty() {
            return Ok(SettingsSaved {
                settings: self.view_of(&text, &saved)?,
                changes,
                reconnected: false,
                generated_secrets: Vec::new(),
            });
        }

        let new_text = file::apply(&text, &edits)
            .map_err(|e| SettingsError::Invalid(vec![field_error("settings", FieldCode::Invalid, e)]))?;
        // The loader itself must accept the result, or the next start would fail.
        let mut new_saved = config::from_sources(&self.file, &new_text, self.env.clone())?;
        if let Some(password) = &req.password {
            self.secrets.set_password(password)?;
        }
        if new_text != text {
            file::write_atomic(&self.file, &new_text).map_err(|source| SettingsError::Io {
                path: self.file.clone(),
                source,
            })?;
        }
        if !password_in(&new_text, &self.env) {
            new_saved.smpp.password = self.secrets.password()?.unwrap_or_default();
        }
        self.fill_passwords(&new_text, &mut new_saved)?;

        let reconnected = self.put_in_effect(&new_saved).await.reconnected;
        Ok(SettingsSaved {
            settings: self.view_of(&new_text, &new_saved)?,
            changes,
            reconnected,
            generated_secrets: generated,
        })
    }

    /// Reads the config file again (edited by hand; `systemctl reload`, SIGHUP) and puts into
    /// effect what may change while running, as a save from the Settings screen would. A file
    /// that no longer loads changes nothing: the error says why, and the engine runs on as it was.
    pub async fn reload(&self) -> Result<Reloaded, SettingsError> {
        let _one_at_a_time = self.writing.lock().await;
        let text = self.read_file()?;
        let mut saved = config::from_sources(&self.file, &text, self.env.clone())?;
        if !password_in(&text, &self.env) {
            saved.smpp.password = self.secrets.password()?.unwrap_or_default();
        }
        self.fill_passwords(&text, &mut saved)?;
        Ok(self.put_in_effect(&saved).await)
    }

    /// Runs with the live part of `saved` from now on (the rest waits for the next start).
    async fn put_in_effect(&self, saved: &Config) -> Reloaded {
        let old = self.running();
        let new = Arc::new(live_part(&old, saved));
        *self.running.write().unwrap_or_else(|p| p.into_inner()) = new.clone();
        let changed = *old != *new;
        let at_next_start = *new != *saved;
        let reconnected = match self.apply.get().and_then(Weak::upgrade) {
            Some(a) if changed => a.apply(old, new).await,
            _ => false,
        };
        Reloaded {
            changed,
            reconnected,
            at_next_start,
        }
    }

    /// Binds once with the given (unsaved) connection settings, completed from the saved ones,
    /// and unbinds: bound, refused (with the status's name), unreachable, or no answer in time.
    pub async fn test_connection(&self, t: ConnectionTest) -> Result<ConnectionTestResult, SettingsError> {
        let running = self.running();
        let sandbox_addr = self.apply.get().and_then(Weak::upgrade).and_then(|a| a.sandbox_addr());
        // A named connection's test is completed from its own saved settings.
        let saved = match &t.connection {
            Some(name) => running.for_connection(name).ok_or_else(|| {
                SettingsError::Invalid(vec![field_error(
                    "connection",
                    FieldCode::Invalid,
                    format!("no connection is named {name:?}"),
                )])
            })?,
            None => (*running).clone(),
        };
        probe::run(&saved.smpp, t, sandbox_addr).await
    }
}

mod draft;
mod providers;

use draft::Draft;

/// The configuration to run with after a save: everything that may change while running from
/// `saved`, the rest (the HTTP listener, webhooks, logging, the database) as it started.
fn live_part(running: &Config, saved: &Config) -> Config {
    Config {
        http: running.http.clone(),
        webhooks: running.webhooks.clone(),
        log: running.log.clone(),
        store: running.store.clone(),
        ..saved.clone()
    }
}

/// Whether the file or the environment sets the password (then the secret store is not read).
fn password_in(text: &str, env: &[(String, String)]) -> bool {
    let var = env_var("smpp", "password");
    file::sets(text, "smpp", "password") || env.iter().any(|(k, _)| *k == var)
}

fn lookup(key: &str) -> Option<(&'static SectionSpec, &'static KeySpec)> {
    let (s, k) = key.split_once('.')?;
    let section = SECTIONS.iter().find(|x| x.name == s)?;
    section.keys.iter().find(|x| x.name == k).map(|spec| (section, spec))
}

pub(crate) fn field_error(field: &str, code: FieldCode, message: String) -> FieldError {
    FieldError::new(field, code, message)
}

/// A value as the screen edits it (and as an environment variable would give it): text without
/// TOML's quotes.
fn edit_text(toml: &str) -> String {
    match toml.parse::<toml_edit::Value>() {
        Ok(toml_edit::Value::String(s)) => s.value().clone(),
        // A list of words is edited as the environment variable takes it: separated by commas.
        Ok(toml_edit::Value::Array(a)) if a.iter().all(|v| v.as_str().is_some()) => {
            a.iter().filter_map(|v| v.as_str()).collect::<Vec<_>>().join(", ")
        }
        _ => toml.trim().to_owned(),
    }
}

/// The last four characters of a secret, for recognising it; never more.
fn hint(secret: &str) -> String {
    format!("…{}", smsdesk_core::redact::last_chars(secret, 4))
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod reload_tests;

#[cfg(test)]
mod connections_tests;
