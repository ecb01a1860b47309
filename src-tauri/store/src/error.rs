use std::path::PathBuf;

/// What can go wrong in the store. Callers at the edges turn these into `{code, message}`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    #[error("cannot open the database {path}: {source}")]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("the database is at schema version {found}, newer than this smsdesk knows ({known}); use a newer smsdesk")]
    SchemaTooNew { found: u32, known: u32 },
    #[error("migration {version} ({name}) in the database differs from the one built into smsdesk: migrations are append-only and must never be edited")]
    MigrationEdited { version: u32, name: String },
    #[error("migration {version} ({name}) failed: {source}")]
    Migration {
        version: u32,
        name: String,
        #[source]
        source: rusqlite::Error,
    },
    /// A migration of the PostgreSQL store failed: nothing of it was applied.
    #[error("migration {version} ({name}) failed: {why}")]
    MigrationSaid { version: u32, name: String, why: String },
    #[error("pragma {name} is {actual} but must be {expected}")]
    Pragma {
        name: &'static str,
        expected: String,
        actual: String,
    },
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    #[error("PostgreSQL: {}", postgres_said(.0))]
    Postgres(#[from] postgres::Error),
    /// The PostgreSQL store's address or password cannot be used (the words never quote them).
    #[error("{0}")]
    Address(String),
    /// A copy between the stores was refused before anything was written (see [`crate::copy`]).
    #[error("the copy was refused: {0}. Nothing was written")]
    Copy(String),
    /// A query that must find a row found none.
    #[error("no row was found")]
    NoRow,
    #[error("the transaction could not be committed: {0}")]
    Commit(String),
    #[error("stored data cannot be read back: {0}")]
    Corrupt(String),
    #[error("the store is shut down")]
    Closed,
    /// SQLite said SQLITE_FULL (the disk, or the file system's quota, is full): nothing of the
    /// write was applied, and the same write may succeed once there is room again.
    #[error("the disk holding the database is full; nothing was stored: {0}")]
    StorageFull(String),
    /// The database file cannot be trusted (empty, not SQLite, or failing its integrity check):
    /// refused at open, before anything reads or writes it.
    #[error("the database {path} cannot be used: {why}. Nothing was changed. Restore it from a backup, or move it away (smsdesk then starts with a new, empty database)")]
    Unusable { path: PathBuf, why: String },
    /// The copy taken before a migration (or another backup the store was asked for) failed;
    /// nothing was migrated.
    #[error("the backup taken before the database is upgraded failed, so it was not upgraded: {0}")]
    Backup(#[from] crate::backup::BackupError),
    /// A read or a write panicked: a write's transaction was rolled back.
    #[error("the operation was aborted (it panicked); nothing it would have written was applied")]
    Aborted,
    /// Numbers cannot be hashed: the key was never set, or another one is set
    /// ([`crate::Store::set_number_key`]). Nothing was redacted.
    #[error("numbers cannot be hashed: {0}")]
    NumberKey(String),
}

impl StoreError {
    /// Whether the write failed for want of room on the disk (SQLITE_FULL, or ENOSPC from a file
    /// the store writes itself): the caller may try again later, and nothing of it was stored.
    pub fn is_storage_full(&self) -> bool {
        match self {
            StoreError::StorageFull(_) => true,
            StoreError::Open { source, .. } | StoreError::Migration { source, .. } | StoreError::Sqlite(source) => {
                sqlite_full(source)
            }
            StoreError::Postgres(e) => e.code() == Some(&postgres::error::SqlState::DISK_FULL),
            _ => false,
        }
    }

    /// The same failure again, for another caller of the same transaction.
    pub fn for_another_caller(&self) -> StoreError {
        match self {
            StoreError::StorageFull(s) => StoreError::StorageFull(s.clone()),
            StoreError::Commit(s) => StoreError::Commit(s.clone()),
            e if e.is_storage_full() => StoreError::StorageFull(e.to_string()),
            e => StoreError::Commit(e.to_string()),
        }
    }
}

/// Whether SQLite reported SQLITE_FULL (it reports ENOSPC from a write as SQLITE_FULL too).
pub(crate) fn sqlite_full(e: &rusqlite::Error) -> bool {
    e.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull)
}

/// What PostgreSQL said, with its detail when it gave one (the client's own text is only "db
/// error" for the server's errors).
pub(crate) fn postgres_said(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => match db.detail() {
            Some(detail) => format!("{} ({detail})", db.message()),
            None => db.message().to_owned(),
        },
        // The client's own errors ("error serializing parameter 0") keep the why in their source.
        None => match std::error::Error::source(e) {
            Some(why) => format!("{e}: {why}"),
            None => e.to_string(),
        },
    }
}
