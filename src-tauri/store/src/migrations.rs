//! Numbered, append-only migrations embedded in the binary.
//!
//! Each applied migration is recorded with a checksum of its SQL; a database whose record differs
//! from the embedded text was made by an edited migration and is refused, and a database newer than
//! this build is refused too, rather than guessed at.

use rusqlite::{params, Connection, OptionalExtension};

use super::StoreError;
use smsdesk_core::time::Clock;

/// One schema step.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    pub version: u32,
    pub name: &'static str,
    pub sql: &'static str,
}

/// Every migration, in order. Append only: never edit or reorder a released entry.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "initial",
        sql: include_str!("migrations/0001_initial.sql"),
    },
    Migration {
        version: 2,
        name: "api",
        sql: include_str!("migrations/0002_api.sql"),
    },
    Migration {
        version: 3,
        name: "views",
        sql: include_str!("migrations/0003_views.sql"),
    },
    Migration {
        version: 4,
        name: "ingest",
        sql: include_str!("migrations/0004_ingest.sql"),
    },
    Migration {
        version: 5,
        name: "activity",
        sql: include_str!("migrations/0005_activity.sql"),
    },
    Migration {
        version: 6,
        name: "totals",
        sql: include_str!("migrations/0006_totals.sql"),
    },
    Migration {
        version: 7,
        name: "state_webhooks",
        sql: include_str!("migrations/0007_state_webhooks.sql"),
    },
    Migration {
        version: 8,
        name: "accepted_submit",
        sql: include_str!("migrations/0008_accepted_submit.sql"),
    },
    Migration {
        version: 9,
        name: "edges",
        sql: include_str!("migrations/0009_edges.sql"),
    },
    Migration {
        version: 10,
        name: "accounts",
        sql: include_str!("migrations/0010_accounts.sql"),
    },
    Migration {
        version: 11,
        name: "inbox",
        sql: include_str!("migrations/0011_inbox.sql"),
    },
    Migration {
        version: 12,
        name: "created_totals",
        sql: include_str!("migrations/0012_created_totals.sql"),
    },
    Migration {
        version: 13,
        name: "lean_writer",
        sql: include_str!("migrations/0013_lean_writer.sql"),
    },
    Migration {
        version: 14,
        name: "deadline_frontier",
        sql: include_str!("migrations/0014_deadline_frontier.sql"),
    },
    Migration {
        version: 15,
        name: "submitted_by",
        sql: include_str!("migrations/0015_submitted_by.sql"),
    },
    Migration {
        version: 16,
        name: "destination_suffix",
        sql: include_str!("migrations/0016_destination_suffix.sql"),
    },
    Migration {
        version: 17,
        name: "templates",
        sql: include_str!("migrations/0017_templates.sql"),
    },
    Migration {
        version: 18,
        name: "routes",
        sql: include_str!("migrations/0018_routes.sql"),
    },
    Migration {
        version: 19,
        name: "connection_hold",
        sql: include_str!("migrations/0019_connection_hold.sql"),
    },
    Migration {
        version: 20,
        name: "one_idempotency_index",
        sql: include_str!("migrations/0020_one_idempotency_index.sql"),
    },
    Migration {
        version: 21,
        name: "counted_by_the_writer",
        sql: include_str!("migrations/0021_counted_by_the_writer.sql"),
    },
    Migration {
        version: 22,
        name: "claim_index_of_the_queued",
        sql: include_str!("migrations/0022_claim_index_of_the_queued.sql"),
    },
    Migration {
        version: 23,
        name: "start_reads_what_is_left",
        sql: include_str!("migrations/0023_start_reads_what_is_left.sql"),
    },
    Migration {
        version: 24,
        name: "instance",
        sql: include_str!("migrations/0024_instance.sql"),
    },
    Migration {
        version: 25,
        name: "queue_reason",
        sql: include_str!("migrations/0025_queue_reason.sql"),
    },
    Migration {
        version: 26,
        name: "reports",
        sql: include_str!("migrations/0026_reports.sql"),
    },
    Migration {
        version: 27,
        name: "redaction",
        sql: include_str!("migrations/0027_redaction.sql"),
    },
    Migration {
        version: 28,
        name: "alerts",
        sql: include_str!("migrations/0028_alerts.sql"),
    },
    Migration {
        version: 29,
        name: "guardrails",
        sql: include_str!("migrations/0029_guardrails.sql"),
    },
    Migration {
        version: 30,
        name: "smpp_server",
        sql: include_str!("migrations/0030_smpp_server.sql"),
    },
    Migration {
        version: 31,
        name: "nodes",
        sql: include_str!("migrations/0031_nodes.sql"),
    },
];

