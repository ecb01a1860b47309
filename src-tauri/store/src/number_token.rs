//! A number's keyed hash: what a redacted row keeps of the number, so that a number someone types
//! can still be looked up (`destination IN (?1, number_token(?1))`) while the hash cannot be read
//! back into the number without the key.
//!
//! `h:` then the first 16 bytes of HMAC-SHA-256(key, number) in hexadecimal. The key is derived
//! by the engine from the data directory's `secret.key` and handed to the store when it opens
//! ([`crate::Store::set_number_key`]); it is never written to the database, so a copy of the
//! database alone cannot be searched for numbers.
//!
//! Where the hash is made: the key travels with each of the store's connections, so that whatever
//! reaches the database (a `WriteTx`, a read's `Conn`, a `Db` taken from either) reaches the key.
//! - SQLite: each connection has the SQL function `number_token(x)`, NULL until the key is set
//!   (nothing can have been hashed then either). The statements call it, as they always did: a
//!   lookup stays one statement (checking the opt-out list is on the way of every send), and a
//!   redaction rewrites its rows in one UPDATE.
//! - PostgreSQL: no such function (the key must never reach the server, not even as a parameter).
//!   [`PgConn`] carries the store's key; a lookup binds the number's hash made in Rust
//!   ([`bound`]: `phone IN ($1, $2)`), and a rewrite reads the rows' numbers, hashes them here
//!   ([`required`]) and writes them back, in the same transaction.

use rusqlite::functions::FunctionFlags;
use rusqlite::Connection;

use crate::db::{Db, Param, PgConn};
use crate::StoreError;

pub(crate) use crate::number_key::KeyCell;
pub use crate::number_key::{is_token, NumberKey, PREFIX};

/// Gives `conn` the SQL function `number_token(x)` under the key in `cell`.
pub(crate) fn register(conn: &Connection, cell: &KeyCell) -> Result<(), StoreError> {
    let cell = cell.clone();
    conn.create_scalar_function(
        "number_token",
        1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC | FunctionFlags::SQLITE_INNOCUOUS,
        move |ctx| {
            let value: Option<String> = ctx.get(0)?;
            Ok(match (value, cell.get()) {
                (Some(v), Some(key)) => Some(key.token(&v)),
                _ => None,
            })
        },
    )?;
    Ok(())
}

/// `number`'s hash under the key `pg` carries, to bind where SQLite's statement says
/// `number_token(?)`: None while the key is not set, as SQLite's function answers NULL (a lookup
/// then finds the number itself alone).
pub(crate) fn bound(pg: &PgConn, number: &str) -> Option<String> {
    pg.number_key().get().map(|k| k.token(number))
}

/// The key `pg` carries, for a rewrite that hashes the numbers rows hold: refused while it is not
/// set, as SQLite refuses to write the NULL its function answers then into a number's column.
pub(crate) fn required(pg: &PgConn) -> Result<&NumberKey, StoreError> {
    pg.number_key().get().ok_or_else(|| {
        StoreError::NumberKey("the key is not set (the engine sets it from secret.key when it opens the store)".into())
    })
}

/// A number's hash as a statement takes it: SQLite's statements say `number_token(?1)` (the hash of
/// their first parameter, by the SQL function); on PostgreSQL the same text runs with the hash made
/// here and bound in its place, as one parameter more.
pub(crate) struct Hashed(Option<Option<String>>);

impl Hashed {
    /// For a lookup: with no key on PostgreSQL, NULL is bound (the number itself alone is found),
    /// as SQLite's function answers NULL.
    pub(crate) fn lookup(db: Db<'_>, number: &str) -> Hashed {
        Hashed(match db {
            Db::Sqlite(_) => None,
            Db::Postgres(pg) => Some(bound(pg, number)),
        })
    }

    /// For a rewrite: refused on PostgreSQL when no key is set (see [`required`]).
    pub(crate) fn required(db: Db<'_>, number: &str) -> Result<Hashed, StoreError> {
        Ok(Hashed(match db {
            Db::Sqlite(_) => None,
            Db::Postgres(pg) => Some(Some(required(pg)?.token(number))),
        }))
    }

    /// `sql` (SQLite's text) and its `params` as this store runs them.
    pub(crate) fn statement<'p>(&'p self, sql: &str, params: &[&'p dyn Param]) -> (String, Vec<&'p dyn Param>) {
        let mut params = params.to_vec();
        match &self.0 {
            None => (sql.to_owned(), params),
            Some(hash) => {
                params.push(hash);
                (sql.replace("number_token(?1)", &format!("?{}", params.len())), params)
            }
        }
    }
}

/// What SQLite's `number_token(x)` makes of a column's value: NULL stays NULL.
pub(crate) fn hash_opt(key: &NumberKey, value: Option<&str>) -> Option<String> {
    value.map(|v| key.token(v))
}

/// Gives `db`'s connection the key (`None`: none yet), as the store gives its own: SQLite's the SQL
/// function, PostgreSQL's the key the connection carries. For tests on a database opened without
/// the store.
#[cfg(test)]
pub(crate) fn set_for_tests(db: crate::db::Db<'_>, key: Option<NumberKey>) {
    match (db, key) {
        (crate::db::Db::Sqlite(c), key) => {
            register(c, &KeyCell::new(key.map(std::sync::OnceLock::from).unwrap_or_default())).unwrap()
        }
        (crate::db::Db::Postgres(pg), Some(key)) => {
            let set = pg.number_key().get_or_init(|| key.clone());
            assert_eq!(set.token("+0"), key.token("+0"), "one key per test database");
        }
        (crate::db::Db::Postgres(pg), None) => assert!(pg.number_key().get().is_none()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_stable_keyed_and_does_not_show_the_number() {
        let a = NumberKey::new([7; 32]);
        let b = NumberKey::new([8; 32]);
        let t = a.token("+33612345600");
        assert_eq!(t, a.token("+33612345600"));
        assert_ne!(t, b.token("+33612345600"), "another key, another hash");
        assert_ne!(t, a.token("+33612345601"));
        assert!(is_token(&t) && !t.contains("612345600"));
        assert_eq!(a.token(&t), t, "hashing a hash keeps it");
    }

    #[test]
    fn the_sql_function_answers_null_until_the_key_is_set() {
        let conn = Connection::open_in_memory().unwrap();
        let cell = KeyCell::default();
        register(&conn, &cell).unwrap();
        let read = || -> Option<String> {
            conn.query_row("SELECT number_token('+33612345600')", [], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(read(), None);
        cell.set(NumberKey::new([7; 32])).unwrap();
        assert_eq!(read(), Some(NumberKey::new([7; 32]).token("+33612345600")));
    }
}
