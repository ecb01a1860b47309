//! The database's backups as the engine takes them: where they go (`backup.dir`), the daily one and
//! how long it is kept (`backup.keep_days`), and what the dashboard says about them. The copy
//! itself is the store's ([`crate::store::backup`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use crate::store::backup;
/// A copy of a database file, its check, and its install in place of another: what the command
/// line's `backup` and `restore` do to a stopped instance's file.
pub use crate::store::backup::{check_copy, copy_file, ensure_dir, install, names, BackupError, Copied};
use crate::store::Store;
use crate::views::BackupStatus;

const DAY_MS: i64 = 86_400_000;
/// How long after a start a daily backup that is due waits: the start's own work goes first.
const FIRST_DELAY: Duration = Duration::from_secs(60);
/// The longest wait between two looks at the folder, so that a clock set forward, or a backup
/// folder emptied by hand, is noticed within it.
const LOOK_EVERY: Duration = Duration::from_secs(3_600);
/// How long to wait after a failed daily backup before the next try.
const AFTER_FAILURE: Duration = Duration::from_secs(3_600);

/// The schema version this build writes: a copy from a newer build is refused.
pub fn latest_schema() -> u32 {
    crate::store::migrations::latest_version()
}

/// Where backups go and how long daily ones are kept, from the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupPlan {
    pub dir: PathBuf,
    /// 0: no daily backup.
    pub keep_days: u32,
    /// Why the last daily backup failed, until one succeeds (shared by the plan's clones).
    failure: LastFailure,
}

/// Why the last daily backup failed, shared between the clones of one plan; not part of what a
/// plan is (two plans with the same folder and days are equal).
#[derive(Debug, Clone, Default)]
struct LastFailure(Arc<std::sync::Mutex<Option<String>>>);

impl PartialEq for LastFailure {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for LastFailure {}

impl BackupPlan {
    /// `backup.dir` (empty: `backups` in the data directory `root`; relative: inside it) and
    /// `backup.keep_days`.
    pub fn new(root: &Path, config: &Config) -> BackupPlan {
        let configured = config.backup.dir.trim();
        let dir = if configured.is_empty() {
            root.join("backups")
        } else {
            root.join(configured)
        };
        BackupPlan {
            dir,
            keep_days: config.backup.keep_days,
            failure: LastFailure::default(),
        }
    }

