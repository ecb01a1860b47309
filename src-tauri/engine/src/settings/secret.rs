//! Where the SMPP password set from the Settings screen is kept: the OS keyring (the Secret
//! Service) when one answers, otherwise encrypted at rest in the data directory with a random key
//! of its own. Never in smsdesk.toml, never in the audit log, never in an answer.
//!
//! The fallback is two files, both readable by their owner only: `secret.key` (32 random bytes)
//! and `smpp-password.enc` (a random nonce, then the password sealed with ChaCha20-Poly1305). A
//! copy of the config alone reveals nothing; the pair together is what a backup must protect.

use std::path::{Path, PathBuf};

use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The random key of the encrypted fallback, in the data directory.
pub const KEY_FILE: &str = "secret.key";
/// The sealed password, in the data directory.
pub const PASSWORD_FILE: &str = "smpp-password.enc";
const KEYRING_SERVICE: &str = "smsdesk";
const NONCE_LEN: usize = 12;

/// Where a secret is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SecretBackend {
    /// The OS keyring (Secret Service).
    Keyring,
    /// Encrypted in the data directory (no keyring answered).
    EncryptedFile,
}

/// Why a secret could not be read or kept.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error("the OS keyring refused: {0}")]
    Keyring(String),
    #[error("cannot use {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0} is damaged or was sealed with another key; set the password again")]
    Unreadable(PathBuf),
}

/// The place the SMPP password of one data directory is kept.
#[derive(Debug, Clone)]
pub struct SecretStore {
    backend: SecretBackend,
    dir: PathBuf,
    /// The keyring entry's user name: one per data directory, so two instances never share it.
    account: String,
    /// The sealed password's file in the data directory (the fallback).
    file: String,
}

impl SecretStore {
    /// The keyring when one answers (a missing entry is an answer), else the encrypted file.
    pub fn open(dir: &Path) -> SecretStore {
        let account = format!("smpp.password@{}", dir.display());
        let backend = match keyring::Entry::new(KEYRING_SERVICE, &account).and_then(|e| e.get_password()) {
            Ok(_) | Err(keyring::Error::NoEntry) => SecretBackend::Keyring,
            Err(e) => {
                tracing::debug!(error = %e, "no OS keyring; secrets are kept encrypted in the data directory");
                SecretBackend::EncryptedFile
            }
        };
        SecretStore {
            backend,
            dir: dir.to_owned(),
            account,
            file: PASSWORD_FILE.into(),
        }
    }

    /// Where the password of the named connection `name` is kept: beside this one, in an entry
    /// (and a sealed file) of its own.
    pub fn for_connection(&self, name: &str) -> SecretStore {
        SecretStore {
            backend: self.backend,
            dir: self.dir.clone(),
            account: format!("smpp.password.{name}@{}", self.dir.display()),
            file: format!("smpp-password.{name}.enc"),
        }
    }

    /// Where the SMTP account's password (alert e-mails) is kept: beside this one, in an entry
    /// (and a sealed file) of its own.
    pub fn for_smtp(&self) -> SecretStore {
        self.named("smtp")
    }

    /// Where the PostgreSQL store's password is kept (`smsdesk store-password`): beside this one,
    /// in an entry (and a sealed file) of its own.
    pub fn for_store(&self) -> SecretStore {
        self.named("store")
    }

    /// The entry `NAME.password@DIR`, sealed in `NAME-password.enc` where there is no keyring.
    fn named(&self, name: &str) -> SecretStore {
        SecretStore {
            backend: self.backend,
            dir: self.dir.clone(),
            account: format!("{name}.password@{}", self.dir.display()),
            file: format!("{name}-password.enc"),
        }
    }

    /// The encrypted file, whatever the machine offers (tests, and machines without a keyring).
    pub fn encrypted_file(dir: &Path) -> SecretStore {
        SecretStore {
            backend: SecretBackend::EncryptedFile,
            dir: dir.to_owned(),
            account: String::new(),
            file: PASSWORD_FILE.into(),
        }
    }

    pub fn backend(&self) -> SecretBackend {
        self.backend
    }

    /// The stored password, if one was set.
    pub fn password(&self) -> Result<Option<String>, SecretError> {
        match self.backend {
            SecretBackend::Keyring => match self.entry()?.get_password() {
                Ok(p) => Ok(Some(p)),
                Err(keyring::Error::NoEntry) => Ok(None),
                Err(e) => Err(SecretError::Keyring(e.to_string())),
            },
            SecretBackend::EncryptedFile => self.read_sealed(),
        }
    }

    /// Keeps `password`, replacing any earlier one; an empty one removes it.
    pub fn set_password(&self, password: &str) -> Result<(), SecretError> {
        if password.is_empty() {
            return self.clear();
        }
        match self.backend {
            SecretBackend::Keyring => self
                .entry()?
                .set_password(password)
                .map_err(|e| SecretError::Keyring(e.to_string())),
            SecretBackend::EncryptedFile => self.write_sealed(password),
        }
    }

    fn clear(&self) -> Result<(), SecretError> {
        match self.backend {
            SecretBackend::Keyring => match self.entry()?.delete_credential() {
                Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
                Err(e) => Err(SecretError::Keyring(e.to_string())),
            },
            SecretBackend::EncryptedFile => {
                let path = self.dir.join(&self.file);
                match std::fs::remove_file(&path) {
                    Ok(()) => Ok(()),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                    Err(source) => Err(SecretError::Io { path, source }),
                }
            }
        }
    }

    fn entry(&self) -> Result<keyring::Entry, SecretError> {
        keyring::Entry::new(KEYRING_SERVICE, &self.account).map_err(|e| SecretError::Keyring(e.to_string()))
    }

