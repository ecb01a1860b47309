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
    for piece in pieces(text) {
        if let Piece::Placeholder(name) = piece {
            if !found.iter().any(|f| f == name) {
                found.push(name.to_owned());
            }
        }
    }
    found
}

/// `text` with each placeholder replaced by its value; or, when some have none, their names
/// (each once, in the order they first appear), and nothing is filled. A value is taken as it
/// is: a placeholder in it is not filled in turn.
pub fn fill<'v>(text: &str, value: impl Fn(&str) -> Option<&'v str>) -> Result<String, Vec<String>> {
    let mut out = String::with_capacity(text.len());
    let mut missing: Vec<String> = Vec::new();
    for piece in pieces(text) {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Placeholder(name) => match value(name) {
                Some(v) => out.push_str(v),
                None if !missing.iter().any(|m| m == name) => missing.push(name.to_owned()),
                None => {}
            },
        }
    }
    if missing.is_empty() {
        Ok(out)
    } else {
        Err(missing)
    }
}

/// A stretch of a template's text: written as it is, or a placeholder's name.
enum Piece<'a> {
    Text(&'a str),
    Placeholder(&'a str),
}

/// `text` cut into plain stretches and placeholders, in order.
fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut plain = 0;
    let mut at = 0;
    while let Some(open) = text[at..].find('{').map(|o| at + o) {
        let after = &text[open + 1..];
        let len: usize = after.chars().take_while(|c| name_char(*c)).map(char::len_utf8).sum();
        let name = &after[..len];
        let count = name.chars().count();
        if after[len..].starts_with('}') && (1..=MAX_PLACEHOLDER_CHARS).contains(&count) {
            if plain < open {
                out.push(Piece::Text(&text[plain..open]));
            }
            out.push(Piece::Placeholder(name));
            at = open + 1 + len + 1;
            plain = at;
        } else {
            // Not a placeholder: the brace is text, and a placeholder may still open after it.
            at = open + 1;
        }
    }
    if plain < text.len() {
        out.push(Piece::Text(&text[plain..]));
    }
    out
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

    #[test]
    fn filling_puts_each_value_in_place_of_every_use_of_its_placeholder() {
        let values = |name: &str| match name {
            "prénom" => Some("Anne"),
            "date" => Some("12/03"),
            _ => None,
        };
        assert_eq!(
            fill("Bonjour {prénom}, RDV le {date}. À bientôt {prénom} {a b} {}", values).as_deref(),
            Ok("Bonjour Anne, RDV le 12/03. À bientôt Anne {a b} {}")
        );
        assert_eq!(
            fill("{{date}}", values).as_deref(),
            Ok("{12/03}"),
            "the outer braces are text"
        );
        assert_eq!(fill("No placeholder", values).as_deref(), Ok("No placeholder"));
    }

    #[test]
    fn a_value_is_not_read_for_placeholders_in_turn() {
        let values = |name: &str| (name == "a").then_some("{a} $& {b}");
        assert_eq!(fill("[{a}]", values).as_deref(), Ok("[{a} $& {b}]"));
    }

    #[test]
    fn placeholders_without_a_value_are_named_once_in_order_and_nothing_is_filled() {
        let values = |name: &str| (name == "date").then_some("12/03");
        assert_eq!(
            fill("{heure} {date} {nom} {heure}", values),
            Err(vec!["heure".to_owned(), "nom".to_owned()])
        );
    }

    #[test]
    fn placeholders_and_filling_read_a_text_alike() {
        let text = "Код {код_1} для {имя}, {имя}; {} {a b} {{x}} {unclosed";
        let names = placeholders(text);
        assert_eq!(names, vec!["код_1", "имя", "x"]);
        assert_eq!(
            fill(text, |_| None),
            Err(names),
            "every placeholder listed is one filling asks a value for"
        );
    }
}
