//! Whether a receipt's `text:` echo fits the message it was matched to.
//!
//! SMSCs echo the first characters (usually 20) of what they received, and lossily: cut short,
//! case changed, a character outside plain ASCII replaced by `?` or by the byte of its GSM code,
//! written as its plain letter (é → e), as two bytes (the GSM escape of €, `{` or `~`), or left
//! out. So only the echo of a GSM-7 message is compared, and only what survives those transforms
//! has to agree: letters, digits and spaces, in order. A UCS-2 message (an emoji, ê, Cyrillic) is
//! echoed as its raw UTF-16 bytes read as text by most SMSCs: there is nothing to compare.

use std::collections::HashSet;

use unicode_normalization::UnicodeNormalization;

use crate::sms::encoding::{split, Encoding};

/// Whether an echo of `body` can be compared with it at all.
pub fn comparable(body: &str) -> bool {
    split(body).0 == Encoding::Gsm7
}

/// Whether `echo` is what an SMSC may make of the start of `body` (or, for a message sent in
/// several parts, of the start of one of them: `any_part`).
pub fn fits(echo: &str, body: &str, any_part: bool) -> bool {
    let echo: Vec<char> = echo.trim_end_matches(['\0', ' ']).chars().collect();
    let body: Vec<char> = body.chars().collect();
    let starts = if any_part { body.len().max(1) } else { 1 };
    (0..starts).any(|start| Matcher::new(&echo, &body).fits(0, start))
}

/// A search over (echo position, body position), remembering the pairs that led nowhere.
struct Matcher<'a> {
    echo: &'a [char],
    body: &'a [char],
    dead: HashSet<(usize, usize)>,
}

impl<'a> Matcher<'a> {
    fn new(echo: &'a [char], body: &'a [char]) -> Matcher<'a> {
        Matcher {
            echo,
            body,
            dead: HashSet::new(),
        }
    }

    fn fits(&mut self, i: usize, j: usize) -> bool {
        if i == self.echo.len() {
            // The echo was cut short here: what it holds fitted.
            return true;
        }
        if j == self.body.len() {
            return false;
        }
        if self.dead.contains(&(i, j)) {
            return false;
        }
        let (e, b) = (self.echo[i], self.body[j]);
        let found = if survives(b) {
            same_letter(e, b) && self.fits(i + 1, j + 1)
        } else {
            // Replaced by one character (a `?`, its GSM byte, its plain letter), by two (an escape
            // or a surrogate pair), or left out.
            let replaced = !e.is_ascii_alphanumeric() || Some(e.to_ascii_lowercase()) == plain_letter(b);
            (replaced && self.fits(i + 1, j + 1))
                || (!e.is_ascii_alphanumeric() && self.fits(i + 2, j + 1))
                || self.fits(i, j + 1)
        };
        if !found {
            self.dead.insert((i, j));
        }
        found
    }
}

/// Letters, digits and spaces reach the echo as they are; everything else may not.
fn survives(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == ' '
}

fn same_letter(a: char, b: char) -> bool {
    a.eq_ignore_ascii_case(&b)
}

/// The plain letter of an accented one (é → e, Ç → c), lowercase.
fn plain_letter(c: char) -> Option<char> {
    c.nfkd()
        .next()
        .filter(char::is_ascii_alphanumeric)
        .map(|p| p.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_or_cut_short_echo_fits_whatever_its_case() {
        assert!(fits("Your code is 1234", "Your code is 1234", false));
        assert!(fits("YOUR CODE", "Your code is 1234", false));
        assert!(fits("", "Your code is 1234", false));
    }

    #[test]
    fn accented_letters_fit_as_a_question_mark_their_gsm_byte_their_plain_letter_or_nothing() {
        let body = "Réservation confirmée à 10h";
        assert!(comparable(body), "é and à are in the GSM 7-bit alphabet");
        for echo in [
            "R?servation confirm?",
            "R\u{5}servation confirm\u{5}",
            "Reservation confirme",
            "Rservation confirm ",
        ] {
            assert!(fits(echo, body, false), "{echo:?}");
        }
    }

    #[test]
    fn the_euro_sign_fits_as_its_escape_sequence_or_a_replacement() {
        let body = "Total 10€ TTC, merci";
        assert!(comparable(body));
        for echo in [
            "Total 10\u{1b}e TTC, merci",
            "Total 10? TTC, merci",
            "Total 10 TTC merci",
        ] {
            assert!(fits(echo, body, false), "{echo:?}");
        }
    }

    #[test]
    fn a_ucs2_message_is_not_compared() {
        assert!(!comparable("Votre commande est prête"), "ê is not in the GSM alphabet");
        assert!(!comparable("Ваш код 1234"));
        assert!(!comparable("See you 🙂"));
    }

    #[test]
    fn another_text_does_not_fit() {
        assert!(!fits("Your parcel is here", "Your code is 1234", false));
        assert!(!fits("Votre code est 1234", "Réservation confirmée à 10h", false));
        assert!(!fits("Code 9999", "Code 1234", false), "digits must agree");
        assert!(
            !fits("Your code is 1234 and more", "Your code is 1234", false),
            "an echo longer than the message"
        );
    }

    #[test]
    fn a_part_of_a_long_message_fits_from_where_that_part_starts() {
        let body = "Your appointment is confirmed. Bring your card. See you on Tuesday.";
        assert!(fits("Bring your card. See", body, true));
        assert!(!fits("Bring your card. See", body, false));
    }
}
