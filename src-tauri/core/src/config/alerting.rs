//! The values of `[alerts]` and `[smtp]`: quiet hours, an hour of the day, a percentage, e-mail
//! addresses, the language of alerts and how SMTP is secured.

use super::value::{wrong_type, SettingValue};

/// A time of day range in which a channel stays quiet ("22:00-07:00", across midnight when the end
/// is earlier than the start), or none ("").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QuietHours(pub Option<(u16, u16)>);

impl QuietHours {
    /// Whether `minute_of_day` (0..1440, the office's local time) falls in the quiet hours.
    pub fn holds(self, minute_of_day: u16) -> bool {
        match self.0 {
            None => false,
            Some((from, to)) if from <= to => minute_of_day >= from && minute_of_day < to,
            Some((from, to)) => minute_of_day >= from || minute_of_day < to,
        }
    }
}

fn clock_minutes(text: &str) -> Option<u16> {
    let (h, m) = text.trim().split_once(':')?;
    let (h, m): (u16, u16) = (h.parse().ok()?, m.parse().ok()?);
    (h < 24 && m < 60 && text.trim().len() == 5).then_some(h * 60 + m)
}

impl SettingValue for QuietHours {
    const KIND: &'static str = "a time range such as \"22:00-07:00\", or \"\" for none";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_env(
            value
                .as_str()
                .ok_or_else(|| wrong_type("\"HH:MM-HH:MM\" in quotes", value))?,
        )
    }
    fn from_env(text: &str) -> Result<Self, String> {
        let t = text.trim();
        if t.is_empty() {
            return Ok(QuietHours(None));
        }
        let bad = || format!("`{text}` is not a range of times such as \"22:00-07:00\"");
        let (from, to) = t.split_once('-').ok_or_else(bad)?;
        match (clock_minutes(from), clock_minutes(to)) {
            (Some(f), Some(t)) if f != t => Ok(QuietHours(Some((f, t)))),
            (Some(_), Some(_)) => Err(format!("`{text}`: the range starts and ends at the same time")),
            _ => Err(bad()),
        }
    }
    fn to_toml(&self) -> String {
        match self.0 {
            None => "\"\"".into(),
            Some((f, t)) => format!("\"{:02}:{:02}-{:02}:{:02}\"", f / 60, f % 60, t / 60, t % 60),
        }
    }
}

/// An hour of the day, 0 to 23.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hour(pub u8);

impl SettingValue for Hour {
    const KIND: &'static str = "integer, an hour of the day (0..=23)";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        let n = value.as_integer().ok_or_else(|| wrong_type("an integer", value))?;
        u8::try_from(n)
            .ok()
            .filter(|h| *h < 24)
            .map(Hour)
            .ok_or_else(|| format!("{n} is not an hour of the day (0..=23)"))
    }
    fn from_env(text: &str) -> Result<Self, String> {
        let n: i64 = text
            .trim()
            .parse()
            .map_err(|_| format!("`{text}` is not an hour of the day (0..=23)"))?;
        Self::from_toml(&toml::Value::Integer(n))
    }
    fn to_toml(&self) -> String {
        self.0.to_string()
    }
}

/// A percentage, 1 to 100.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Percent(pub u8);

impl SettingValue for Percent {
    const KIND: &'static str = "integer, a percentage (1..=100)";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        let n = value.as_integer().ok_or_else(|| wrong_type("an integer", value))?;
        u8::try_from(n)
            .ok()
            .filter(|p| (1..=100).contains(p))
            .map(Percent)
            .ok_or_else(|| format!("{n} is not a percentage (1..=100)"))
    }
    fn from_env(text: &str) -> Result<Self, String> {
        let n: i64 = text
            .trim()
            .parse()
            .map_err(|_| format!("`{text}` is not a percentage (1..=100)"))?;
        Self::from_toml(&toml::Value::Integer(n))
    }
    fn to_toml(&self) -> String {
        self.0.to_string()
    }
}

/// E-mail addresses (in an environment variable, separated by commas). Each must have one `@`
/// with something on both sides, and no space or control character.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Addresses(pub Vec<String>);

