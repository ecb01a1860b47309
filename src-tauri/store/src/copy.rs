//! Copying a whole store between SQLite and PostgreSQL (`smsdesk store copy`): every row of every
//! table, the evidence included, into an empty database of the same schema, in one transaction
//! on each side (a snapshot read, an all-or-nothing write).
//!
//! - Tables are copied parents first (by SQLite's foreign keys), each in multi-row inserts.
//! - The destination's triggers are off while the rows go in (on PostgreSQL disabled, which takes
//!   the tables' owner; on SQLite dropped and made again, in the same transaction): the rows are
//!   the source's as they stand, not the effects of inserting them again.
//! - What a new schema starts with (the seeded rows of a few tables) is replaced, not added to;
//!   any other row in the destination refuses the copy, which then writes nothing.
//! - What each store keeps for itself is left out: the applied migrations (each store records its
//!   own), the holder row, SQLite's text index (made again from the messages on SQLite).
//! - After: PostgreSQL's identity sequences are set past the highest id; a message stored before
//!   intake read countries gets its country on PostgreSQL (where the report reads it from the row).

use std::path::PathBuf;

use crate::db::{Conn, Db, Dialect, FromValue, Param, PgConn, PgTarget, Value};
use crate::StoreError;

/// A store to copy from or to.
#[derive(Debug, Clone)]
pub enum Place {
    Sqlite(PathBuf),
    Postgres(PgTarget),
}

impl Place {
    fn connect(&self) -> Result<Conn, StoreError> {
        match self {
            Place::Sqlite(path) => {
                let conn = rusqlite::Connection::open(path).map_err(|source| StoreError::Open {
                    path: path.clone(),
                    source,
                })?;
                conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000")?;
                Ok(Conn::Sqlite(conn))
            }
            Place::Postgres(target) => Ok(Conn::Postgres(Box::new(PgConn::connect_to(target)?))),
        }
    }
}

/// What was copied: each table and its rows, in the order copied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Copied {
    pub tables: Vec<(String, u64)>,
}

/// Tables each store keeps for itself.
const OWN: &[&str] = &["schema_migration", "instance"];
/// Tables a new schema starts with rows in: emptied before the copy.
const SEEDED: &[&str] = &[
    "activity_grain",
    "activity_sign",
    "view_count",
    "search_indexed",
    "deadline_frontier",
    "redaction",
];
/// Rows per insert, at most (a few in the tests, so that their tables take several inserts), and
/// parameters per insert, at most (below SQLite's 32,766).
const ROWS_PER_INSERT: usize = if cfg!(test) { 3 } else { 500 };
const PARAMS_PER_INSERT: usize = 30_000;

/// Copies every row of `from` into `to`, which must hold the same schema version and nothing but
/// what a new schema starts with; `progress` hears each table and its rows once copied. Both
/// stores must be stopped (the caller holds them). Blocking.
pub fn copy(from: &Place, to: &Place, mut progress: impl FnMut(&str, u64)) -> Result<Copied, StoreError> {
    let (source, destination) = (from.connect()?, to.connect()?);
    let (src, dst) = (source.db(), destination.db());
    if src.dialect() == dst.dialect() {
        return Err(refused("a copy goes from SQLite to PostgreSQL or back"));
    }
    let (a, b) = (version(src)?, version(dst)?);
    if a != b {
        return Err(refused(&format!(
            "the source is at schema {a} and the destination at {b}: open both with this smsdesk first"
        )));
    }
    let sqlite = if src.dialect() == Dialect::Sqlite { src } else { dst };
    let tables = order(sqlite, &shared_tables(src, dst)?)?;
    src.transaction(|src| {
        if src.dialect() == Dialect::Postgres {
            src.execute_batch("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")?;
        }
        dst.transaction(|dst| {
            let triggers = Triggers::off(dst, &tables)?;
            empty_or_refuse(dst, &tables)?;
            let mut copied = Copied::default();
            for table in &tables {
                let n = copy_table(src, dst, table)?;
                progress(table, n);
                copied.tables.push((table.clone(), n));
            }
            triggers.on(dst)?;
            after(dst)?;
            Ok(copied)
        })
    })
}

fn refused(why: &str) -> StoreError {
    StoreError::Copy(why.to_owned())
}

fn version(db: Db<'_>) -> Result<i64, StoreError> {
    db.one("SELECT coalesce(max(version), 0) FROM schema_migration", &[])
}

/// The tables of `db`, but those each store keeps for itself.
fn tables(db: Db<'_>) -> Result<Vec<String>, StoreError> {
    let sql = match db.dialect() {
        Dialect::Sqlite => "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
        Dialect::Postgres => {
            "SELECT table_name FROM information_schema.tables
             WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name"
        }
    };
    let names: Vec<String> = db.query(sql, &[], |r| r.get(0))?;
    Ok(names
        .into_iter()
        .filter(|t| !OWN.contains(&t.as_str()) && !t.starts_with("sqlite_") && !t.starts_with("message_fts"))
        .collect())
}

