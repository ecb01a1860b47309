//! Opaque page cursors: "rows older than this id" for one list. Callers pass `next_cursor` back
//! unchanged; a cursor from another list, or one edited by hand, is refused rather than guessed at.
//!
//! The encoding (hex of `<list>:<id>`) is not a secret and not a contract: it may change, and
//! clients must not build cursors themselves.

use super::ViewError;

/// The cursor that continues a list below `id`.
pub fn encode(list: &'static str, id: i64) -> String {
    hex::encode(format!("{list}:{id}"))
}

/// The id a cursor continues below, or `None` for the first page.
pub fn decode(list: &'static str, cursor: Option<&str>) -> Result<Option<i64>, ViewError> {
    let Some(cursor) = cursor.map(str::trim).filter(|c| !c.is_empty()) else {
        return Ok(None);
    };
    let invalid = || ViewError::InvalidCursor { list };
    let bytes = hex::decode(cursor).map_err(|_| invalid())?;
    let text = String::from_utf8(bytes).map_err(|_| invalid())?;
    let (name, id) = text.split_once(':').ok_or_else(invalid)?;
    if name != list || id.starts_with('+') {
        return Err(invalid());
    }
    let id: i64 = id.parse().map_err(|_| invalid())?;
    if id < 1 {
        return Err(invalid());
    }
    Ok(Some(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_round_trips_within_its_list_only() {
        let c = encode("messages", 42);
        assert_eq!(decode("messages", Some(&c)).unwrap(), Some(42));
        assert!(matches!(
            decode("exceptions", Some(&c)),
            Err(ViewError::InvalidCursor { list: "exceptions" })
        ));
        assert_eq!(decode("messages", None).unwrap(), None);
        assert_eq!(decode("messages", Some("  ")).unwrap(), None);
        for bad in [
            "zz",
            "42",
            &hex::encode("messages:"),
            &hex::encode("messages:-1"),
            &hex::encode("messages:x"),
        ] {
            assert!(decode("messages", Some(bad)).is_err(), "{bad:?} must be refused");
        }
    }
}
