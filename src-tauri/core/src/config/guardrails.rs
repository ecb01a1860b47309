//! The values of `[guardrails]` and of smart encoding: a list of countries, an amount of money,
//! and when typographic characters are replaced.

use super::value::{wrong_type, SettingValue};
use crate::sms::smart::SmartEncoding;

/// Countries as two-letter ISO 3166 codes ("FR, BE"), each one the numbering data knows, or "*"
/// for any. In the file a list (["FR", "BE"]) or one text ("FR, BE"); in a variable the text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Countries(pub Vec<String>);

/// The word that stands for every country in a list.
pub const ANY_COUNTRY: &str = "*";

impl Countries {
    pub fn of(codes: &[&str]) -> Countries {
        Countries(codes.iter().map(|c| (*c).to_owned()).collect())
    }

    /// Whether the list names `*`, every country.
    pub fn is_any(&self) -> bool {
        self.0.iter().any(|c| c == ANY_COUNTRY)
    }

    /// Whether `country` is in the list (or the list is `*`).
    pub fn allows(&self, country: &str) -> bool {
        self.is_any() || self.0.iter().any(|c| c == country)
    }

    /// Reads one code ("fr" is FR), or `*`.
    pub fn read_code(text: &str) -> Result<String, String> {
        let code = text.trim().to_ascii_uppercase();
        if code == ANY_COUNTRY {
            return Ok(code);
        }
        match super::region::Region::from_env(&code)? {
            super::region::Region(Some(code)) => Ok(code),
            super::region::Region(None) => Err("an empty country code".into()),
        }
    }
}

impl SettingValue for Countries {
    const KIND: &'static str = "countries, such as \"FR, BE\" (\"*\" for any)";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        match value {
            toml::Value::String(s) => Self::from_env(s),
            toml::Value::Array(items) => {
                let mut codes = Vec::new();
                for item in items {
                    let text = item
                        .as_str()
                        .ok_or_else(|| wrong_type("a country code in quotes", item))?;
                    codes.push(text.to_owned());
                }
                Self::from_env(&codes.join(","))
            }
            other => Err(wrong_type("countries in quotes, such as \"FR, BE\"", other)),
        }
    }
    fn from_env(text: &str) -> Result<Self, String> {
        let mut codes: Vec<String> = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let code = Countries::read_code(part)?;
            if !codes.contains(&code) {
                codes.push(code);
            }
        }
        Ok(Countries(codes))
    }
    fn to_toml(&self) -> String {
        format!("\"{}\"", self.0.join(", "))
    }
}

/// An amount of money in the office's currency, kept in millionths (0.045 is 45,000), so that
/// prices of a fraction of a cent add up exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Money(pub i64);

/// Millionths in one unit of a currency.
pub const MICROS: i64 = 1_000_000;

impl Money {
    /// Reads "0.045", "12", "12.5": at most six decimals, not negative.
    pub fn parse(text: &str) -> Result<Money, String> {
        let t = text.trim();
        let bad = || format!("`{text}` is not an amount such as 0.045 or 12.50");
        let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
        if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        if frac.len() > 6 {
            return Err(format!("`{text}` has more than six decimals"));
        }
        let whole: i64 = whole.parse().map_err(|_| bad())?;
        let frac: i64 = format!("{frac:0<6}").parse().map_err(|_| bad())?;
        whole
            .checked_mul(MICROS)
            .and_then(|w| w.checked_add(frac))
            .map(Money)
            .ok_or_else(|| format!("`{text}` is too large"))
    }

    /// The amount with as many decimals as it needs (at least two): "0.045", "12.50".
    pub fn text(self) -> String {
        let (whole, frac) = (self.0 / MICROS, self.0 % MICROS);
        let mut frac = format!("{frac:06}");
        while frac.len() > 2 && frac.ends_with('0') {
            frac.pop();
        }
        format!("{whole}.{frac}")
    }
}

impl SettingValue for Money {
    const KIND: &'static str = "amount, such as 0.045 or \"12.50\" (0: none)";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        match value {
            toml::Value::Integer(n) if *n >= 0 => Money::parse(&n.to_string()),
            toml::Value::Float(f) if *f >= 0.0 => Money::parse(&format!("{f}")),
            toml::Value::String(s) => Money::parse(s),
            other => Err(wrong_type("an amount that is not negative, such as 0.045", other)),
        }
    }
    fn from_env(text: &str) -> Result<Self, String> {
        Money::parse(text)
    }
    fn to_toml(&self) -> String {
        format!("\"{}\"", self.text())
    }
}

