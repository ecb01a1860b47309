//! Settings that hold lists: words (the opt-out keywords) and message kinds.

use super::value::{wrong_type, SettingValue};

/// A list of words or short phrases (the opt-out keywords): in the file an array of strings, in an
/// environment variable separated by commas. Empty entries are dropped.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Words(pub Vec<String>);

impl Words {
    pub fn of(words: &[&str]) -> Words {
        Words(words.iter().map(|w| (*w).to_owned()).collect())
    }
}

impl SettingValue for Words {
    const KIND: &'static str = "list of words, such as [\"STOP\", \"STOP SMS\"]";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        let items = value
            .as_array()
            .ok_or_else(|| wrong_type("a list of words in quotes, such as [\"STOP\"]", value))?;
        let mut words = Vec::new();
        for item in items {
            let word = item
                .as_str()
                .ok_or_else(|| wrong_type("a word in quotes", item))?
                .trim();
            if word.chars().any(char::is_control) {
                return Err(format!("`{word}` holds a control character"));
            }
            if !word.is_empty() {
                words.push(word.to_owned());
            }
        }
        Ok(Words(words))
    }
    fn from_env(text: &str) -> Result<Self, String> {
        Ok(Words(
            text.split(',')
                .map(str::trim)
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
                .collect(),
        ))
    }
    fn to_toml(&self) -> String {
        let items: Vec<String> = self
            .0
            .iter()
            .map(|w| toml::Value::String(w.clone()).to_string())
            .collect();
        format!("[{}]", items.join(", "))
    }
}

/// Message kinds ("bulk, transactional"), at least one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kinds(pub Vec<crate::domain::MessageKind>);

impl Kinds {
    pub fn contains(&self, kind: crate::domain::MessageKind) -> bool {
        self.0.contains(&kind)
    }
}

impl SettingValue for Kinds {
    const KIND: &'static str = "kinds of message, such as \"bulk, transactional\"";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_env(
            value
                .as_str()
                .ok_or_else(|| wrong_type("kinds in quotes, such as \"bulk, transactional\"", value))?,
        )
    }
    fn from_env(text: &str) -> Result<Self, String> {
        let mut kinds = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let kind: crate::domain::MessageKind = part
                .to_ascii_lowercase()
                .parse()
                .map_err(|_| format!("`{part}` is not a kind of message (otp, transactional or bulk)"))?;
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        if kinds.is_empty() {
            return Err("name at least one kind of message (otp, transactional or bulk)".into());
        }
        kinds.sort();
        Ok(Kinds(kinds))
    }
    fn to_toml(&self) -> String {
        let names: Vec<&str> = self.0.iter().map(|k| k.as_str()).collect();
        format!("\"{}\"", names.join(", "))
    }
}
