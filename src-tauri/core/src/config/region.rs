//! The office's country setting (`intake.default_region`): two letters of ISO 3166, in any case,
//! of a country the numbering data knows.

use super::value::{wrong_type, SettingValue};

/// A country as its two-letter ISO 3166 code ("FR", or "fr": kept in capitals), one the
/// numbering data knows, or none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region(pub Option<String>);

impl SettingValue for Region {
    const KIND: &'static str = "two-letter country code, or empty";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_env(
            value
                .as_str()
                .ok_or_else(|| wrong_type("a country code in quotes", value))?,
        )
    }
    fn from_env(text: &str) -> Result<Self, String> {
        let code = text.trim().to_ascii_uppercase();
        if code.is_empty() {
            return Ok(Region(None));
        }
        let known = code
            .parse::<phonenumber::country::Id>()
            .is_ok_and(|id| phonenumber::metadata::DATABASE.by_id(id.as_ref()).is_some());
        if !known {
            return Err(format!(
                "`{}` is not a country code: give the country's two letters (ISO 3166), such as FR, BE or RU",
                text.trim()
            ));
        }
        Ok(Region(Some(code)))
    }
    fn to_toml(&self) -> String {
        format!("\"{}\"", self.0.as_deref().unwrap_or(""))
    }
}
