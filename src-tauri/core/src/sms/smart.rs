//! Smart encoding: typographic characters that force a text into UCS-2 (half the characters per
//! part) but have a look-alike in the GSM 7-bit alphabet are replaced by it before the text is
//! split: ’ becomes ', « becomes ", – becomes -, … becomes ..., a non-breaking space a space.
//!
//! Only the characters of [`TABLE`] are ever replaced: accented letters outside GSM 7-bit (a
//! name must stay as written), other scripts and emoji never are. A replacement is made only when
//! it does not make the text take more parts. What was replaced is kept ([`Replacement`]), so the
//! text as handed in can be shown beside the text as sent ([`restore`]).

use serde::{Deserialize, Serialize};

use super::encoding::{plan, Encoding};

/// When typographic characters are replaced (`intake.smart_encoding`, or a message's own
/// `smart_encoding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SmartEncoding {
    /// Never: the text is sent as written.
    #[default]
    Off,
    /// When replacing them makes the whole text GSM 7-bit, and so fewer (or as many) parts.
    Typography,
    /// Whenever the text does not take more parts for it, even if it stays UCS-2 for other
    /// characters.
    Always,
}

impl SmartEncoding {
    pub const fn as_str(self) -> &'static str {
        match self {
            SmartEncoding::Off => "off",
            SmartEncoding::Typography => "typography",
            SmartEncoding::Always => "always",
        }
    }
}

impl std::str::FromStr for SmartEncoding {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" => Ok(SmartEncoding::Off),
            "typography" => Ok(SmartEncoding::Typography),
            "always" => Ok(SmartEncoding::Always),
            other => Err(format!("`{other}` is not off, typography or always")),
        }
    }
}

/// The characters replaced, each with its GSM 7-bit look-alike.
pub const TABLE: [(char, &str); 30] = [
    ('\u{2019}', "'"),   // ’ right single quotation mark (the typographic apostrophe)
    ('\u{2018}', "'"),   // ‘ left single quotation mark
    ('\u{201A}', "'"),   // ‚ single low-9 quotation mark
    ('\u{201B}', "'"),   // ‛ single high-reversed-9 quotation mark
    ('\u{2032}', "'"),   // ′ prime
    ('\u{02BC}', "'"),   // ʼ modifier letter apostrophe
    ('\u{201C}', "\""),  // “ left double quotation mark
    ('\u{201D}', "\""),  // ” right double quotation mark
    ('\u{201E}', "\""),  // „ double low-9 quotation mark
    ('\u{201F}', "\""),  // ‟ double high-reversed-9 quotation mark
    ('\u{2033}', "\""),  // ″ double prime
    ('\u{00AB}', "\""),  // « left-pointing double angle quotation mark
    ('\u{00BB}', "\""),  // » right-pointing double angle quotation mark
    ('\u{2039}', "<"),   // ‹ single left-pointing angle quotation mark
    ('\u{203A}', ">"),   // › single right-pointing angle quotation mark
    ('\u{2010}', "-"),   // ‐ hyphen
    ('\u{2011}', "-"),   // ‑ non-breaking hyphen
    ('\u{2012}', "-"),   // ‒ figure dash
    ('\u{2013}', "-"),   // – en dash
    ('\u{2014}', "-"),   // — em dash
    ('\u{2015}', "-"),   // ― horizontal bar
    ('\u{2212}', "-"),   // − minus sign
    ('\u{2026}', "..."), // … horizontal ellipsis
    ('\u{00A0}', " "),   // non-breaking space
    ('\u{202F}', " "),   // narrow non-breaking space (before French ; : ! ?)
    ('\u{2009}', " "),   // thin space
    ('\u{2007}', " "),   // figure space
    ('\u{2002}', " "),   // en space
    ('\u{2003}', " "),   // em space
    ('\u{200A}', " "),   // hair space
];

/// The look-alike of `c`, when it is one of [`TABLE`]'s characters.
pub fn look_alike(c: char) -> Option<&'static str> {
    TABLE.iter().find(|(t, _)| *t == c).map(|(_, r)| *r)
}

/// One character replaced: where it was in the text as handed in (counted in characters, from
/// 0) and what it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS, utoipa::ToSchema)]
pub struct Replacement {
    #[ts(type = "number")]
    pub at: usize,
    pub from: char,
}

/// A text after smart encoding: the text to send, and what was replaced to get it (nothing when
/// it is sent as written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Smartened {
    pub text: String,
    pub replaced: Vec<Replacement>,
}

/// Applies `mode` to `text`.
pub fn smarten(text: &str, mode: SmartEncoding) -> Smartened {
    let as_written = || Smartened {
        text: text.to_owned(),
        replaced: Vec::new(),
    };
    if mode == SmartEncoding::Off || !text.chars().any(|c| look_alike(c).is_some()) {
        return as_written();
    }
    let mut out = String::with_capacity(text.len());
    let mut replaced = Vec::new();
    for (at, c) in text.chars().enumerate() {
        match look_alike(c) {
            Some(r) => {
                out.push_str(r);
                replaced.push(Replacement { at, from: c });
            }
            None => out.push(c),
        }
    }
    let (before, after) = (plan(text), plan(&out));
    let worth = after.segments <= before.segments
        && match mode {
            SmartEncoding::Typography => after.encoding == Encoding::Gsm7,
            _ => true,
        };
    match worth {
        true => Smartened { text: out, replaced },
        false => as_written(),
    }
}