/// The tables both hold; a table only one holds refuses the copy.
fn shared_tables(src: Db<'_>, dst: Db<'_>) -> Result<Vec<String>, StoreError> {
    let (a, b) = (tables(src)?, tables(dst)?);
    if let Some(t) = a.iter().find(|t| !b.contains(t)).or(b.iter().find(|t| !a.contains(t))) {
        return Err(refused(&format!("the table {t} is in one store and not the other")));
    }
    Ok(a)
}

/// `tables`, each after the tables its foreign keys name (read from the SQLite side).
fn order(sqlite: Db<'_>, tables: &[String]) -> Result<Vec<String>, StoreError> {
    let mut parents = Vec::new();
    for t in tables {
        let p: Vec<String> = sqlite.query(
            "SELECT DISTINCT \"table\" FROM pragma_foreign_key_list(?1)",
            &[t],
            |r| r.get(0),
        )?;
        parents.push(p.into_iter().filter(|p| p != t).collect::<Vec<_>>());
    }
    let mut done: Vec<String> = Vec::new();
    while done.len() < tables.len() {
        let before = done.len();
        for (t, p) in tables.iter().zip(&parents) {
            if !done.contains(t) && p.iter().all(|p| done.contains(p) || !tables.contains(p)) {
                done.push(t.clone());
            }
        }
        if done.len() == before {
            return Err(refused("the tables' foreign keys go round in a circle"));
        }
    }
    Ok(done)
}

/// The columns of `table`, in order.
fn columns(db: Db<'_>, table: &str) -> Result<Vec<String>, StoreError> {
    let sql = match db.dialect() {
        Dialect::Sqlite => "SELECT name FROM pragma_table_info(?1) ORDER BY cid",
        Dialect::Postgres => {
            "SELECT column_name FROM information_schema.columns
             WHERE table_schema = current_schema() AND table_name = ?1 ORDER BY ordinal_position"
        }
    };
    db.query(sql, &[&table], |r| r.get(0))
}

/// The destination's triggers, off until [`Triggers::on`].
enum Triggers {
    /// PostgreSQL: the tables whose user triggers are disabled.
    Disabled(Vec<String>),
    /// SQLite: the triggers dropped, with the statements that make them again.
    Dropped(Vec<String>),
}

impl Triggers {
    fn off(db: Db<'_>, tables: &[String]) -> Result<Triggers, StoreError> {
        match db.dialect() {
            Dialect::Postgres => {
                for t in tables {
                    db.execute_batch(&format!("ALTER TABLE \"{t}\" DISABLE TRIGGER USER"))?;
                }
                Ok(Triggers::Disabled(tables.to_vec()))
            }
            Dialect::Sqlite => {
                let found: Vec<(String, String)> = db.query(
                    "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY rowid",
                    &[],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )?;
                for (name, _) in &found {
                    db.execute_batch(&format!("DROP TRIGGER \"{name}\""))?;
                }
                Ok(Triggers::Dropped(found.into_iter().map(|(_, sql)| sql).collect()))
            }
        }
    }

    fn on(self, db: Db<'_>) -> Result<(), StoreError> {
        match self {
            Triggers::Disabled(tables) => {
                for t in tables {
                    db.execute_batch(&format!("ALTER TABLE \"{t}\" ENABLE TRIGGER USER"))?;
                }
            }
            Triggers::Dropped(made) => {
                for sql in made {
                    db.execute_batch(&sql)?;
                }
            }
        }
        Ok(())
    }
}

/// Removes what a new schema starts with; refuses a destination holding anything else.
fn empty_or_refuse(db: Db<'_>, tables: &[String]) -> Result<(), StoreError> {
    for t in tables {
        if SEEDED.contains(&t.as_str()) {
            db.execute_batch(&format!("DELETE FROM \"{t}\""))?;
        }
        let n: i64 = db.one(&format!("SELECT count(*) FROM \"{t}\""), &[])?;
        if n > 0 {
            return Err(refused(&format!(
                "the destination is not empty ({n} rows in {t}): a copy goes into a new database only"
            )));
        }
    }
    Ok(())
}

/// A value read from the source, kept until it is written.
#[derive(Debug, Clone)]
enum Owned {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl FromValue for Owned {
    fn from_value(v: Value<'_>) -> Result<Owned, String> {
        Ok(match v {
            Value::Null => Owned::Null,
            Value::Int(i) => Owned::Int(i),
            Value::Real(r) => Owned::Real(r),
            Value::Text(t) => Owned::Text(t.to_owned()),
            Value::Blob(b) => Owned::Blob(b.to_vec()),
        })
    }
}

impl Param for Owned {
    fn value(&self) -> Value<'_> {
        match self {
            Owned::Null => Value::Null,
            Owned::Int(i) => Value::Int(*i),
            Owned::Real(r) => Value::Real(*r),
            Owned::Text(t) => Value::Text(t),
            Owned::Blob(b) => Value::Blob(b),
        }
    }
}