    /// Why the last daily backup failed, if the last one did.
    pub fn failure(&self) -> Option<String> {
        self.failure.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn set_failure(&self, error: Option<String>) {
        *self.failure.0.lock().unwrap_or_else(|p| p.into_inner()) = error;
    }

    /// The plan for a store on PostgreSQL: no daily copy of a file (the database's backups are
    /// the server's, with pg_dump or the operator's own).
    pub fn on_server(self) -> BackupPlan {
        BackupPlan { keep_days: 0, ..self }
    }

    /// Whether a backup is taken daily.
    pub fn automatic(&self) -> bool {
        self.keep_days > 0
    }

    /// The newest backup in the folder and whether backups are daily, for the dashboard. Reads
    /// the folder: call it from a blocking context.
    pub fn status(&self) -> BackupStatus {
        let last_backup_ms = match names::newest(&self.dir) {
            Ok(found) => found.map(|f| f.at_ms),
            Err(e) => {
                tracing::warn!(error = %e, "cannot look for the last backup");
                None
            }
        };
        BackupStatus {
            last_backup_ms,
            automatic: self.automatic(),
            keep_days: self.keep_days,
        }
    }

    /// Copies the database at `database` into the folder (made if missing, its owner's only) as
    /// `smsdesk-<time>.db`. Blocking.
    pub fn take(&self, database: &Path, now_ms: i64) -> Result<Copied, BackupError> {
        backup::ensure_dir(&self.dir)?;
        let dest = self.dir.join(names::file_name(names::Kind::Regular, now_ms));
        backup::copy_file(database, &dest)
    }

    /// A daily backup: takes one, then deletes the daily backups older than the days kept.
    /// Returns the copy and what was deleted. Blocking.
    pub fn daily(&self, database: &Path, now_ms: i64) -> Result<(Copied, Vec<PathBuf>), BackupError> {
        let copied = self.take(database, now_ms)?;
        let deleted = names::prune(&self.dir, self.keep_days, now_ms)?;
        Ok((copied, deleted))
    }

    /// When the newest daily backup was taken, if there is one.
    fn newest_daily(&self) -> Result<Option<i64>, BackupError> {
        Ok(names::list(&self.dir)?
            .into_iter()
            .filter(|f| f.kind == names::Kind::Regular)
            .map(|f| f.at_ms)
            .max())
    }
}

/// How long until the next daily backup is due, given when the newest one was taken: `None` when
/// one is due now (there is none, or the newest is a day old or more).
pub fn due_in(newest_ms: Option<i64>, now_ms: i64) -> Option<Duration> {
    let next = newest_ms? + DAY_MS;
    (next > now_ms).then(|| Duration::from_millis((next - now_ms) as u64))
}

/// Takes a backup once a day (the first a minute after start when the newest is a day old or
/// more), each on a blocking thread beside the writer, and deletes those older than the days
/// kept. Runs until the engine aborts it; does nothing when daily backups are off.
pub(crate) async fn keep_backing_up(store: Arc<Store>, plan: BackupPlan) {
    if store.on_postgres() {
        tracing::info!("the database is on PostgreSQL: its backups are the server's (pg_dump, or the operator's own), not smsdesk's");
        return;
    }
    if !plan.automatic() {
        tracing::info!("daily backups are off (backup.keep_days = 0)");
        return;
    }
    let mut first = true;
    loop {
        let newest = {
            let plan = plan.clone();
            tokio::task::spawn_blocking(move || plan.newest_daily()).await
        };
        let newest = match newest {
            Ok(Ok(n)) => n,
            Ok(Err(e)) => {
                tracing::error!(error = %e, "cannot look for the last daily backup");
                tokio::time::sleep(AFTER_FAILURE).await;
                continue;
            }
            Err(_) => return,
        };
        match due_in(newest, store.clock().now_ms()) {
            Some(wait) => tokio::time::sleep(wait.min(LOOK_EVERY)).await,
            // Looked at again after the delay: one may have been taken meanwhile.
            None if first => tokio::time::sleep(FIRST_DELAY).await,
            None => {
                if !daily_backup(&store, &plan).await {
                    tokio::time::sleep(AFTER_FAILURE).await;
                }
            }
        }
        first = false;
    }
}

/// One daily backup, logged; whether it was taken.
async fn daily_backup(store: &Arc<Store>, plan: &BackupPlan) -> bool {
    let (path, plan2, now) = (store.path().to_owned(), plan.clone(), store.clock().now_ms());
    match tokio::task::spawn_blocking(move || plan2.daily(&path, now)).await {
        Ok(Ok((copied, deleted))) => {
            plan.set_failure(None);
            tracing::info!(
                path = %copied.path.display(),
                bytes = copied.bytes,
                took_ms = copied.took.as_millis() as u64,
                "daily backup taken"
            );
            for old in deleted {
                tracing::info!(path = %old.display(), keep_days = plan.keep_days, "old daily backup deleted");
            }
            true
        }
        Ok(Err(e)) => {
            tracing::error!(error = %e, dir = %plan.dir.display(), "the daily backup failed");
            plan.set_failure(Some(e.to_string()));
            false
        }
        Err(_) => {
            tracing::error!(dir = %plan.dir.display(), "the daily backup stopped (its thread panicked)");
            plan.set_failure(Some("the backup stopped unexpectedly".into()));
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_daily_backup_is_due_when_there_is_none_or_the_newest_is_a_day_old() {
        let now = 1_741_918_500_000;
        assert_eq!(due_in(None, now), None);
        assert_eq!(due_in(Some(now - DAY_MS), now), None);
        assert_eq!(due_in(Some(now - 3 * DAY_MS), now), None);
        assert_eq!(due_in(Some(now - DAY_MS + 5_000), now), Some(Duration::from_secs(5)));
        assert_eq!(due_in(Some(now), now), Some(Duration::from_secs(86_400)));
    }

    #[test]
    fn the_folder_is_backups_in_the_data_directory_unless_configured() {
        let mut config = Config::default();
        let root = Path::new("/data");
        assert_eq!(BackupPlan::new(root, &config).dir, Path::new("/data/backups"));
        assert_eq!(BackupPlan::new(root, &config).keep_days, 14);
        config.backup.dir = "copies".into();
        assert_eq!(BackupPlan::new(root, &config).dir, Path::new("/data/copies"));
        config.backup.dir = "/mnt/usb/smsdesk".into();
        assert_eq!(BackupPlan::new(root, &config).dir, Path::new("/mnt/usb/smsdesk"));
        config.backup.keep_days = 0;
        assert!(!BackupPlan::new(root, &config).automatic());
    }

    #[test]
    fn a_daily_backup_is_a_checked_copy_and_deletes_only_old_daily_backups() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("smsdesk.db");
        Store::open(&db).unwrap().shutdown();
        let plan = BackupPlan {
            dir: dir.path().join("backups"),
            keep_days: 2,
            failure: LastFailure::default(),
        };
        let now = 1_741_918_500_000;
        let old = plan.take(&db, now - 3 * DAY_MS).unwrap().path;
        let kept = plan.take(&db, now - DAY_MS).unwrap().path;
        let mine = plan.dir.join("my-notes.db");
        std::fs::write(&mine, b"mine").unwrap();
        let (copied, deleted) = plan.daily(&db, now).unwrap();
        assert_eq!(deleted, vec![old.clone()]);
        assert!(!old.exists() && kept.exists() && mine.exists() && copied.path.exists());
        assert_eq!(
            backup::check_copy(&copied.path, &copied.path).unwrap(),
            copied.schema_version
        );
        let status = plan.status();
        assert_eq!(status.last_backup_ms, Some(now));
        assert!(status.automatic);
    }

    #[tokio::test(start_paused = true)]
    async fn the_daily_task_takes_a_backup_soon_after_start_and_no_other_while_the_newest_is_not_a_day_old() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(&dir.path().join("smsdesk.db")).unwrap());
        let plan = BackupPlan {
            dir: dir.path().join("backups"),
            keep_days: 14,
            failure: LastFailure::default(),
        };
        let task = tokio::spawn(keep_backing_up(store.clone(), plan.clone()));
        // Virtual seconds: time moves only while nothing runs (a copy on its thread holds it).
        let mut waited = Duration::ZERO;
        while names::list(&plan.dir).unwrap().is_empty() {
            tokio::time::sleep(Duration::from_secs(1)).await;
            waited += Duration::from_secs(1);
            assert!(
                waited < Duration::from_secs(3_600),
                "no backup within an hour of the start"
            );
        }
        assert!(waited >= FIRST_DELAY, "the start's own work goes first");
        tokio::time::sleep(Duration::from_secs(6 * 3_600)).await;
        task.abort();
        let _ = task.await;
        let taken = names::list(&plan.dir).unwrap();
        assert_eq!(taken.len(), 1, "one a day: {taken:?}");
        assert_eq!(taken[0].kind, names::Kind::Regular);
        let store = Arc::try_unwrap(store).ok().expect("the task let go of the store");
        store.shutdown();
    }
}
