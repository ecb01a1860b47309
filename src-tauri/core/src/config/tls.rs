//! The TLS settings' own values: a certificate's pin (`tls_pin_sha256`).

use super::value::{wrong_type, SettingValue};

/// The SHA-256 of a certificate (its DER), or none: written as 64 hex digits, with or without
/// colons, as `openssl x509 -noout -fingerprint -sha256` prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pin(pub Option<[u8; 32]>);

impl SettingValue for Pin {
    const KIND: &'static str = "SHA-256 in hex, or empty";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_env(
            value
                .as_str()
                .ok_or_else(|| wrong_type("the SHA-256 in quotes", value))?,
        )
    }
    fn from_env(text: &str) -> Result<Self, String> {
        let digits: Vec<u8> = text
            .bytes()
            .filter(|b| *b != b':' && !b.is_ascii_whitespace())
            .collect();
        if digits.is_empty() {
            return Ok(Pin(None));
        }
        let wrong = || "expected the certificate's SHA-256: 64 hex digits, colons allowed".to_owned();
        if digits.len() != 64 {
            return Err(wrong());
        }
        let mut pin = [0u8; 32];
        for (i, pair) in digits.chunks(2).enumerate() {
            let pair = std::str::from_utf8(pair).map_err(|_| wrong())?;
            pin[i] = u8::from_str_radix(pair, 16).map_err(|_| wrong())?;
        }
        Ok(Pin(Some(pin)))
    }
    fn to_toml(&self) -> String {
        let hex: String = self.0.iter().flatten().map(|b| format!("{b:02x}")).collect();
        format!("\"{hex}\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pin_reads_with_or_without_colons_and_writes_back_the_same() {
        let plain = "ab".repeat(32);
        let colons = vec!["AB"; 32].join(":");
        assert_eq!(Pin::from_env(&plain).unwrap(), Pin(Some([0xab; 32])));
        assert_eq!(Pin::from_env(&colons).unwrap(), Pin(Some([0xab; 32])));
        assert_eq!(Pin::from_env("").unwrap(), Pin(None));
        assert_eq!(
            Pin::from_env(&Pin(Some([0xab; 32])).to_toml().replace('"', "")).unwrap(),
            Pin(Some([0xab; 32]))
        );
    }

    #[test]
    fn a_pin_of_the_wrong_length_or_not_hex_is_refused() {
        assert!(Pin::from_env("ab").is_err());
        assert!(Pin::from_env(&"zz".repeat(32)).is_err());
        assert!(Pin::from_env(&"ab".repeat(33)).is_err());
    }
}