/// Copies the rows of `table`; how many.
fn copy_table(src: Db<'_>, dst: Db<'_>, table: &str) -> Result<u64, StoreError> {
    let names = columns(dst, table)?;
    if columns(src, table)? != names {
        return Err(refused(&format!("the columns of {table} differ between the stores")));
    }
    let list = names.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ");
    let fill = country_fill(dst, table, &names);
    let per = (PARAMS_PER_INSERT / names.len().max(1)).clamp(1, ROWS_PER_INSERT);
    let mut rows: Vec<Vec<Owned>> = Vec::with_capacity(per);
    let mut n = 0u64;
    let mut on_row = |r: &crate::db::Row<'_, '_>| {
        let mut row = (0..names.len())
            .map(|i| r.get::<Owned>(i))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some((country, destination)) = fill {
            if let (Owned::Null, Owned::Text(number)) = (&row[country], &row[destination]) {
                if let Some(c) = smsdesk_core::country::country_of(number) {
                    row[country] = Owned::Text(c);
                }
            }
        }
        rows.push(row);
        if rows.len() == per {
            n += insert(dst, table, &list, &mut rows)?;
        }
        Ok(())
    };
    let select = format!("SELECT {list} FROM \"{table}\"");
    match src.dialect() {
        // SQLite's rows come one by one.
        Dialect::Sqlite => _ = src.query(&select, &[], &mut on_row)?,
        // PostgreSQL's client reads a query's rows whole: a cursor hands them over a page at a time.
        // (A cursor of each table's own: a statement is prepared once for its text, and a
        // FETCH's columns are its cursor's.)
        Dialect::Postgres => {
            src.execute_batch(&format!("DECLARE \"copy_{table}\" NO SCROLL CURSOR FOR {select}"))?;
            let fetch = format!("FETCH {FETCH_ROWS} FROM \"copy_{table}\"");
            while !src.query(&fetch, &[], &mut on_row)?.is_empty() {}
            src.execute_batch(&format!("CLOSE \"copy_{table}\""))?;
        }
    }
    n += insert(dst, table, &list, &mut rows)?;
    Ok(n)
}

/// Rows in a page of the source's, on PostgreSQL (a few in the tests, so that their tables take
/// several pages).
const FETCH_ROWS: usize = if cfg!(test) { 7 } else { 5_000 };

/// For messages going into PostgreSQL: where the country and the destination are.
fn country_fill(dst: Db<'_>, table: &str, names: &[String]) -> Option<(usize, usize)> {
    if table != "message" || dst.dialect() != Dialect::Postgres {
        return None;
    }
    let at = |name: &str| names.iter().position(|c| c == name);
    Some((at("country")?, at("destination")?))
}

/// Inserts `rows` (emptied) in one statement; how many.
fn insert(dst: Db<'_>, table: &str, list: &str, rows: &mut Vec<Vec<Owned>>) -> Result<u64, StoreError> {
    if rows.is_empty() {
        return Ok(0);
    }
    let width = rows[0].len();
    let tuples: Vec<String> = (0..rows.len())
        .map(|i| {
            let marks: Vec<String> = (1..=width).map(|j| format!("?{}", i * width + j)).collect();
            format!("({})", marks.join(", "))
        })
        .collect();
    let sql = format!("INSERT INTO \"{table}\" ({list}) VALUES {}", tuples.join(", "));
    let params: Vec<&dyn Param> = rows.iter().flatten().map(|v| v as &dyn Param).collect();
    dst.execute(&sql, &params)?;
    let n = rows.len() as u64;
    rows.clear();
    Ok(n)
}

/// What follows the rows: PostgreSQL's sequences past the highest ids; SQLite's text index made
/// again from the messages.
fn after(dst: Db<'_>) -> Result<(), StoreError> {
    match dst {
        Db::Postgres(_) => {
            let identities: Vec<(String, String)> = dst.query(
                "SELECT table_name, column_name FROM information_schema.columns
                 WHERE table_schema = current_schema() AND is_identity = 'YES'",
                &[],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            for (t, c) in identities {
                dst.execute_batch(&format!(
                    "SELECT setval(pg_get_serial_sequence('\"{t}\"', '{c}'), \
                     coalesce((SELECT max(\"{c}\") FROM \"{t}\"), 0) + 1, false)"
                ))?;
            }
            Ok(())
        }
        Db::Sqlite(conn) => {
            // The new database's index is empty: every message goes in.
            conn.execute_batch("UPDATE search_indexed SET upto = 0")?;
            crate::search_index::catch_up(conn)?;
            Ok(())
        }
    }
}
