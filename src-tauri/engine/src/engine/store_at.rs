//! Where the store is, from `[store]`: the SQLite file in the data directory, or a PostgreSQL
//! database with its password from `store.password` (or SMSDESK_STORE_PASSWORD), the file
//! `store.password_file`, or the keyring (`smsdesk store-password`), in that order.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{EngineError, Prepared};
use crate::backups::BackupPlan;
use crate::config::{Config, StoreBackend};
use crate::instance::{InstanceError, InstanceLock};
use crate::nodes::NodeView;
use crate::paths::DataDir;
use crate::settings::SecretStore;
use crate::store::{PgTarget, Store, StoreError};

/// The store to open.
#[derive(Debug, Clone)]
pub enum StoreAt {
    Sqlite(PathBuf),
    Postgres(PgTarget),
}

impl StoreAt {
    /// Reads `[store]` of `config`, for the data directory `dir`.
    pub fn of(dir: &DataDir, config: &Config) -> Result<StoreAt, EngineError> {
        let store = &config.store;
        match store.backend {
            StoreBackend::Sqlite => Ok(StoreAt::Sqlite(dir.database(&store.database))),
            StoreBackend::Postgres => {
                if !store.url.is_set() {
                    return Err(refused(
                        "backend is \"postgres\" but url is empty: give the database's address, as in \
                         postgres://smsdesk@db.example.org/smsdesk",
                    ));
                }
                let password = password(dir, config)?;
                let target = PgTarget::new(&store.url.0, password.as_deref()).map_err(|e| refused(&e.to_string()))?;
                Ok(StoreAt::Postgres(target))
            }
        }
    }

    /// Where backups go and how long daily ones are kept (`[backup]`), for a file; none are
    /// taken of a PostgreSQL database (they are the server's).
    pub fn backup_plan(&self, root: &Path, config: &Config) -> BackupPlan {
        let plan = BackupPlan::new(root, config);
        match self {
            StoreAt::Sqlite(_) => plan,
            StoreAt::Postgres(_) => plan.on_server(),
        }
    }

    /// The SQLite file, when it is one.
    pub fn file(&self) -> Option<&Path> {
        match self {
            StoreAt::Sqlite(path) => Some(path),
            StoreAt::Postgres(_) => None,
        }
    }

    /// Opens it (migrating it; a SQLite file older than this build is first copied into
    /// `backups`). Blocking.
    pub fn open(&self, backups: &Path) -> Result<Store, StoreError> {
        match self {
            StoreAt::Sqlite(path) => Store::open_keeping_backups(path, backups),
            StoreAt::Postgres(target) => Store::open_postgres(target, smsdesk_core::time::Clock::system()),
        }
    }
}

impl Prepared {
    /// Where the store is, by `[store]`.
    pub fn store_at(&self) -> Result<StoreAt, EngineError> {
        StoreAt::of(&self.dir, &self.config)
    }

    /// The locks a process takes before it opens `at`: the data directory's, and a SQLite
    /// file's own (see [`InstanceLock::acquire`]). Blocking.
    pub fn lock_for(&self, at: &StoreAt) -> Result<InstanceLock, InstanceError> {
        lock_for(&self.dir, at)
    }

    /// For a command-line tool, after [`Prepared::lock_for`]: the store at `at` opened
    /// (migrated), its number key set, and this process recorded as its holder. Blocking.
    pub fn open_held(&self, at: &StoreAt, lock: &mut InstanceLock) -> Result<Arc<Store>, EngineError> {
        let store = Arc::new(at.open(&self.backup_plan().dir)?);
        store.set_reserve(u64::from(self.config.store.reserve_mib) << 20);
        let held = crate::privacy::set_number_key(&store, self.dir.root())
            .map_err(EngineError::from)
            .and_then(|()| lock.hold(&store).map_err(EngineError::from));
        if let Err(e) = held {
            store.shutdown();
            return Err(e);
        }
        Ok(store)
    }
}

/// [`Prepared::lock_for`], for the data directory `dir`.
pub(super) fn lock_for(dir: &DataDir, at: &StoreAt) -> Result<InstanceLock, InstanceError> {
    match at.file() {
        Some(db) => InstanceLock::acquire(dir, db),
        None => InstanceLock::acquire_dir(dir),
    }
}

fn refused(why: &str) -> EngineError {
    EngineError::StoreSetting(why.to_owned())
}

