//! A database of its own for an end-to-end test on the tests' PostgreSQL (`SMSDESK_TEST_PG_URL`,
//! which the test command starts), the nodes' login role, and a data directory configured for it.

use std::process::Command;

const URL_VAR: &str = "SMSDESK_TEST_PG_URL";

/// A database made for one test on the tests' server, and the login role its nodes run as (a
/// member of `smsdesk_app`, which the schema's first migration makes), dropped at the end.
pub struct Database {
    /// `postgres://owner@host:port/name`, without the password: the owner's.
    pub url: String,
    pub password: String,
    /// The same for the nodes' role.
    pub node_url: String,
    pub node_password: String,
    pub admin: String,
    pub name: String,
}

impl Database {
    pub fn new(name: &str) -> Database {
        let admin = std::env::var(URL_VAR).unwrap_or_else(|_| {
            panic!("{URL_VAR} is not set: run the tests with `cargo xtask test` (or `cargo xtask postgres -- cargo test`), which start a private PostgreSQL")
        });
        let name = format!("{name}_{}", std::process::id());
        psql(&admin, &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
        psql(&admin, &format!("CREATE DATABASE {name}"));
        // postgres://user:password@host:port/postgres
        let rest = admin.strip_prefix("postgres://").expect("a postgres:// address");
        let (user_password, host_and_db) = rest.rsplit_once('@').expect("user and password");
        let (user, password) = user_password.split_once(':').expect("a password");
        let host = host_and_db.split('/').next().unwrap();
        Database {
            url: format!("postgres://{user}@{host}/{name}"),
            password: password.to_owned(),
            node_url: format!("postgres://{name}_node@{host}/{name}"),
            node_password: format!("node-{}", std::process::id()),
            admin,
            name,
        }
    }

    /// Makes the nodes' login role, once the schema (and `smsdesk_app` with it) exists.
    pub fn make_node_role(&self) {
        psql(
            &self.admin,
            &format!(
                "DROP ROLE IF EXISTS {0}_node; CREATE ROLE {0}_node LOGIN PASSWORD '{1}' IN ROLE smsdesk_app",
                self.name, self.node_password
            ),
        );
    }

    pub fn count(&self, sql: &str) -> i64 {
        psql(&self.admin_url(), sql).trim().parse().unwrap()
    }

    /// The superuser's address of this database.
    pub fn admin_url(&self) -> String {
        let base = self.admin.rsplit_once('/').unwrap().0;
        format!("{base}/{}", self.name)
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        psql(
            &self.admin,
            &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
        );
    }
}

/// What `psql` prints for `sql` on the database at `url` (unaligned, tuples only).
pub fn psql(url: &str, sql: &str) -> String {
    let out = Command::new("psql")
        .args([url, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql])
        .output()
        .expect("psql runs (Debian's postgresql-client, installed with postgresql)");
    assert!(out.status.success(), "{sql}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Writes the data directory's config: the store at `url`, its `password` in a file of the
/// owner's alone.
pub fn configure(data: &std::path::Path, url: &str, password: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(data).unwrap();
    let file = data.join("pg.password");
    std::fs::write(&file, format!("{password}\n")).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::write(
        data.join("smsdesk.toml"),
        format!("[store]\nbackend = \"postgres\"\nurl = \"{url}\"\npassword_file = \"pg.password\"\n"),
    )
    .unwrap();
}

/// Restarts the tests' PostgreSQL as a crash would (`pg_ctl restart -m immediate`: every
/// connection cut, nothing shut down cleanly), and waits until it answers again. Only for a test
/// binary of its own: the others share the server (`SMSDESK_TEST_PG_CTL`, from the test command).
pub fn restart_server() {
    let ctl = std::env::var("SMSDESK_TEST_PG_CTL").unwrap_or_else(|_| {
        panic!("SMSDESK_TEST_PG_CTL is not set: run the tests with `cargo xtask test` (or `cargo xtask postgres -- cargo test`)")
    });
    let args: Vec<&str> = ctl.lines().collect();
    let out = Command::new(args[0])
        .args(&args[1..])
        .args(["restart", "-m", "immediate", "-w", "-t", "60"])
        .output()
        .expect("pg_ctl runs");
    assert!(
        out.status.success(),
        "pg_ctl restart: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
