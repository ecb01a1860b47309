//! Where smsdesk keeps its files.

use std::path::{Path, PathBuf};

/// Environment variable naming the data directory (the `--data-dir` flag wins over it).
pub const DATA_DIR_ENV: &str = "SMSDESK_DATA_DIR";

/// Environment variable naming the config file when it is not the data directory's own (the
/// `--config` flag wins over it): `/etc/smsdesk/smsdesk.toml` for the packaged service.
pub const CONFIG_ENV: &str = "SMSDESK_CONFIG";

/// The platform's place for application data: `$XDG_DATA_HOME/smsdesk` (usually
/// `~/.local/share/smsdesk`) on Linux, `~/Library/Application Support/smsdesk` on macOS,
/// `%APPDATA%\smsdesk\data` on Windows.
pub fn default_data_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "smsdesk").map(|d| d.data_dir().to_owned())
}

/// The files inside one data directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataDir {
    root: PathBuf,
    /// The config file, when it lives outside the data directory.
    config: Option<PathBuf>,
}

impl DataDir {
    pub fn new(root: impl Into<PathBuf>) -> DataDir {
        DataDir {
            root: root.into(),
            config: None,
        }
    }

    /// The same data directory with its config read from (and saved to) `file`.
    pub fn with_config_file(self, file: Option<PathBuf>) -> DataDir {
        DataDir { config: file, ..self }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `smsdesk.toml` in the data directory, unless another file was given.
    pub fn config_file(&self) -> PathBuf {
        self.config
            .clone()
            .unwrap_or_else(|| self.root.join(crate::config::FILE_NAME))
    }

    pub fn logs(&self) -> PathBuf {
        self.root.join("logs")
    }

    /// Held while an instance runs, so that two processes never share one database.
    pub fn lock_file(&self) -> PathBuf {
        self.root.join("smsdesk.lock")
    }

    /// Written while an instance runs: its process id and HTTP address, for tools and tests.
    pub fn instance_file(&self) -> PathBuf {
        self.root.join("instance.json")
    }

    /// The database file: `database` from the config, inside the data directory unless absolute.
    pub fn database(&self, configured: &str) -> PathBuf {
        self.root.join(configured)
    }
}