/// The text as handed in, from the text as sent and what was replaced in it; None when they do
/// not fit each other (a text since redacted).
pub fn restore(sent: &str, replaced: &[Replacement]) -> Option<String> {
    let mut out = String::with_capacity(sent.len() + replaced.len() * 2);
    let mut rest = sent.chars();
    let mut at = 0;
    for r in replaced {
        while at < r.at {
            out.push(rest.next()?);
            at += 1;
        }
        for expected in look_alike(r.from)?.chars() {
            if rest.next()? != expected {
                return None;
            }
        }
        out.push(r.from);
        at += 1;
    }
    out.extend(rest);
    Some(out)
}

/// Each character replaced, once, in the order they first appear ("’«»").
pub fn characters(replaced: &[Replacement]) -> String {
    let mut out = String::new();
    for r in replaced {
        if !out.contains(r.from) {
            out.push(r.from);
        }
    }
    out
}

/// The replacements as stored with a message: `at:char` pairs separated by spaces.
pub fn to_stored(replaced: &[Replacement]) -> Option<String> {
    (!replaced.is_empty()).then(|| {
        replaced
            .iter()
            .map(|r| format!("{}:{}", r.at, r.from))
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// The replacements read back from [`to_stored`]'s form (none from what it does not read).
pub fn from_stored(text: &str) -> Vec<Replacement> {
    let read = |pair: &str| {
        let (at, from) = pair.split_once(':')?;
        let mut chars = from.chars();
        let (from, None) = (chars.next()?, chars.next()) else {
            return None;
        };
        Some(Replacement {
            at: at.parse().ok()?,
            from,
        })
    };
    text.split(' ').filter_map(read).collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const RDV: &str = "Bonjour, votre rendez-vous de l’après-midi est confirmé « demain » à 14h30 au cabinet. \
                       Merci de prévenir en cas d’absence.";

    #[test]
    fn a_french_text_with_typographic_marks_goes_from_two_ucs2_parts_to_one_gsm7_part() {
        assert_eq!(RDV.chars().count(), 122);
        let before = plan(RDV);
        assert_eq!((before.encoding, before.segments), (Encoding::Ucs2, 2));
        let s = smarten(RDV, SmartEncoding::Typography);
        let after = plan(&s.text);
        assert_eq!((after.encoding, after.segments), (Encoding::Gsm7, 1));
        let from: String = s.replaced.iter().map(|r| r.from).collect();
        assert_eq!(from, "’«»’");
        assert!(s.text.contains("l'après-midi") && s.text.contains("\" demain \""));
        assert_eq!(restore(&s.text, &s.replaced).as_deref(), Some(RDV));
    }

    #[test]
    fn typography_leaves_a_text_that_stays_ucs2_as_written_and_always_does_not() {
        let cyrillic = "Здравствуйте – ваш код «1234»";
        assert_eq!(smarten(cyrillic, SmartEncoding::Typography).text, cyrillic);
        let always = smarten(cyrillic, SmartEncoding::Always);
        assert_eq!(always.text, "Здравствуйте - ваш код \"1234\"");
        assert_eq!(always.replaced.len(), 3);
        assert_eq!(smarten(RDV, SmartEncoding::Off).text, RDV);
    }

    #[test]
    fn an_ellipsis_is_not_replaced_when_three_dots_would_take_more_parts() {
        let text = "…".repeat(60);
        assert_eq!(plan(&text).segments, 1);
        for mode in [SmartEncoding::Typography, SmartEncoding::Always] {
            assert_eq!(smarten(&text, mode).text, text, "{mode:?}");
        }
    }

    #[test]
    fn replacements_survive_their_stored_form_and_a_redacted_text_restores_nothing() {
        let s = smarten("l’été — « oui »", SmartEncoding::Typography);
        assert_eq!(from_stored(&to_stored(&s.replaced).unwrap()), s.replaced);
        assert_eq!(to_stored(&[]), None);
        assert_eq!(restore("", &s.replaced), None);
    }

    fn table_char() -> impl Strategy<Value = char> {
        proptest::sample::select(TABLE.iter().map(|(c, _)| *c).collect::<Vec<_>>())
    }

    fn any_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            4 => "[a-zA-Z0-9 ,.!?àéèù'-]{1,12}",
            2 => table_char().prop_map(String::from),
            1 => "[ÀÂÊÎÔÛçœÿ]{1,2}",
            1 => "[а-яё]{1,4}",
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn the_replaced_text_is_gsm7_when_only_table_characters_were_not(text in any_text()) {
            let only_table_outside = text
                .chars()
                .all(|c| look_alike(c).is_some() || plan(&c.to_string()).encoding == Encoding::Gsm7);
            for mode in [SmartEncoding::Typography, SmartEncoding::Always] {
                let s = smarten(&text, mode);
                let (before, after) = (plan(&text), plan(&s.text));
                prop_assert!(after.segments <= before.segments);
                if only_table_outside && !s.replaced.is_empty() {
                    prop_assert_eq!(after.encoding, Encoding::Gsm7);
                }
                if only_table_outside && s.replaced.is_empty() && before.encoding == Encoding::Ucs2 {
                    // Kept as written only when the look-alikes would have taken more parts.
                    let forced: String = text.chars().map(|c| look_alike(c).map_or(c.to_string(), str::to_owned)).collect();
                    prop_assert!(plan(&forced).segments > before.segments);
                }
                // Nothing outside the table changes: the text read back is the text handed in,
                // and every character kept is where it was.
                prop_assert_eq!(restore(&s.text, &s.replaced), Some(text.clone()));
                prop_assert!(s.replaced.iter().all(|r| look_alike(r.from).is_some()));
            }
        }
    }
}
