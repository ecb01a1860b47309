//! The `settings!` macro: from one list of sections and keys (in `settings.rs`), the typed
//! `Config`, its defaults, the documentation of every key, and reading a key from the file or the
//! environment.

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
        pub struct Config {
            $( pub $section: $Section, )*
            /// `[connections.<name>]`, in the file's order (none: `[smpp]` is the connection).
            pub connections: Vec<ConnectionSettings>,
            /// `[[routes]]`, in order (none: the default route).
            pub routes: Vec<Route>,
        }

        impl Default for Config {
            fn default() -> Self {
                Config { $( $section: $Section::default(), )* connections: Vec::new(), routes: Vec::new() }
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

            pub fn set_from_env(&mut self, section: &str, key: &str, text: &str) -> Result<(), String> {
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

/// A setting that is one of a few words: the enum, its words, and reading and writing it.
macro_rules! word_setting {
    ($(#[$doc:meta])* $name:ident, $kind:literal { $($(#[$vdoc:meta])* $variant:ident = $word:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $($(#[$vdoc])* $variant),* }

        impl $name {
            pub const fn as_str(self) -> &'static str {
                match self { $($name::$variant => $word),* }
            }
        }

        impl SettingValue for $name {
            const KIND: &'static str = $kind;
            fn from_toml(value: &toml::Value) -> Result<Self, String> {
                Self::from_env(value.as_str().ok_or_else(|| wrong_type(concat!("one of ", $kind), value))?)
            }
            fn from_env(text: &str) -> Result<Self, String> {
                match text.trim().to_ascii_lowercase().as_str() {
                    $($word => Ok($name::$variant),)*
                    _ => Err(format!(concat!("`{}` is not one of ", $kind), text)),
                }
            }
            fn to_toml(&self) -> String {
                format!("\"{}\"", self.as_str())
            }
        }
    };
}
