//! The opt-out keywords of replies: a reply whose whole text is "STOP", "Arrêt" or "СТОП" asks to
//! receive no more messages, one that is "START" or "ДА" asks to receive them again.
//!
//! A reply is matched as a whole, never a word inside a sentence: "stop" opts out, "please don't
//! stop" does not. Both sides are [`fold`]ed first, so case, accents, the width of characters and
//! the punctuation or emoji around the word do not matter.

use std::collections::HashMap;

use serde::Serialize;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// The default stop words in English.
pub const DEFAULT_STOP_EN: &[&str] = &["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT"];
/// The default stop words in French.
pub const DEFAULT_STOP_FR: &[&str] = &["ARRET", "ARRÊT", "STOP SMS", "DESABONNER"];
/// The default stop words in Russian.
pub const DEFAULT_STOP_RU: &[&str] = &["СТОП", "ОТПИСАТЬСЯ", "ОТПИСКА"];
/// The default start words in English.
pub const DEFAULT_START_EN: &[&str] = &["START", "UNSTOP"];
/// The default start words in French: none.
pub const DEFAULT_START_FR: &[&str] = &[];
/// The default start words in Russian.
pub const DEFAULT_START_RU: &[&str] = &["ДА"];

/// Folds a reply's text for keyword matching:
/// - Unicode NFKD and combining marks removed, so "Arrêt" and "ARRET" fold alike, and so do
///   full-width letters, ligatures ("ﬁ" is "FI") and no-break spaces. Cyrillic Ё folds to Е and Й
///   to И as well (their marks go like any other): accepted, no keyword is told apart by them;
/// - uppercase, the full Unicode mapping: "стоп" is "СТОП", "ß" is "SS";
/// - everything that is neither a letter nor a digit removed at both ends: whitespace,
///   punctuation (. ! ? , ; : " ' « » … -), symbols, emoji and invisible format characters;
/// - inner runs of whitespace (tabs, newlines, no-break spaces) one space.
///
/// Folding a folded text changes nothing.
pub fn fold(text: &str) -> String {
    let upper = without_marks(text).to_uppercase();
    // Uppercasing may bring back a decomposable character or a mark ("ǰ" is "J" + caron).
    collapse(trim(&without_marks(&upper)))
}

/// NFKD with the combining marks left out.
fn without_marks(text: &str) -> String {
    text.nfkd().filter(|&c| !is_combining_mark(c)).collect()
}

/// The text between its first and its last letter or digit.
fn trim(text: &str) -> &str {
    text.trim_matches(|c: char| !c.is_alphanumeric())
}

/// Inner runs of whitespace as one space (the text is already trimmed).
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text as it would be written in capitals, accents and all: which of several configured
/// words that fold alike ("ARRET", "ARRÊT") a reply wrote.
fn capitals(text: &str) -> String {
    let composed: String = text.nfc().collect();
    collapse(trim(&composed.to_uppercase()))
}

/// What a keyword asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    /// Send nothing more.
    OptOut,
    /// Send again.
    OptIn,
}

/// A reply that is a keyword: what it asks for, and which configured word it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Match {
    pub intent: Intent,
    /// The language of the list the word is in, as configured.
    pub language: String,
    /// The configured word, as written in the configuration.
    pub keyword: String,
}

/// One configured word.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    intent: Intent,
    language: String,
    keyword: String,
    /// The word in [`capitals`].
    capitals: String,
}

/// The stop and start words of each language, folded once, to classify replies by.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Keywords {
    /// Folded word → the configured words that fold to it: stop words first, then in the order
    /// configured.
    words: HashMap<String, Vec<Entry>>,
}

impl Keywords {
    /// From lists of (language, stop words, start words); each word is folded; words that fold
    /// to nothing (empty, punctuation only) are ignored.
    pub fn new(lists: &[(&str, &[String], &[String])]) -> Keywords {
        let mut words: HashMap<String, Vec<Entry>> = HashMap::new();
        for &(language, stops, starts) in lists {
            let tagged = stops
                .iter()
                .map(|w| (Intent::OptOut, w))
                .chain(starts.iter().map(|w| (Intent::OptIn, w)));
            for (intent, word) in tagged {
                let folded = fold(word);
                if folded.is_empty() {
                    continue;
                }
                words.entry(folded).or_default().push(Entry {
                    intent,
                    language: language.to_owned(),
                    keyword: word.clone(),
                    capitals: capitals(word),
                });
            }
        }
        for entries in words.values_mut() {
            // Stable: the configured order stays within each intent.
            entries.sort_by_key(|e| e.intent != Intent::OptOut);
        }
        Keywords { words }
    }

