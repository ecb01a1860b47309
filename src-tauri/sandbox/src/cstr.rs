//! SMPP C-octet strings from Rust text.

use rusmpp::types::COctetString;

/// A C-octet string of at most MAX - 1 characters (longer text is cut, NULs dropped).
pub(crate) fn cstr<const MIN: usize, const MAX: usize>(s: &str) -> COctetString<MIN, MAX> {
    let mut bytes: Vec<u8> = s.bytes().filter(|b| *b != 0).take(MAX - 1).collect();
    bytes.push(0);
    COctetString::from_vec(bytes).unwrap_or_default()
}
