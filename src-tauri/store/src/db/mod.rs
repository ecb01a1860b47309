//! One way to run SQL on either store: [`Db`], a SQLite connection or a PostgreSQL one, with the
//! store's SQL written once (SQLite's placeholders; what differs between the two dialects is
//! chosen with [`Db::dialect`]), parameters as [`Param`]s and columns read with [`Row::get`].

mod pg;
mod pg_target;
pub mod placeholders;
mod value;

/// A database of its own on the tests' PostgreSQL, for this crate's tests and those of the crates
/// above it (the `test-hooks` feature).
#[cfg(any(test, feature = "test-hooks"))]
pub mod pg_test;
#[cfg(test)]
mod tests;

pub use pg::PgConn;
pub use pg_target::PgTarget;
pub use value::{FromValue, Param, Value};

use crate::StoreError;

/// Which SQL a store speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// A connection of either store, for the store's functions.
#[derive(Clone, Copy)]
pub enum Db<'c> {
    Sqlite(&'c rusqlite::Connection),
    Postgres(&'c PgConn),
}

/// A connection of either store, owned (the writer thread's, a reader's).
pub enum Conn {
    Sqlite(rusqlite::Connection),
    Postgres(Box<PgConn>),
}

/// The SQLite connection, for what only SQLite has (query plans, the tests' scenes in plain SQL):
/// every read runs through [`Conn::db`]. Panics on PostgreSQL.
impl std::ops::Deref for Conn {
    type Target = rusqlite::Connection;

    fn deref(&self) -> &rusqlite::Connection {
        match self {
            Conn::Sqlite(c) => c,
            Conn::Postgres(_) => panic!("a SQLite connection was asked of a PostgreSQL store"),
        }
    }
}

impl Conn {
    pub fn db(&self) -> Db<'_> {
        match self {
            Conn::Sqlite(c) => Db::Sqlite(c),
            Conn::Postgres(c) => Db::Postgres(c),
        }
    }
}

/// One row of a query's result.
pub enum Row<'r, 's> {
    Sqlite(&'r rusqlite::Row<'s>),
    Postgres(&'r postgres::Row),
}

impl Row<'_, '_> {
    /// Column `i` (from 0), read as `T`.
    pub fn get<T: FromValue>(&self, i: usize) -> Result<T, StoreError> {
        let v = match self {
            Row::Sqlite(r) => sqlite_value(r.get_ref(i)?)?,
            Row::Postgres(r) => pg::column(r, i)?,
        };
        T::from_value(v).map_err(|why| StoreError::Corrupt(format!("column {i}: {why}")))
    }
}

fn sqlite_value(v: rusqlite::types::ValueRef<'_>) -> Result<Value<'_>, StoreError> {
    use rusqlite::types::ValueRef;
    Ok(match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Int(i),
        ValueRef::Real(r) => Value::Real(r),
        ValueRef::Text(t) => Value::Text(
            std::str::from_utf8(t).map_err(|e| StoreError::Corrupt(format!("text that is not UTF-8: {e}")))?,
        ),
        ValueRef::Blob(b) => Value::Blob(b),
    })
}

impl rusqlite::ToSql for Value<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match *self {
            Value::Null => ValueRef::Null,
            Value::Int(i) => ValueRef::Integer(i),
            Value::Real(r) => ValueRef::Real(r),
            Value::Text(t) => ValueRef::Text(t.as_bytes()),
            Value::Blob(b) => ValueRef::Blob(b),
        }))
    }
}

fn values<'p>(params: &'p [&'p dyn Param]) -> Vec<Value<'p>> {
    params.iter().map(|p| p.value()).collect()
}

impl<'c> Db<'c> {
    pub fn dialect(&self) -> Dialect {
        match self {
            Db::Sqlite(_) => Dialect::Sqlite,
            Db::Postgres(_) => Dialect::Postgres,
        }
    }

    /// Runs `f` in a transaction of its own: committed when it succeeds, else rolled back.
    pub fn transaction<T>(self, f: impl FnOnce(Db<'c>) -> Result<T, StoreError>) -> Result<T, StoreError> {
        self.execute_batch("BEGIN")?;
        match f(self) {
            Ok(v) => self.execute_batch("COMMIT").map(|()| v),
            Err(e) => {
                let _ = self.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    /// Runs one statement; returns how many rows it changed.
    pub fn execute(&self, sql: &str, params: &[&dyn Param]) -> Result<usize, StoreError> {
        let values = values(params);
        match self {
            Db::Sqlite(c) => Ok(c
                .prepare_cached(sql)?
                .execute(rusqlite::params_from_iter(values.iter()))?),
            Db::Postgres(c) => c.execute(sql, &values),
        }
    }

    /// Runs statements without parameters, separated by semicolons.
    pub fn execute_batch(&self, sql: &str) -> Result<(), StoreError> {
        match self {
            Db::Sqlite(c) => Ok(c.execute_batch(sql)?),
            Db::Postgres(c) => c.execute_batch(sql),
        }
    }

    /// Every row of a query, each made into a `T` by `f`.
    pub fn query<T>(
        &self,
        sql: &str,
        params: &[&dyn Param],
        mut f: impl FnMut(&Row<'_, '_>) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        let values = values(params);
        match self {
            Db::Sqlite(c) => {
                let mut statement = c.prepare_cached(sql)?;
                let mut rows = statement.query(rusqlite::params_from_iter(values.iter()))?;
                let mut out = Vec::new();
                while let Some(r) = rows.next()? {
                    out.push(f(&Row::Sqlite(r))?);
                }
                Ok(out)
            }
            Db::Postgres(c) => c.query(sql, &values)?.iter().map(|r| f(&Row::Postgres(r))).collect(),
        }
    }

    /// The first row of a query made into a `T`, or `None` when there is none.
    pub fn query_opt<T>(
        &self,
        sql: &str,
        params: &[&dyn Param],
        f: impl FnOnce(&Row<'_, '_>) -> Result<T, StoreError>,
    ) -> Result<Option<T>, StoreError> {
        let values = values(params);
        match self {
            Db::Sqlite(c) => {
                let mut statement = c.prepare_cached(sql)?;
                let mut rows = statement.query(rusqlite::params_from_iter(values.iter()))?;
                rows.next()?.map(|r| f(&Row::Sqlite(r))).transpose()
            }
            Db::Postgres(c) => c.query(sql, &values)?.first().map(|r| f(&Row::Postgres(r))).transpose(),
        }
    }

    /// The first row of a query made into a `T`; [`StoreError::NoRow`] when there is none.
    pub fn query_row<T>(
        &self,
        sql: &str,
        params: &[&dyn Param],
        f: impl FnOnce(&Row<'_, '_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.query_opt(sql, params, f)?.ok_or(StoreError::NoRow)
    }

    /// The first column of the first row, as a `T` (a count, an id).
    pub fn one<T: FromValue>(&self, sql: &str, params: &[&dyn Param]) -> Result<T, StoreError> {
        self.query_row(sql, params, |r| r.get(0))
    }
}