/// The PostgreSQL role's password, if one is given anywhere (none: the server may not ask).
fn password(dir: &DataDir, config: &Config) -> Result<Option<String>, EngineError> {
    let store = &config.store;
    if !store.password.is_empty() {
        return Ok(Some(store.password.clone()));
    }
    if !store.password_file.is_empty() {
        let path = dir.root().join(&store.password_file);
        return read_password_file(&path).map(Some).map_err(|why| refused(&why));
    }
    SecretStore::open(dir.root()).for_store().password().map_err(|e| {
        refused(&format!(
            "cannot read the password kept by `smsdesk store-password`: {e}"
        ))
    })
}

/// The first line of the file at `path`, which its owner alone may read (as PostgreSQL's own
/// client asks of a password file).
pub(super) fn read_password_file(path: &Path) -> Result<String, String> {
    let shown = path.display();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .map_err(|e| format!("password_file {shown}: {e}"))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            return Err(format!(
                "password_file {shown} may be read by others (mode {:o}): make it its owner's alone (chmod 600)",
                mode & 0o777
            ));
        }
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("password_file {shown}: {e}"))?;
    let line = text.lines().next().unwrap_or_default();
    if line.is_empty() {
        return Err(format!("password_file {shown} is empty"));
    }
    Ok(line.to_owned())
}

impl Prepared {
    /// The nodes recorded in the store `[store]` names, read without opening it for writing (and
    /// while nodes run): a read-only connection to a SQLite file (none yet: no node), or one
    /// session on PostgreSQL. Blocking.
    pub fn nodes(&self) -> Result<Vec<NodeView>, EngineError> {
        use crate::instance::stale_ms;
        use crate::nodes::{read, view};
        use crate::store::db::{Conn, PgConn};
        use crate::store::tables::node;
        let now = crate::clock::Clock::system().now_ms();
        match self.store_at()? {
            StoreAt::Sqlite(path) if !path.exists() => Ok(Vec::new()),
            StoreAt::Sqlite(path) => {
                let nodes = node::all_in_file(&path, now, stale_ms())?;
                Ok(nodes.into_iter().map(view).collect())
            }
            StoreAt::Postgres(target) => Ok(read(&Conn::Postgres(Box::new(PgConn::connect_to(&target)?)), now)?),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(f: impl FnOnce(&mut Config)) -> Config {
        let mut c = Config::default();
        f(&mut c);
        c
    }

    #[test]
    fn sqlite_is_the_default_and_a_file_of_the_data_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::new(tmp.path());
        let at = StoreAt::of(&dir, &Config::default()).unwrap();
        assert_eq!(at.file(), Some(dir.database("smsdesk.db").as_path()));
    }

    #[test]
    fn postgres_needs_an_address_and_takes_its_password_in_order() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::new(tmp.path());
        let pg = |c: &mut Config| c.store.backend = StoreBackend::Postgres;
        let said = StoreAt::of(&dir, &config(pg)).unwrap_err().to_string();
        assert!(said.contains("url is empty"), "{said}");

        let with_url = |c: &mut Config| {
            pg(c);
            c.store.url = crate::config::PgUrl("postgres://smsdesk@db.lan/sms".into());
        };
        let at = StoreAt::of(&dir, &config(with_url)).unwrap();
        assert!(at.file().is_none());
        assert!(
            format!("{at:?}").contains("postgres://smsdesk@db.lan:5432/sms"),
            "{at:?}"
        );

        // A file others may read is refused, saying why and never what it holds.
        let file = tmp.path().join("pg.pass");
        std::fs::write(&file, "from-the-file\nignored\n").unwrap();
        let from_file = |c: &mut Config| {
            with_url(c);
            c.store.password_file = "pg.pass".into();
        };
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
            let said = StoreAt::of(&dir, &config(from_file)).unwrap_err().to_string();
            assert!(said.contains("chmod 600") && !said.contains("from-the-file"), "{said}");
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        assert_eq!(
            password(&dir, &config(from_file)).unwrap().as_deref(),
            Some("from-the-file")
        );
        // The setting (or SMSDESK_STORE_PASSWORD) comes first.
        let both = |c: &mut Config| {
            from_file(c);
            c.store.password = "from-the-setting".into();
        };
        assert_eq!(
            password(&dir, &config(both)).unwrap().as_deref(),
            Some("from-the-setting")
        );
        // The keyring (or its sealed file) last.
        SecretStore::encrypted_file(tmp.path())
            .for_store()
            .set_password("kept")
            .unwrap();
        let kept = SecretStore::open(tmp.path()).for_store().password().unwrap();
        assert_eq!(password(&dir, &config(with_url)).unwrap(), kept);
    }
}
