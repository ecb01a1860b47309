//! Every setting smsdesk reads, with its documentation and default. The config file template, the
//! environment variable names and the typed `Config` are all generated from this one list.

use std::net::{IpAddr, Ipv4Addr};

use super::value::{AtLeastOne, LogFilter, SettingValue};
use super::{KeySpec, SectionSpec};

macro_rules! settings {
    ( $(
        $(#[doc = $sdoc:literal])*
        $section:ident : $Section:ident {
            $(
                $(#[doc = $kdoc:literal])*
                $key:ident : $ty:ty = $default:expr
            ),* $(,)?
        }
    )* ) => {
        /// The whole configuration, after file, environment and defaults were merged.
        #[derive(Debug, Clone, PartialEq)]
        pub struct Config { $( pub $section: $Section, )* }

        impl Default for Config {
            fn default() -> Self {
                Config { $( $section: $Section::default(), )* }
            }
        }

        $(
            $(#[doc = $sdoc])*
            #[derive(Debug, Clone, PartialEq)]
            pub struct $Section { $( $(#[doc = $kdoc])* pub $key: $ty, )* }

            impl Default for $Section {
                fn default() -> Self {
                    $Section { $( $key: $default, )* }
                }
            }
        )*

        /// The documentation of every section and setting, in file order.
        pub const SECTIONS: &[SectionSpec] = &[ $(
            SectionSpec {
                name: stringify!($section),
                doc: concat!($($sdoc, "\n"),*),
                keys: &[ $( KeySpec {
                    name: stringify!($key),
                    doc: concat!($($kdoc, "\n"),*),
                    kind: <$ty as SettingValue>::KIND,
                } ),* ],
            }
        ),* ];

        impl Config {
            pub(super) fn set_from_toml(&mut self, section: &str, key: &str, value: &toml::Value) -> Result<(), String> {
                match (section, key) {
                    $( $( (stringify!($section), stringify!($key)) => {
                        self.$section.$key = <$ty as SettingValue>::from_toml(value)?;
                        Ok(())
                    } )* )*
                    _ => Err("unknown setting".into()),
                }
            }

            pub(super) fn set_from_env(&mut self, section: &str, key: &str, text: &str) -> Result<(), String> {
                match (section, key) {
                    $( $( (stringify!($section), stringify!($key)) => {
                        self.$section.$key = <$ty as SettingValue>::from_env(text)?;
                        Ok(())
                    } )* )*
                    _ => Err("unknown setting".into()),
                }
            }

            /// A setting's current value, written as TOML.
            pub fn value_as_toml(&self, section: &str, key: &str) -> Option<String> {
                match (section, key) {
                    $( $( (stringify!($section), stringify!($key)) => Some(self.$section.$key.to_toml()), )* )*
                    _ => None,
                }
            }
        }
    };
}

settings! {
    /// The local HTTP server: the API for your website or CRM, receipt callbacks from HTTP
    /// providers, and the UI for a second operator's browser.
    http: HttpSettings {
        /// Address to listen on. 127.0.0.1 keeps the server reachable from this computer only.
        /// Any other address (for example 0.0.0.0) opens it to your network: smsdesk logs a
        /// warning when it does.
        bind: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST),
        /// TCP port. 0 lets the system pick a free one (the address in use is written to
        /// instance.json in the data directory and printed at start).
        port: u16 = 8470,
    }

    /// Logging: to the terminal (standard error) and to daily files in the data directory's logs
    /// folder. The RUST_LOG environment variable, when set, wins over `level`.
    log: LogSettings {
        /// How much to log: error, warn, info, debug or trace, or a filter such as
        /// "info,smsdesk_engine=debug".
        level: LogFilter = LogFilter("info".into()),
        /// How many daily log files to keep; older ones are deleted.
        keep_files: AtLeastOne = AtLeastOne(14),
    }

    /// The database: one SQLite file holding every message, attempt, receipt and decision.
    store: StoreSettings {
        /// Database file. A relative path is taken inside the data directory.
        database: String = "smsdesk.db".into(),
    }
}