/// The schema version this build creates.
pub fn latest_version() -> u32 {
    MIGRATIONS.last().map_or(0, |m| m.version)
}

/// FNV-1a, 64 bits: enough to notice an edited migration; not a security measure.
pub fn checksum(sql: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in sql.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// What `migrate` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigrationReport {
    pub from_version: u32,
    pub to_version: u32,
    pub applied: Vec<u32>,
}

/// Brings the database to the latest schema, one transaction per migration.
///
/// Migrations run with foreign key enforcement off, as SQLite's procedure for rebuilding a table
/// asks (dropping a table that other rows refer to would otherwise delete through it, and the
/// pragma cannot change inside a transaction); each one commits only if `PRAGMA
/// foreign_key_check` then finds nothing. Enforcement is restored afterwards, failed or not.
/// Each migration is dated by `clock`.
pub fn migrate(conn: &mut Connection, clock: &Clock) -> Result<MigrationReport, StoreError> {
    migrate_to(conn, latest_version(), clock)
}

/// Like [`migrate`], stopping at schema version `target` (tests build older databases with it).
pub fn migrate_to(conn: &mut Connection, target: u32, clock: &Clock) -> Result<MigrationReport, StoreError> {
    let enforced: bool = conn.pragma_query_value(None, "foreign_keys", |r| r.get(0))?;
    conn.pragma_update(None, "foreign_keys", false)?;
    let report = migrate_unchecked(conn, target, clock);
    if enforced {
        conn.pragma_update(None, "foreign_keys", true)?;
    }
    report
}

fn migrate_unchecked(conn: &mut Connection, target: u32, clock: &Clock) -> Result<MigrationReport, StoreError> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS schema_migration (
             version    INTEGER PRIMARY KEY,
             name       TEXT    NOT NULL,
             checksum   TEXT    NOT NULL,
             applied_at INTEGER NOT NULL
         );",
    )?;
    let from_version = current_version(conn)?;
    if from_version > latest_version() {
        return Err(StoreError::SchemaTooNew {
            found: from_version,
            known: latest_version(),
        });
    }
    check_applied_unchanged(conn)?;

    let mut applied = Vec::new();
    for m in MIGRATIONS
        .iter()
        .filter(|m| m.version > from_version && m.version <= target)
    {
        let fail = |source| StoreError::Migration {
            version: m.version,
            name: m.name.into(),
            source,
        };
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(fail)?;
        tx.execute_batch(m.sql).map_err(fail)?;
        foreign_keys_hold(&tx).map_err(fail)?;
        tx.execute(
            "INSERT INTO schema_migration (version, name, checksum, applied_at) VALUES (?1, ?2, ?3, ?4)",
            params![m.version, m.name, checksum(m.sql), clock.now_ms()],
        )
        .map_err(fail)?;
        tx.pragma_update(None, "user_version", m.version).map_err(fail)?;
        tx.commit().map_err(fail)?;
        tracing::info!(version = m.version, name = m.name, "applied migration");
        applied.push(m.version);
    }
    Ok(MigrationReport {
        from_version,
        to_version: current_version(conn)?,
        applied,
    })
}

/// Fails when a row refers to a row that does not exist.
fn foreign_keys_hold(conn: &Connection) -> rusqlite::Result<()> {
    let broken: Option<(String, Option<i64>, String)> = conn
        .query_row("PRAGMA foreign_key_check", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .optional()?;
    match broken {
        None => Ok(()),
        Some((table, rowid, parent)) => Err(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CONSTRAINT_FOREIGNKEY),
            Some(format!(
                "a row ({rowid:?}) of {table} refers to a missing row of {parent}"
            )),
        )),
    }
}

/// The highest applied migration (0 on an empty database).
pub fn current_version(conn: &Connection) -> Result<u32, StoreError> {
    let v: Option<u32> = conn
        .query_row("SELECT max(version) FROM schema_migration", [], |r| r.get(0))
        .optional()?
        .flatten();
    Ok(v.unwrap_or(0))
}

fn check_applied_unchanged(conn: &Connection) -> Result<(), StoreError> {
    let mut stmt = conn.prepare("SELECT version, name, checksum FROM schema_migration ORDER BY version")?;
    let rows = stmt.query_map([], |r| {
        Ok((r.get::<_, u32>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?))
    })?;
    for row in rows {
        let (version, name, sum) = row?;
        let Some(m) = MIGRATIONS.iter().find(|m| m.version == version) else {
            continue;
        };
        if m.name != name || checksum(m.sql) != sum {
            return Err(StoreError::MigrationEdited { version, name });
        }
    }
    Ok(())
}
