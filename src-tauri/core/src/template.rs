//! Message templates: a text the office saves under a name, with `{placeholders}` filled in when
//! it is used (by hand in compose, from a CSV file's columns on import, in the UI). What a template's text
//! names is decided here; storing templates is the store's, checking a new one the engine's.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The longest name a template may have, in characters.
pub const MAX_NAME_CHARS: usize = 100;
/// The longest text a template may have, in characters (more than any message may take: intake
/// checks the filled text against `intake.max_segments`).
pub const MAX_TEXT_CHARS: usize = 2_000;
/// The longest placeholder name, in characters.
pub const MAX_PLACEHOLDER_CHARS: usize = 64;

/// A saved template, as lists show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct Template {
    #[ts(type = "number")]
    pub id: i64,
    pub name: String,
    /// The text, with its `{placeholders}` as written.
    pub text: String,
    /// The placeholders its text names, each once, in the order they first appear.
    pub placeholders: Vec<String>,
    #[ts(type = "number")]
    pub created_at_ms: i64,
    /// Who saved it (the audit log's name for them).
    pub created_by: String,
}

/// Whether `c` may be part of a placeholder's name: a letter or digit of any script, `_` or `-`.
fn name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// The placeholders `text` names (`{name}`: letters, digits, `_` and `-`, at most
/// [`MAX_PLACEHOLDER_CHARS`]), each once, in the order they first appear. Braces around anything
/// else (`{ }`, `{a b}`) are plain text.
pub fn placeholders(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let name: String = after.chars().take_while(|c| name_char(*c)).collect();
        let closes = after[name.len()..].starts_with('}');
        let count = name.chars().count();
        if closes && (1..=MAX_PLACEHOLDER_CHARS).contains(&count) && !found.contains(&name) {
            found.push(name.clone());
        }
        rest = &after[if closes { name.len() + 1 } else { 0 }..];
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_named_once_in_order_of_first_appearance() {
        assert_eq!(
            placeholders("Bonjour {prénom}, RDV {date} à {heure}. {prénom}, à bientôt"),
            vec!["prénom", "date", "heure"]
        );
        assert_eq!(placeholders("Код {код_1} для {имя}"), vec!["код_1", "имя"]);
    }

    #[test]
    fn braces_around_anything_but_a_name_are_plain_text() {
        assert!(placeholders("{} { } {a b} {unclosed").is_empty());
        assert_eq!(placeholders("{{name}}"), vec!["name"]);
        let long = "x".repeat(MAX_PLACEHOLDER_CHARS + 1);
        assert!(placeholders(&format!("{{{long}}}")).is_empty());
    }
}
