//! A retention period: a number of days, or "never".

use super::value::{wrong_type, SettingValue};

/// How long personal content is kept: `Days(n)` (0: redacted at the next run), or `Never`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Days {
    Days(u32),
    Never,
}

impl Days {
    /// The period in milliseconds; None for never.
    pub fn as_ms(self) -> Option<i64> {
        match self {
            Days::Days(n) => Some(i64::from(n) * 86_400_000),
            Days::Never => None,
        }
    }
}

impl SettingValue for Days {
    const KIND: &'static str = "days (an integer ≥ 0), or \"never\"";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        match value {
            toml::Value::String(s) => Self::from_env(s),
            toml::Value::Integer(n) => u32::try_from(*n)
                .map(Days::Days)
                .map_err(|_| format!("{n} is out of range (0..={})", u32::MAX)),
            other => Err(wrong_type("an integer or \"never\"", other)),
        }
    }
    fn from_env(text: &str) -> Result<Self, String> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("never") {
            return Ok(Days::Never);
        }
        t.parse::<u32>()
            .map(Days::Days)
            .map_err(|_| format!("`{text}` is neither a number of days nor \"never\""))
    }
    fn to_toml(&self) -> String {
        match self {
            Days::Days(n) => n.to_string(),
            Days::Never => "\"never\"".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_read_as_a_number_or_never_and_refuse_the_rest() {
        assert_eq!(Days::from_toml(&toml::Value::Integer(0)), Ok(Days::Days(0)));
        assert_eq!(Days::from_toml(&toml::Value::String("never".into())), Ok(Days::Never));
        assert_eq!(Days::from_env(" 30 "), Ok(Days::Days(30)));
        assert!(Days::from_toml(&toml::Value::Integer(-1)).is_err());
        assert!(Days::from_env("soon").unwrap_err().contains("never"));
        assert_eq!(Days::Days(2).as_ms(), Some(172_800_000));
        assert_eq!(Days::Never.as_ms(), None);
    }
}