    fn read_sealed(&self) -> Result<Option<String>, SecretError> {
        let path = self.dir.join(&self.file);
        let sealed = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(SecretError::Io { path, source }),
        };
        let key_path = self.dir.join(KEY_FILE);
        let key = match std::fs::read(&key_path) {
            Ok(k) if k.len() == 32 => k,
            Ok(_) => return Err(SecretError::Unreadable(key_path)),
            Err(source) => return Err(SecretError::Io { path: key_path, source }),
        };
        if sealed.len() <= NONCE_LEN {
            return Err(SecretError::Unreadable(path));
        }
        let (nonce, body) = sealed.split_at(NONCE_LEN);
        let cipher = ChaCha20Poly1305::new(Key::from_slice(&key));
        let plain = cipher
            .decrypt(Nonce::from_slice(nonce), body)
            .map_err(|_| SecretError::Unreadable(path.clone()))?;
        String::from_utf8(plain)
            .map(Some)
            .map_err(|_| SecretError::Unreadable(path))
    }

    fn write_sealed(&self, password: &str) -> Result<(), SecretError> {
        let key = self.key()?;
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::fill(&mut nonce).expect("the system's random source works");
        let cipher = ChaCha20Poly1305::new(Key::from_slice(&key));
        let body = cipher
            .encrypt(Nonce::from_slice(&nonce), password.as_bytes())
            .expect("sealing a short text cannot fail");
        let mut sealed = nonce.to_vec();
        sealed.extend_from_slice(&body);
        write_private(&self.dir.join(&self.file), &sealed)
    }

    fn key(&self) -> Result<Vec<u8>, SecretError> {
        data_key(&self.dir)
    }
}

/// The data directory's key (`secret.key`, 32 random bytes readable by its owner only), made on
/// first use: it seals the SMPP password's fallback file and the database's sealed values.
pub(crate) fn data_key(dir: &Path) -> Result<Vec<u8>, SecretError> {
    let path = dir.join(KEY_FILE);
    match std::fs::read(&path) {
        Ok(k) if k.len() == 32 => return Ok(k),
        Ok(_) => return Err(SecretError::Unreadable(path)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => return Err(SecretError::Io { path, source }),
    }
    let mut key = [0u8; 32];
    getrandom::fill(&mut key).expect("the system's random source works");
    // Linked into place, never renamed over: a key another caller made meanwhile wins, since
    // what it sealed must stay readable.
    let made = dir.join(format!("{KEY_FILE}.new"));
    write_private(&made, &key)?;
    match std::fs::hard_link(&made, &path) {
        Ok(()) => {
            let _ = std::fs::remove_file(&made);
            Ok(key.to_vec())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let _ = std::fs::remove_file(&made);
            data_key(dir)
        }
        // A file system without hard links: renamed, as before.
        Err(_) => std::fs::rename(&made, &path)
            .map(|()| key.to_vec())
            .map_err(|source| SecretError::Io { path, source }),
    }
}

/// Writes a file readable by its owner only, atomically (a temp file renamed over it).
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> Result<(), SecretError> {
    use std::io::Write;
    let io = |source| SecretError::Io {
        path: path.to_owned(),
        source,
    };
    let tmp = path.with_extension("tmp");
    let _ = std::fs::remove_file(&tmp);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut f = options.open(&tmp).map_err(io)?;
    f.write_all(bytes).and_then(|()| f.sync_all()).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_encrypted_file_keeps_the_password_sealed_and_private() {
        let dir = tempfile::tempdir().unwrap();
        let store = SecretStore::encrypted_file(dir.path());
        assert_eq!(store.password().unwrap(), None, "nothing is set at first");
        store.set_password("s3cret-pässword").unwrap();
        assert_eq!(store.password().unwrap().as_deref(), Some("s3cret-pässword"));
        let sealed = std::fs::read(dir.path().join(PASSWORD_FILE)).unwrap();
        assert!(
            !sealed.windows(6).any(|w| w == b"s3cret"),
            "the password must never be on disk in clear"
        );
        #[cfg(unix)]
        for f in [KEY_FILE, PASSWORD_FILE] {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(f)).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{f} must be readable by its owner only");
        }
        // A second store on the same directory (the next start) reads it back.
        assert_eq!(
            SecretStore::encrypted_file(dir.path()).password().unwrap().as_deref(),
            Some("s3cret-pässword")
        );
        store.set_password("").unwrap();
        assert_eq!(store.password().unwrap(), None, "an empty password removes it");
    }

    #[test]
    fn a_sealed_password_under_another_key_is_refused_not_misread() {
        let dir = tempfile::tempdir().unwrap();
        let store = SecretStore::encrypted_file(dir.path());
        store.set_password("first").unwrap();
        std::fs::write(dir.path().join(KEY_FILE), [7u8; 32]).unwrap();
        assert!(matches!(store.password(), Err(SecretError::Unreadable(_))));
    }

    #[test]
    fn this_machine_has_no_keyring_so_the_store_falls_back_to_the_encrypted_file() {
        // Headless CI has no Secret Service on its session bus; where one answers, the keyring
        // is used instead, which this test then reports rather than fails.
        let dir = tempfile::tempdir().unwrap();
        let store = SecretStore::open(dir.path());
        if store.backend() == SecretBackend::EncryptedFile {
            store.set_password("fallback").unwrap();
            assert!(dir.path().join(PASSWORD_FILE).exists());
            assert_eq!(store.password().unwrap().as_deref(), Some("fallback"));
        } else {
            eprintln!("an OS keyring answered: the fallback is covered by the other tests");
        }
    }
}