    /// The default words: [`DEFAULT_STOP_EN`] and the others, as languages "en", "fr" and "ru".
    pub fn defaults() -> Keywords {
        let owned = |words: &[&str]| words.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        let lists = [
            ("en", owned(DEFAULT_STOP_EN), owned(DEFAULT_START_EN)),
            ("fr", owned(DEFAULT_STOP_FR), owned(DEFAULT_START_FR)),
            ("ru", owned(DEFAULT_STOP_RU), owned(DEFAULT_START_RU)),
        ];
        let borrowed: Vec<(&str, &[String], &[String])> = lists
            .iter()
            .map(|(l, stop, start)| (*l, stop.as_slice(), start.as_slice()))
            .collect();
        Keywords::new(&borrowed)
    }

    /// Whether the whole (folded) text is one of the words: what it asks for, the language of its
    /// list and the configured word as written. The whole text, not a word inside a sentence:
    /// "stop", "STOP." and " Stop! " match, "please don't stop" does not. A word that is both a
    /// stop and a start word is a stop word. When several configured words fold alike, the one
    /// written as the reply wrote it wins ("Arrêt" is "ARRÊT", "arret" is "ARRET"), else the first.
    pub fn classify(&self, text: &str) -> Option<Match> {
        let entries = self.words.get(&fold(text))?;
        let intent = entries.first()?.intent;
        let written = capitals(text);
        let mut same_intent = entries.iter().filter(|e| e.intent == intent);
        let entry = same_intent
            .clone()
            .find(|e| e.capitals == written)
            .or_else(|| same_intent.next())?;
        Some(Match {
            intent,
            language: entry.language.clone(),
            keyword: entry.keyword.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Every default word, stop and start.
    fn default_words() -> Vec<&'static str> {
        [
            DEFAULT_STOP_EN,
            DEFAULT_STOP_FR,
            DEFAULT_STOP_RU,
            DEFAULT_START_EN,
            DEFAULT_START_FR,
            DEFAULT_START_RU,
        ]
        .concat()
    }

    fn owned(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    fn classified(text: &str) -> Option<(Intent, String, String)> {
        Keywords::defaults()
            .classify(text)
            .map(|m| (m.intent, m.language, m.keyword))
    }

    fn opt_out(language: &str, keyword: &str) -> Option<(Intent, String, String)> {
        Some((Intent::OptOut, language.to_owned(), keyword.to_owned()))
    }

    fn opt_in(language: &str, keyword: &str) -> Option<(Intent, String, String)> {
        Some((Intent::OptIn, language.to_owned(), keyword.to_owned()))
    }

    #[test]
    fn fold_removes_accents_case_and_surrounding_punctuation() {
        assert_eq!(fold("Arrêt"), "ARRET");
        assert_eq!(fold("стоп"), "СТОП");
        assert_eq!(fold("straße"), "STRASSE");
        assert_eq!(fold("  « Stop ! » 🛑 "), "STOP");
        assert_eq!(fold("stop\u{a0}\t\n  sms…"), "STOP SMS");
        assert_eq!(fold("ＳＴＯＰ"), "STOP", "full-width letters");
        assert_eq!(fold("ﬁn"), "FIN", "ligatures");
        assert_eq!(fold("e\u{301}"), "E", "a decomposed accent");
        assert_eq!(fold("Ёлка Йод"), "ЕЛКА ИОД", "Ё and Й lose their marks too");
        assert_eq!(fold("stop-sms"), "STOP-SMS", "inner punctuation stays");
        assert_eq!(fold("🙏😀"), "");
        assert_eq!(fold(""), "");
    }

    #[test]
    fn keywords_match_however_they_are_written() {
        assert_eq!(classified("Arrêt"), opt_out("fr", "ARRÊT"));
        assert_eq!(classified("ARRET"), opt_out("fr", "ARRET"));
        assert_eq!(classified("arrêt."), opt_out("fr", "ARRÊT"));
        assert_eq!(classified(" Stop! "), opt_out("en", "STOP"));
        assert_eq!(classified("stop sms"), opt_out("fr", "STOP SMS"));
        assert_eq!(classified("STOP\u{a0}SMS"), opt_out("fr", "STOP SMS"));
        assert_eq!(classified("Stop  SMS"), opt_out("fr", "STOP SMS"));
        assert_eq!(classified("Стоп"), opt_out("ru", "СТОП"));
        assert_eq!(classified("СТОП!!"), opt_out("ru", "СТОП"));
        assert_eq!(classified("отписка"), opt_out("ru", "ОТПИСКА"));
        assert_eq!(classified("désabonner"), opt_out("fr", "DESABONNER"));
        assert_eq!(classified("unsubscribe\n"), opt_out("en", "UNSUBSCRIBE"));
        assert_eq!(classified("ДА"), opt_in("ru", "ДА"));
        assert_eq!(classified("да."), opt_in("ru", "ДА"));
        assert_eq!(classified("Start"), opt_in("en", "START"));
    }

    #[test]
    fn sentences_other_words_and_nothing_do_not_match() {
        for text in [
            "stop please",
            "please don't stop",
            "Arrêtez",
            "Non",
            "",
            "   ",
            "!!!",
            "🛑",
            "👍🙂",
            "STOPP",
            "ДАТА",
        ] {
            assert_eq!(classified(text), None, "{text:?}");
        }
    }

    #[test]
    fn a_word_both_stop_and_start_is_a_stop_word() {
        let k = Keywords::new(&[
            ("en", &owned(&["Halt"]), &owned(&[])),
            ("de", &owned(&[]), &owned(&["HALT"])),
            ("xx", &owned(&["", " ... "]), &owned(&["Go", "halt"])),
        ]);
        let m = k.classify("halt").unwrap();
        assert_eq!(
            (m.intent, m.language.as_str(), m.keyword.as_str()),
            (Intent::OptOut, "en", "Halt")
        );
        let m = k.classify("GO!").unwrap();
        assert_eq!(
            (m.intent, m.language.as_str(), m.keyword.as_str()),
            (Intent::OptIn, "xx", "Go")
        );
        assert_eq!(k.classify("..."), None, "empty words are ignored");
        assert_eq!(Keywords::new(&[]).classify("stop"), None);
    }

    #[test]
    fn intent_names_are_snake_case() {
        assert_eq!(
            serde_json::to_value(Intent::OptOut).unwrap(),
            serde_json::json!("opt_out")
        );
        assert_eq!(
            serde_json::to_value(Intent::OptIn).unwrap(),
            serde_json::json!("opt_in")
        );
    }

    /// One default word with its letters' case changed and whitespace, punctuation or emoji
    /// around it.
    fn disguised() -> impl Strategy<Value = (String, String)> {
        let words = default_words();
        let around = "[ \t\n\u{a0}.!?,;:\"'«»…\\-🛑🙏]{0,4}";
        (
            prop::sample::select(words),
            prop::collection::vec(any::<bool>(), 20),
            around,
            around,
        )
            .prop_map(|(word, lower, before, after)| {
                let cased: String = word
                    .chars()
                    .zip(lower.iter().cycle())
                    .map(|(c, &l)| {
                        if l {
                            c.to_lowercase().collect::<String>()
                        } else {
                            c.to_string()
                        }
                    })
                    .collect();
                (word.to_owned(), format!("{before}{cased}{after}"))
            })
    }

    proptest! {
        #[test]
        fn case_and_surroundings_do_not_change_the_match((word, text) in disguised()) {
            let k = Keywords::defaults();
            let expected = k.classify(word.as_str());
            prop_assert!(expected.is_some(), "{} is a default word", word);
            prop_assert_eq!(k.classify(&text), expected, "{:?}", text);
        }

        #[test]
        fn a_letter_added_makes_no_keyword_unless_it_is_one(
            word in prop::sample::select(default_words()),
            at in 0usize..20,
            letter in "[a-zA-Zа-яА-ЯёЁéèêçàß]",
        ) {
            let mut chars: Vec<char> = word.chars().collect();
            let at = at.min(chars.len());
            chars.splice(at..at, letter.chars());
            let text: String = chars.into_iter().collect();
            let is_a_keyword = default_words().iter().any(|w| fold(w) == fold(&text));
            prop_assert_eq!(Keywords::defaults().classify(&text).is_some(), is_a_keyword, "{:?}", text);
        }

        #[test]
        fn folding_twice_is_folding_once(text in "\\PC{0,40}") {
            let once = fold(&text);
            prop_assert_eq!(fold(&once), once.clone());
        }
    }
}
