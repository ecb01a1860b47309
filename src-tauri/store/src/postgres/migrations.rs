//! The PostgreSQL store's schema: numbered, append-only migrations, as SQLite's
//! ([`crate::migrations`]), with the same checksums and the same refusals (an edited migration,
//! a database newer than this build). Its first migration is the whole schema as SQLite's stands
//! at version 30; every later version is written for both stores under the same number.
//!
//! Nodes that start together migrate one at a time: each migration's transaction first takes a
//! transaction-level advisory lock, and reads the version again under it.

use smsdesk_core::time::Clock;

use crate::db::Db;
use crate::migrations::{checksum, Migration, MigrationReport};
use crate::StoreError;

/// Every PostgreSQL migration, in order. Append only.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 30,
        name: "baseline",
        sql: include_str!("schema/0030_baseline.sql"),
    },
    Migration {
        version: 31,
        name: "nodes",
        sql: include_str!("schema/0031_nodes.sql"),
    },
];

/// The table of applied migrations, made before the first one.
const SCHEMA_MIGRATION: &str = "CREATE TABLE IF NOT EXISTS schema_migration (
    version    BIGINT PRIMARY KEY,
    name       TEXT COLLATE \"C\" NOT NULL,
    checksum   TEXT COLLATE \"C\" NOT NULL,
    applied_at BIGINT NOT NULL
)";

/// The advisory lock key every node's migration takes ("smsdesk" in ASCII, as a number).
const MIGRATION_LOCK: i64 = 0x0073_6d73_6465_736b;

/// Brings the database to the latest schema, one transaction per migration.
pub fn migrate(db: Db<'_>, clock: &Clock) -> Result<MigrationReport, StoreError> {
    let latest = MIGRATIONS.last().map_or(0, |m| m.version);
    // A node's role may not create tables: it finds the table the owner's first start made.
    // Nodes starting together make it one at a time.
    let made: bool = db.one("SELECT to_regclass('schema_migration') IS NOT NULL", &[])?;
    if !made {
        db.transaction(|db| {
            db.execute("SELECT pg_advisory_xact_lock(?1)", &[&MIGRATION_LOCK])?;
            db.execute_batch(SCHEMA_MIGRATION)
        })?;
    }
    let from_version = current_version(db)?;
    let mut applied = Vec::new();
    for m in MIGRATIONS {
        if db.transaction(|db| apply(db, m, latest, clock))? {
            tracing::info!(version = m.version, name = m.name, "applied migration (PostgreSQL)");
            applied.push(m.version);
        }
    }
    Ok(MigrationReport {
        from_version,
        to_version: current_version(db)?,
        applied,
    })
}

/// Applies `m` inside the open transaction unless it already is; whether it was applied now.
fn apply(db: Db<'_>, m: &Migration, latest: u32, clock: &Clock) -> Result<bool, StoreError> {
    db.execute("SELECT pg_advisory_xact_lock(?1)", &[&MIGRATION_LOCK])?;
    let found = current_version(db)?;
    if found > latest {
        return Err(StoreError::SchemaTooNew { found, known: latest });
    }
    check_applied_unchanged(db)?;
    if found >= m.version {
        return Ok(false);
    }
    let fail = |e: StoreError| StoreError::MigrationSaid {
        version: m.version,
        name: m.name.into(),
        why: e.to_string(),
    };
    db.execute_batch(m.sql).map_err(fail)?;
    db.execute(
        "INSERT INTO schema_migration (version, name, checksum, applied_at) VALUES (?1, ?2, ?3, ?4)",
        &[&m.version, &m.name, &checksum(m.sql), &clock.now_ms()],
    )
    .map_err(fail)?;
    Ok(true)
}

/// The highest applied migration (0 on an empty database).
pub fn current_version(db: Db<'_>) -> Result<u32, StoreError> {
    Ok(db
        .one::<Option<u32>>("SELECT max(version) FROM schema_migration", &[])?
        .unwrap_or(0))
}

fn check_applied_unchanged(db: Db<'_>) -> Result<(), StoreError> {
    let rows = db.query(
        "SELECT version, name, checksum FROM schema_migration ORDER BY version",
        &[],
        |r| Ok((r.get::<u32>(0)?, r.get::<String>(1)?, r.get::<String>(2)?)),
    )?;
    for (version, name, sum) in rows {
        let Some(m) = MIGRATIONS.iter().find(|m| m.version == version) else {
            continue;
        };
        if m.name != name || checksum(m.sql) != sum {
            return Err(StoreError::MigrationEdited { version, name });
        }
    }
    Ok(())
}
