//! A database of its own on the tests' PostgreSQL for each test that needs one. The server is the
//! test command's (`cargo xtask test`, or `cargo xtask postgres -- cargo test …` alone), found in
//! `SMSDESK_TEST_PG_URL`; without it these tests fail, saying how to run them, rather than pass
//! without having run.

use std::sync::atomic::{AtomicU32, Ordering};

use super::PgConn;

/// The variable the test command puts the server's URL in.
pub const URL_VAR: &str = "SMSDESK_TEST_PG_URL";

/// A new, empty database, dropped with this.
pub struct TestDb {
    pub url: String,
    name: String,
    admin: String,
}

/// The server's URL (a superuser's, on its `postgres` database).
pub fn server_url() -> String {
    std::env::var(URL_VAR).unwrap_or_else(|_| {
        panic!(
            "{URL_VAR} is not set: the store's PostgreSQL tests need a server. Run them with \
             `cargo xtask test`, or `cargo xtask postgres -- cargo test -p smsdesk-store`, which \
             start a private one"
        )
    })
}

/// A database made for one test, named after the process and a count.
pub fn database() -> TestDb {
    static COUNT: AtomicU32 = AtomicU32::new(0);
    let admin = server_url();
    let name = format!("t{}_{}", std::process::id(), COUNT.fetch_add(1, Ordering::SeqCst));
    let conn = PgConn::connect(&admin).expect("the tests' PostgreSQL answers");
    super::Db::Postgres(&conn)
        .execute_batch(&format!("CREATE DATABASE {name}"))
        .expect("a test database is made");
    let base = admin.rsplit_once('/').map_or(admin.as_str(), |(base, _)| base);
    TestDb {
        url: format!("{base}/{name}"),
        name,
        admin,
    }
}

impl TestDb {
    pub fn connect(&self) -> PgConn {
        PgConn::connect(&self.url).expect("the test database answers")
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Ok(conn) = PgConn::connect(&self.admin) {
            let _ = super::Db::Postgres(&conn)
                .execute_batch(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
        }
    }
}
