//! Where a PostgreSQL store is: its address, and the password given beside it (never inside a
//! text that is shown or logged).

use std::fmt;
use std::sync::Arc;

use postgres::config::Host;
use postgres::{Client, NoTls};

use crate::StoreError;

/// A PostgreSQL database to connect to, and how it is named where it is shown.
#[derive(Clone)]
pub struct PgTarget {
    /// Shared: the reads' connections are made from it again and again.
    config: Arc<postgres::Config>,
    shown: String,
}

impl PgTarget {
    /// The database at `url` (`postgres://user@host:port/database?options`, or key=value pairs),
    /// with `password` when given (it replaces one the address holds).
    pub fn new(url: &str, password: Option<&str>) -> Result<PgTarget, StoreError> {
        // The client's own words could quote the address, password and all: not repeated.
        let mut config: postgres::Config = url
            .parse()
            .map_err(|_| StoreError::Address("the PostgreSQL address cannot be read".into()))?;
        if let Some(p) = password {
            config.password(p);
        }
        let shown = shown(&config);
        Ok(PgTarget {
            config: Arc::new(config),
            shown,
        })
    }

    /// `postgres://user@host:port/database`: what logs, answers and screens may say of it.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// A new session, set up as every store connection is: no JIT compilation (PostgreSQL's
    /// default compiles a query it estimates costly, which costs a writer's short statements
    /// around 100 ms each: the store's queries are many and small, and read by index).
    pub(crate) fn connect(&self) -> Result<Client, postgres::Error> {
        let mut client = self.config.connect(NoTls)?;
        client.batch_execute("SET jit = off")?;
        Ok(client)
    }
}

impl fmt::Debug for PgTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("PgTarget").field(&self.shown).finish()
    }
}

/// The address without its password or options.
fn shown(config: &postgres::Config) -> String {
    let user = config.get_user().map(|u| format!("{u}@")).unwrap_or_default();
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let host = match h {
                Host::Tcp(name) => name.clone(),
                Host::Unix(path) => path.display().to_string(),
            };
            match config.get_ports().get(i).or(config.get_ports().first()) {
                Some(port) => format!("{host}:{port}"),
                None => host,
            }
        })
        .collect();
    let database = config.get_dbname().unwrap_or_default();
    format!("postgres://{user}{}/{database}", hosts.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shown_address_never_holds_the_password() {
        let t = PgTarget::new(
            "postgres://smsdesk:inline@db.lan:5433/sms?sslmode=disable",
            Some("given"),
        )
        .unwrap();
        assert_eq!(t.shown(), "postgres://smsdesk@db.lan:5433/sms");
        assert!(!format!("{t:?}").contains("given") && !format!("{t:?}").contains("inline"));
        assert_eq!(t.config.get_password(), Some(&b"given"[..]));
        let kv = PgTarget::new("host=127.0.0.1 port=6000 user=a password=x dbname=b", None).unwrap();
        assert_eq!(kv.shown(), "postgres://a@127.0.0.1:6000/b");
        let bad = PgTarget::new("postgres://a:secret@h:notaport/b", None)
            .unwrap_err()
            .to_string();
        assert!(!bad.contains("secret"), "{bad}");
    }
}
