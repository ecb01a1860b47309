//! Where the store is: the backend, and a PostgreSQL database's address.

use super::value::{wrong_type, SettingValue};

word_setting! {
    /// The database smsdesk keeps everything in.
    StoreBackend, "sqlite or postgres" {
        /// One file in the data directory, for one smsdesk.
        Sqlite = "sqlite",
        /// A PostgreSQL database, which several smsdesk nodes may share.
        Postgres = "postgres",
    }
}

/// A PostgreSQL database's address, `postgres://user@host:port/database?options`, without the
/// password: an address is shown and logged, a password never is (it has settings of its own).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PgUrl(pub String);

impl PgUrl {
    /// Whether one was given.
    pub fn is_set(&self) -> bool {
        !self.0.is_empty()
    }
}

impl SettingValue for PgUrl {
    const KIND: &'static str = "postgres:// address";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_env(
            value
                .as_str()
                .ok_or_else(|| wrong_type("a postgres:// address", value))?,
        )
    }
    fn from_env(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(PgUrl::default());
        }
        let Some(rest) = text
            .strip_prefix("postgres://")
            .or_else(|| text.strip_prefix("postgresql://"))
        else {
            return Err("expected an address that starts with postgres://".into());
        };
        // The part before the host: `user` or `user:password`, up to the last `@`.
        let authority = rest.split(['/', '?']).next().unwrap_or_default();
        if let Some((user, _)) = authority.rsplit_once('@') {
            if user.contains(':') {
                // Not repeated: the answer goes to a log and a screen.
                return Err(
                    "the address holds a password: remove it, and give it in store.password_file, \
                            with `smsdesk store-password` or in SMSDESK_STORE_PASSWORD"
                        .into(),
                );
            }
        }
        if authority.rsplit('@').next().unwrap_or_default().is_empty() {
            return Err("the address names no host".into());
        }
        Ok(PgUrl(text.to_owned()))
    }
    fn to_toml(&self) -> String {
        toml::Value::String(self.0.clone()).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_taken_without_its_password_only() {
        let ok = PgUrl::from_env("postgres://smsdesk@db.lan:5433/sms?sslmode=require").unwrap();
        assert_eq!(ok.0, "postgres://smsdesk@db.lan:5433/sms?sslmode=require");
        assert!(PgUrl::from_env("postgresql://db.lan/sms").is_ok());
        assert_eq!(PgUrl::from_env("  ").unwrap(), PgUrl::default());
        let said = PgUrl::from_env("postgres://smsdesk:hunter2@db.lan/sms").unwrap_err();
        assert!(said.contains("holds a password") && !said.contains("hunter2"), "{said}");
        assert!(PgUrl::from_env("mysql://db.lan/sms").is_err());
        assert!(PgUrl::from_env("postgres:///sms").is_err());
        assert!(PgUrl::from_env("postgres://smsdesk@/sms").is_err());
    }

    #[test]
    fn the_backend_is_one_of_two_words() {
        assert_eq!(StoreBackend::from_env(" Postgres ").unwrap(), StoreBackend::Postgres);
        assert_eq!(StoreBackend::from_env("sqlite").unwrap(), StoreBackend::Sqlite);
        assert!(StoreBackend::from_env("mysql").is_err());
    }
}
