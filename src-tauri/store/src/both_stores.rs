//! For tests that hold on both stores: a new database of each, migrated to this build's schema,
//! handed to the test in turn (SQLite first, then PostgreSQL).

use smsdesk_core::time::Clock;

use crate::db::{pg_test, Db};

/// Runs `f` on a new, migrated SQLite database (a file, with the store's pragmas, which register
/// its SQL functions but `number_token`), then on a new, migrated database of the tests'
/// PostgreSQL.
pub(crate) fn on_both(f: impl Fn(Db<'_>)) {
    let dir = tempfile::tempdir().unwrap();
    let mut sqlite = rusqlite::Connection::open(dir.path().join("smsdesk.db")).unwrap();
    crate::pragmas::apply(&sqlite, crate::pragmas::Role::Writer).unwrap();
    crate::migrations::migrate(&mut sqlite, &Clock::system()).unwrap();
    f(Db::Sqlite(&sqlite));
    let database = pg_test::database();
    let pg = database.connect();
    crate::postgres::migrations::migrate(Db::Postgres(&pg), &Clock::system()).unwrap();
    f(Db::Postgres(&pg));
}
