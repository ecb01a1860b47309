//! How the inbox and the opt-out list are searched: by a number as the engine read it (the whole
//! number, its beginning, or digits of it), or by words of a reply whatever their case and
//! accents ("arret" finds "Arrêt", "стоп" finds "СТОП").

use smsdesk_core::optout::fold;

use super::messages::{destination, Destination};
use crate::db::Dialect;
pub(super) use crate::fold::FOLD_FUNCTION;

/// A number to find in a column: bound as `exact`, `prefix` and `part` (the condition of
/// [`NumberTerm::condition`]), each null when it does not apply.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct NumberTerm {
    pub exact: Option<String>,
    pub prefix: Option<String>,
    /// Digits anywhere in the number: the inbox's and the list's "any part of it".
    pub part: Option<String>,
}

impl NumberTerm {
    /// The engine's reading of a typed number (`+33612345600`, `+3361*`, `*3456`), as the message
    /// list's filter takes it; nothing for none.
    pub fn of(number: Option<&str>) -> NumberTerm {
        match number.and_then(destination) {
            Some(Destination::Exact(n)) => NumberTerm {
                exact: Some(n),
                ..NumberTerm::default()
            },
            Some(Destination::Prefix(p)) => NumberTerm {
                prefix: Some(p),
                ..NumberTerm::default()
            },
            Some(Destination::Suffix(d)) => NumberTerm {
                part: Some(d),
                ..NumberTerm::default()
            },
            None => NumberTerm::default(),
        }
    }

    /// The condition on `column`, with the three terms bound at `?{first}` and the two after (the
    /// casts tell PostgreSQL what a term tested for null alone is).
    pub fn condition(column: &str, first: usize, dialect: Dialect) -> String {
        let (e, p, a) = (first, first + 1, first + 2);
        let position = match dialect {
            Dialect::Sqlite => "instr",
            Dialect::Postgres => "strpos",
        };
        format!(
            "(CAST(?{e} AS TEXT) IS NULL OR {column} = ?{e}) \
             AND (CAST(?{p} AS TEXT) IS NULL OR substr({column}, 1, length(?{p})) = ?{p}) \
             AND (CAST(?{a} AS TEXT) IS NULL OR {position}({column}, ?{a}) > 0)"
        )
    }
}

/// Words to find in a reply, folded as the column is (by [`FOLD_FUNCTION`]); `None` for none.
pub(super) fn words(q: Option<&str>) -> Option<String> {
    q.map(fold).filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_is_found_whole_by_its_beginning_or_by_any_part() {
        assert_eq!(
            NumberTerm::of(Some("+33612345600")).exact.as_deref(),
            Some("+33612345600")
        );
        assert_eq!(NumberTerm::of(Some("+3361*")).prefix.as_deref(), Some("+3361"));
        assert_eq!(NumberTerm::of(Some("*3456")).part.as_deref(), Some("3456"));
        assert_eq!(NumberTerm::of(None), NumberTerm::default());
    }

    #[test]
    fn words_fold_case_and_accents_in_every_script() {
        assert_eq!(words(Some("arret")), words(Some("Arrêt")));
        assert_eq!(words(Some("СТОП")), words(Some("стоп")));
        assert_eq!(words(Some("  ")), None);
        assert_eq!(words(None), None);
    }
}