/// A currency's three-letter code (ISO 4217), in capitals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Currency(pub String);

impl SettingValue for Currency {
    const KIND: &'static str = "three-letter currency code, such as \"EUR\"";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_env(
            value
                .as_str()
                .ok_or_else(|| wrong_type("a currency code in quotes", value))?,
        )
    }
    fn from_env(text: &str) -> Result<Self, String> {
        let code = text.trim().to_ascii_uppercase();
        match code.len() == 3 && code.bytes().all(|b| b.is_ascii_uppercase()) {
            true => Ok(Currency(code)),
            false => Err(format!("`{text}` is not a currency code (three letters, such as EUR)")),
        }
    }
    fn to_toml(&self) -> String {
        format!("\"{}\"", self.0)
    }
}

impl SettingValue for SmartEncoding {
    const KIND: &'static str = "\"off\", \"typography\" or \"always\"";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_env(
            value
                .as_str()
                .ok_or_else(|| wrong_type("off, typography or always in quotes", value))?,
        )
    }
    fn from_env(text: &str) -> Result<Self, String> {
        text.parse()
    }
    fn to_toml(&self) -> String {
        format!("\"{}\"", self.as_str())
    }
}

/// What one part costs to a country or a number prefix: a row of a connection's price table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Price {
    /// "+3367" (a prefix of E.164 numbers), "FR" (a country) or "*" (anywhere else).
    pub to: String,
    pub price: Money,
    /// As written in the row (checked against `guardrails.currency`); None when left out.
    pub currency: Option<String>,
}

/// A connection's prices per part (`[[connections.NAME.prices]]`, or `[[smpp.prices]]` for the
/// one connection): the longest prefix matching the number wins, then its country, then "*".
/// In the file, rows of `prefix` or `country`, `price` and optionally `currency`; in a variable,
/// "FR=0.045, +3367=0.06, *=0.08".
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Prices(pub Vec<Price>);

impl Prices {
    /// The price of a part to `destination` (E.164) in `country`, when a row covers it.
    pub fn lookup(&self, destination: &str, country: Option<&str>) -> Option<Money> {
        let by_prefix = self
            .0
            .iter()
            .filter(|p| p.to.starts_with('+') && destination.starts_with(&p.to))
            .max_by_key(|p| p.to.len());
        let by_country = || self.0.iter().find(|p| Some(p.to.as_str()) == country);
        let anywhere = || self.0.iter().find(|p| p.to == ANY_COUNTRY);
        by_prefix.or_else(by_country).or_else(anywhere).map(|p| p.price)
    }

    fn read_to(text: &str) -> Result<String, String> {
        let t = text.trim();
        match t.strip_prefix('+') {
            Some(digits) if !digits.is_empty() && digits.len() <= 15 && digits.bytes().all(|b| b.is_ascii_digit()) => {
                Ok(t.to_owned())
            }
            Some(_) => Err(format!("`{t}` is not a number prefix such as +3367")),
            None => Countries::read_code(t),
        }
    }

    fn push(&mut self, row: Price) -> Result<(), String> {
        if self.0.iter().any(|p| p.to == row.to) {
            return Err(format!("`{}` has two prices", row.to));
        }
        self.0.push(row);
        Ok(())
    }
}

