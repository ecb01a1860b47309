//! What an SMPP bind can carry of the account's credentials: SMPP 3.4 (and 5.0) gives the
//! password 9 octets and the system_id 16, each with its closing NUL. A longer value would be cut
//! short on the wire and refused by the SMSC as a wrong password (ESME_RINVPASWD) or an unknown
//! account, with no word of the length: it is refused where it is typed instead, when the
//! settings or the connections are saved and when a connection is tested.

use crate::intake::FieldError;
use crate::said::FieldCode;

/// The longest SMPP password, in bytes (one character each for plain letters and digits).
pub const MAX_PASSWORD_BYTES: usize = 8;
/// The longest SMPP system_id, in bytes.
pub const MAX_SYSTEM_ID_BYTES: usize = 15;

/// Why `password`, typed in `field`, cannot be sent in a bind: too long (`password_too_long`,
/// `params.max`), or holding a control character.
pub(super) fn password_error(field: &str, password: &str) -> Option<FieldError> {
    if password.len() > MAX_PASSWORD_BYTES {
        return Some(
            FieldError::new(
                field,
                FieldCode::PasswordTooLong,
                format!(
                    "SMPP passwords are {MAX_PASSWORD_BYTES} characters at most (this one has {}): the bind would \
                     cut it short and the SMSC refuse it; ask the provider for the password as SMPP takes it",
                    password.chars().count()
                ),
            )
            .with("max", MAX_PASSWORD_BYTES),
        );
    }
    password
        .chars()
        .any(char::is_control)
        .then(|| FieldError::new(field, FieldCode::Invalid, "the password holds a control character"))
}

/// Why `system_id`, typed in `field`, cannot be sent in a bind: too long (`system_id_too_long`,
/// `params.max`).
pub(super) fn system_id_error(field: &str, system_id: &str) -> Option<FieldError> {
    let system_id = system_id.trim();
    (system_id.len() > MAX_SYSTEM_ID_BYTES).then(|| {
        FieldError::new(
            field,
            FieldCode::SystemIdTooLong,
            format!(
                "an SMPP system_id is {MAX_SYSTEM_ID_BYTES} characters at most (this one has {}): the bind \
                 would cut it short",
                system_id.chars().count()
            ),
        )
        .with("max", MAX_SYSTEM_ID_BYTES)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_of_eight_characters_passes_and_one_more_is_too_long() {
        assert_eq!(password_error("smpp.password", "abcdefgh"), None);
        let e = password_error("smpp.password", "abcdefghijk").unwrap();
        assert_eq!(
            (e.field.as_str(), e.code.as_str()),
            ("smpp.password", "password_too_long")
        );
        assert_eq!(e.params.get("max").map(String::as_str), Some("8"));
        assert!(e.message.contains("8 characters at most"), "{}", e.message);
        let accents = password_error("p", "pässwörd").unwrap();
        assert_eq!(accents.code, "password_too_long", "8 letters but 10 bytes on the wire");
        assert_eq!(password_error("p", "ab\u{7}").unwrap().code, "invalid");
    }

    #[test]
    fn a_system_id_of_fifteen_characters_passes_and_one_more_is_too_long() {
        assert_eq!(system_id_error("smpp.system_id", "abcdefghijklmno"), None);
        assert_eq!(system_id_error("smpp.system_id", " abcdefghijklmno "), None);
        let e = system_id_error("connections[0].system_id", "abcdefghijklmnop").unwrap();
        assert_eq!(e.code, "system_id_too_long");
        assert_eq!(e.field, "connections[0].system_id");
        assert_eq!(e.params.get("max").map(String::as_str), Some("15"));
    }
}