fn address(text: &str) -> Result<String, String> {
    let a = text.trim();
    let ok = matches!(a.split_once('@'), Some((user, host)) if !user.is_empty() && host.contains('.') && !host.contains('@'))
        && !a
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '<' || c == '>' || c == ',');
    ok.then(|| a.to_owned())
        .ok_or_else(|| format!("`{a}` is not an e-mail address such as office@example.org"))
}

impl SettingValue for Addresses {
    const KIND: &'static str = "list of e-mail addresses, such as [\"office@example.org\"]";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        let items = value
            .as_array()
            .ok_or_else(|| wrong_type("a list of addresses in quotes", value))?;
        let mut out = Vec::new();
        for item in items {
            out.push(address(
                item.as_str().ok_or_else(|| wrong_type("an address in quotes", item))?,
            )?);
        }
        Ok(Addresses(out))
    }
    fn from_env(text: &str) -> Result<Self, String> {
        text.split(',')
            .filter(|a| !a.trim().is_empty())
            .map(address)
            .collect::<Result<_, _>>()
            .map(Addresses)
    }
    fn to_toml(&self) -> String {
        let items: Vec<String> = self
            .0
            .iter()
            .map(|a| toml::Value::String(a.clone()).to_string())
            .collect();
        format!("[{}]", items.join(", "))
    }
}

word_setting! {
    /// The language alerts and the daily summary are written in.
    AlertLanguage, "auto, en, fr or ru" {
        /// From the office's country (`intake.default_region`): French for France, Belgium,
        /// Switzerland, Luxembourg, Monaco, Canada; Russian for Russia, Belarus, Kazakhstan,
        /// Kyrgyzstan; English otherwise.
        Auto = "auto",
        En = "en",
        Fr = "fr",
        Ru = "ru",
    }
}

word_setting! {
    /// How the connection to the SMTP server is secured.
    SmtpSecurity, "starttls, tls or none" {
        /// Plain connection upgraded with STARTTLS (port 587); refused if the server does not offer it.
        Starttls = "starttls",
        /// TLS from the first byte (port 465).
        Tls = "tls",
        /// No encryption: only for a relay on this machine or a trusted network.
        None = "none",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_hours_read_across_midnight_and_refuse_nonsense() {
        let q = QuietHours::from_env("22:00-07:00").unwrap();
        assert!(q.holds(23 * 60) && q.holds(0) && q.holds(6 * 60 + 59));
        assert!(!q.holds(7 * 60) && !q.holds(12 * 60) && !q.holds(21 * 60 + 59));
        let day = QuietHours::from_env("12:00-14:00").unwrap();
        assert!(day.holds(13 * 60) && !day.holds(14 * 60) && !day.holds(11 * 60));
        assert_eq!(QuietHours::from_env("").unwrap(), QuietHours(None));
        assert!(!QuietHours(None).holds(0));
        for bad in ["22-07", "25:00-07:00", "22:00", "22:00-22:00", "7:00-8:00"] {
            assert!(QuietHours::from_env(bad).is_err(), "{bad} must be refused");
        }
        assert_eq!(q.to_toml(), "\"22:00-07:00\"");
    }

    #[test]
    fn addresses_hours_and_percentages_keep_to_their_ranges() {
        assert_eq!(
            Addresses::from_env("a@example.org, b@example.fr").unwrap().0,
            ["a@example.org", "b@example.fr"]
        );
        for bad in ["nobody", "a@b", "a b@example.org", "<a@example.org>"] {
            assert!(Addresses::from_env(bad).is_err(), "{bad} must be refused");
        }
        assert_eq!(Hour::from_env("23"), Ok(Hour(23)));
        assert!(Hour::from_env("24").is_err());
        assert!(Percent::from_env("0").is_err() && Percent::from_env("101").is_err());
        assert_eq!(SmtpSecurity::from_env("TLS"), Ok(SmtpSecurity::Tls));
        assert!(AlertLanguage::from_env("de").unwrap_err().contains("en, fr or ru"));
    }
}
