//! `smsdesk store copy`: the store `[store]` names, stopped and held, copied whole into a new
//! database of the other kind (see [`crate::store::copy`]).

use std::path::Path;

use super::store_at::{read_password_file, StoreAt};
use super::{EngineError, Prepared};
use crate::config::{PgUrl, SettingValue};
use crate::store::copy::{copy, Copied, Place};
use crate::store::PgTarget;

impl StoreAt {
    /// Where a copy goes: a `postgres://` address (without its password; the password read from
    /// `password_file`, which only its owner may read), or a SQLite file that does not exist yet.
    pub fn copy_to(to: &str, password_file: Option<&Path>) -> Result<StoreAt, EngineError> {
        let refused = |why: String| EngineError::StoreSetting(format!("--to: {why}"));
        if to.starts_with("postgres://") || to.starts_with("postgresql://") {
            let url = PgUrl::from_env(to).map_err(refused)?;
            let password = password_file.map(read_password_file).transpose().map_err(refused)?;
            let target = PgTarget::new(&url.0, password.as_deref()).map_err(|e| refused(e.to_string()))?;
            return Ok(StoreAt::Postgres(target));
        }
        let path = Path::new(to);
        if path.exists() {
            return Err(refused(format!(
                "{} exists: a copy goes into a new file only",
                path.display()
            )));
        }
        Ok(StoreAt::Sqlite(path.to_owned()))
    }

    fn place(&self) -> Place {
        match self {
            StoreAt::Sqlite(path) => Place::Sqlite(path.clone()),
            StoreAt::Postgres(target) => Place::Postgres(target.clone()),
        }
    }
}

impl Prepared {
    /// Copies the store `[store]` names into `to` (made to this build's schema first), holding the
    /// source meanwhile as a running smsdesk would: refused while one runs on it. `progress` hears
    /// each table and its rows. Blocking.
    pub fn copy_store(&self, to: &StoreAt, progress: impl FnMut(&str, u64)) -> Result<Copied, EngineError> {
        let from = self.store_at()?;
        if matches!((&from, to), (StoreAt::Sqlite(_), StoreAt::Sqlite(_))) {
            return Err(EngineError::StoreSetting(
                "both are SQLite files: `smsdesk backup FILE` copies one".into(),
            ));
        }
        let mut lock = self.lock_for(&from)?;
        let source = self.open_held(&from, &mut lock)?;
        let made = to.open(&self.backup_plan().dir).map(|s| s.shutdown());
        let copied = made
            .map_err(EngineError::from)
            .and_then(|()| copy(&from.place(), &to.place(), progress).map_err(EngineError::from));
        lock.release();
        source.shutdown();
        drop(lock);
        copied
    }
}