impl SettingValue for Prices {
    const KIND: &'static str = "price rows: { country = \"FR\" or prefix = \"+3367\", price = 0.045 }";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        let rows = value
            .as_array()
            .ok_or_else(|| wrong_type("rows such as [[connections.NAME.prices]]", value))?;
        let mut out = Prices::default();
        for (i, row) in rows.iter().enumerate() {
            let at = |reason: String| format!("row {}: {reason}", i + 1);
            let t = row
                .as_table()
                .ok_or_else(|| at(wrong_type("a table with country or prefix, and price", row)))?;
            if let Some(k) = t
                .keys()
                .find(|k| !["country", "prefix", "price", "currency"].contains(&k.as_str()))
            {
                return Err(at(format!(
                    "unknown key `{k}`; a row has country or prefix, price, currency"
                )));
            }
            let to = match (t.get("country"), t.get("prefix")) {
                (Some(c), None) => c
                    .as_str()
                    .ok_or_else(|| at(wrong_type("a country code in quotes", c)))?,
                (None, Some(p)) => p.as_str().ok_or_else(|| at(wrong_type("a prefix in quotes", p)))?,
                _ => return Err(at("give either country (\"FR\", \"*\") or prefix (\"+3367\")".into())),
            };
            let to = Prices::read_to(to).map_err(at)?;
            if t.get("country").is_some() && to.starts_with('+') {
                return Err(at(format!("`{to}` is a prefix: write it as prefix = \"{to}\"")));
            }
            let price = t.get("price").ok_or_else(|| at("price is missing".into()))?;
            let price = Money::from_toml(price).map_err(at)?;
            let currency = match t.get("currency") {
                Some(c) => Some(Currency::from_toml(c).map_err(at)?.0),
                None => None,
            };
            out.push(Price { to, price, currency }).map_err(at)?;
        }
        Ok(out)
    }
    fn from_env(text: &str) -> Result<Self, String> {
        let mut out = Prices::default();
        for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (to, price) = pair
                .split_once('=')
                .ok_or_else(|| format!("`{pair}` is not written like FR=0.045 or +3367=0.06"))?;
            out.push(Price {
                to: Prices::read_to(to)?,
                price: Money::parse(price)?,
                currency: None,
            })?;
        }
        Ok(out)
    }
    fn to_toml(&self) -> String {
        let rows: Vec<String> = self
            .0
            .iter()
            .map(|p| {
                let key = if p.to.starts_with('+') { "prefix" } else { "country" };
                let currency = p
                    .currency
                    .as_ref()
                    .map(|c| format!(", currency = \"{c}\""))
                    .unwrap_or_default();
                format!("{{ {key} = \"{}\", price = \"{}\"{currency} }}", p.to, p.price.text())
            })
            .collect();
        format!("[{}]", rows.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_read_exactly_and_written_back() {
        assert_eq!(Money::parse("0.045"), Ok(Money(45_000)));
        assert_eq!(Money::parse("12"), Ok(Money(12_000_000)));
        assert_eq!(Money::parse("12.5").unwrap().text(), "12.50");
        assert_eq!(Money(45_000).text(), "0.045");
        assert!(Money::parse("-1").is_err());
        assert!(Money::parse("0.0000001").unwrap_err().contains("six decimals"));
        assert!(Money::parse("1,5").is_err());
        let toml_float: toml::Value = "x = 0.07".parse::<toml::Table>().unwrap()["x"].clone();
        assert_eq!(Money::from_toml(&toml_float), Ok(Money(70_000)));
    }

    #[test]
    fn countries_are_codes_the_numbering_data_knows_or_any() {
        assert_eq!(Countries::from_env("fr, be,FR"), Ok(Countries::of(&["FR", "BE"])));
        assert!(Countries::from_env("*").unwrap().allows("GB"));
        assert!(Countries::from_env("France")
            .unwrap_err()
            .contains("not a country code"));
        let list: toml::Value = "x = [\"RU\", \"kz\"]".parse::<toml::Table>().unwrap()["x"].clone();
        assert_eq!(Countries::from_toml(&list), Ok(Countries::of(&["RU", "KZ"])));
        assert!(Currency::from_env("euro").is_err());
    }

    #[test]
    fn the_longest_prefix_wins_then_the_country_then_anywhere() {
        let rows: toml::Table = r#"
            prices = [{ country = "FR", price = 0.05 }, { prefix = "+3367", price = "0.06" },
                      { prefix = "+336", price = 0.055 }, { country = "*", price = 0.08, currency = "EUR" }]
        "#
        .parse()
        .unwrap();
        let p = Prices::from_toml(&rows["prices"]).unwrap();
        assert_eq!(p.lookup("+33671234567", Some("FR")), Some(Money(60_000)));
        assert_eq!(p.lookup("+33612345678", Some("FR")), Some(Money(55_000)));
        assert_eq!(p.lookup("+33112345678", Some("FR")), Some(Money(50_000)));
        assert_eq!(p.lookup("+447700900123", Some("GB")), Some(Money(80_000)));
        let again: toml::Table = format!("x = {}", p.to_toml()).parse().unwrap();
        assert_eq!(Prices::from_toml(&again["x"]).unwrap(), p);
        assert_eq!(
            Prices::from_env("FR=0.045, +3367=0.06")
                .unwrap()
                .lookup("+33671", Some("FR")),
            Some(Money(60_000))
        );
        let twice: toml::Table = "x = [{ country = \"FR\", price = 1 }, { country = \"fr\", price = 2 }]"
            .parse()
            .unwrap();
        assert!(Prices::from_toml(&twice["x"]).unwrap_err().contains("two prices"));
        let neither: toml::Table = "x = [{ price = 1 }]".parse().unwrap();
        assert!(Prices::from_toml(&neither["x"]).unwrap_err().contains("either country"));
    }
}
