//! How one setting's value is read from the config file and from an environment variable, and
//! written back into the documented template.

use std::net::IpAddr;

/// A type a setting can have.
pub trait SettingValue: Sized {
    /// What the documentation calls the type ("integer", "text", ...).
    const KIND: &'static str;
    fn from_toml(value: &toml::Value) -> Result<Self, String>;
    fn from_env(text: &str) -> Result<Self, String>;
    fn to_toml(&self) -> String;
}

pub(super) fn wrong_type(expected: &str, value: &toml::Value) -> String {
    format!("expected {expected}, found {} `{value}`", value.type_str())
}

macro_rules! integer_setting {
    ($($t:ty),*) => {$(
        impl SettingValue for $t {
            const KIND: &'static str = "integer";
            fn from_toml(value: &toml::Value) -> Result<Self, String> {
                let n = value.as_integer().ok_or_else(|| wrong_type("an integer", value))?;
                <$t>::try_from(n).map_err(|_| format!("{n} is out of range ({}..={})", <$t>::MIN, <$t>::MAX))
            }
            fn from_env(text: &str) -> Result<Self, String> {
                text.trim().parse::<$t>().map_err(|e| format!("`{text}` is not a valid integer here: {e}"))
            }
            fn to_toml(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
integer_setting!(u16, u32, u64);

impl SettingValue for bool {
    const KIND: &'static str = "true or false";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        value.as_bool().ok_or_else(|| wrong_type("true or false", value))
    }
    fn from_env(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => Ok(true),
            "0" | "false" | "no" | "off" => Ok(false),
            _ => Err(format!("`{text}` is not true or false")),
        }
    }
    fn to_toml(&self) -> String {
        self.to_string()
    }
}

impl SettingValue for String {
    const KIND: &'static str = "text";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        value
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| wrong_type("text in quotes", value))
    }
    fn from_env(text: &str) -> Result<Self, String> {
        Ok(text.to_owned())
    }
    fn to_toml(&self) -> String {
        toml::Value::String(self.clone()).to_string()
    }
}

impl SettingValue for IpAddr {
    const KIND: &'static str = "IP address";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_env(
            value
                .as_str()
                .ok_or_else(|| wrong_type("an IP address in quotes", value))?,
        )
    }
    fn from_env(text: &str) -> Result<Self, String> {
        text.trim()
            .parse()
            .map_err(|_| format!("`{text}` is not an IP address (for example 127.0.0.1)"))
    }
    fn to_toml(&self) -> String {
        format!("\"{self}\"")
    }
}

/// A log filter: a level (error, warn, info, debug, trace) or a tracing directive list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFilter(pub String);

impl SettingValue for LogFilter {
    const KIND: &'static str = "log filter";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_env(
            value
                .as_str()
                .ok_or_else(|| wrong_type("a log level in quotes", value))?,
        )
    }
    fn from_env(text: &str) -> Result<Self, String> {
        // EnvFilter takes a bare word as a target name, so "loud" would silently log nothing:
        // require every directive to end in a level.
        const LEVELS: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];
        let bad =
            |d: &str| format!("`{d}` is not a log level; use error, warn, info, debug or trace (or target=level)");
        for directive in text.split(',').map(str::trim) {
            let level = directive.rsplit_once('=').map_or(directive, |(_, l)| l);
            if !LEVELS.contains(&level.to_ascii_lowercase().as_str()) {
                return Err(bad(directive));
            }
        }
        tracing_subscriber::EnvFilter::try_new(text)
            .map(|_| LogFilter(text.to_owned()))
            .map_err(|e| bad(&e.to_string()))
    }
    fn to_toml(&self) -> String {
        format!("\"{}\"", self.0)
    }
}

/// A count that must be at least one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtLeastOne(pub u32);

impl SettingValue for AtLeastOne {
    const KIND: &'static str = "integer ≥ 1";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::check(u32::from_toml(value)?)
    }
    fn from_env(text: &str) -> Result<Self, String> {
        Self::check(u32::from_env(text)?)
    }
    fn to_toml(&self) -> String {
        self.0.to_string()
    }
}

impl AtLeastOne {
    fn check(n: u32) -> Result<Self, String> {
        if n == 0 {
            Err("must be at least 1".into())
        } else {
            Ok(AtLeastOne(n))
        }
    }
}

/// How many sending binds a connection opens: 1 to [`BindCount::MOST`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BindCount(pub u32);

impl BindCount {
    /// More binds than any provider contract asks for; a typo past it is refused, not obeyed.
    pub const MOST: u32 = 16;
}

impl SettingValue for BindCount {
    const KIND: &'static str = "integer from 1 to 16";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_env(&u32::from_toml(value)?.to_string())
    }
    fn from_env(text: &str) -> Result<Self, String> {
        match u32::from_env(text)? {
            n @ 1..=Self::MOST => Ok(BindCount(n)),
            n => Err(format!("{n} binds: must be from 1 to {}", Self::MOST)),
        }
    }
    fn to_toml(&self) -> String {
        self.0.to_string()
    }
}

/// How a connection writes provider message ids: as opaque text, or as a number in hex or decimal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IdBase {
    Text,
    Hex,
    Decimal,
}

impl IdBase {
    pub const fn as_str(self) -> &'static str {
        match self {
            IdBase::Text => "text",
            IdBase::Hex => "hex",
            IdBase::Decimal => "decimal",
        }
    }
}

impl SettingValue for IdBase {
    const KIND: &'static str = "text, hex or decimal";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_env(
            value
                .as_str()
                .ok_or_else(|| wrong_type("\"text\", \"hex\" or \"decimal\"", value))?,
        )
    }
    fn from_env(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "text" => Ok(IdBase::Text),
            "hex" => Ok(IdBase::Hex),
            "decimal" => Ok(IdBase::Decimal),
            _ => Err(format!("`{text}` is not one of text, hex, decimal")),
        }
    }
    fn to_toml(&self) -> String {
        format!("\"{}\"", self.as_str())
    }
}

/// How a connection writes the id in a receipt's receipted_message_id TLV: as its submit_sm_resp
/// does (most SMSCs repeat the response's id there), or in a base of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TlvIdBase {
    SameAsResponse,
    Base(IdBase),
}

impl SettingValue for TlvIdBase {
    const KIND: &'static str = "response, text, hex or decimal";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_env(
            value
                .as_str()
                .ok_or_else(|| wrong_type("\"response\", \"text\", \"hex\" or \"decimal\"", value))?,
        )
    }
    fn from_env(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "response" => Ok(TlvIdBase::SameAsResponse),
            _ => IdBase::from_env(text)
                .map(TlvIdBase::Base)
                .map_err(|_| format!("`{text}` is not one of response, text, hex, decimal")),
        }
    }
    fn to_toml(&self) -> String {
        match self {
            TlvIdBase::SameAsResponse => "\"response\"".into(),
            TlvIdBase::Base(b) => b.to_toml(),
        }
    }
}

/// The delivery receipt a submit asks for (its registered_delivery).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReceiptRequest {
    /// No receipt.
    None,
    /// A final receipt, on success or failure.
    Final,
    /// A final receipt on failure only.
    Failure,
    /// A final receipt and intermediate notifications.
    FinalAndIntermediate,
}

impl ReceiptRequest {
    const ALL: [(ReceiptRequest, &'static str); 4] = [
        (ReceiptRequest::None, "none"),
        (ReceiptRequest::Final, "final"),
        (ReceiptRequest::Failure, "failure"),
        (ReceiptRequest::FinalAndIntermediate, "final_and_intermediate"),
    ];

    /// The SMPP registered_delivery value: 0, 1, 2, or 0x11 (final + intermediate notification).
    pub const fn registered_delivery(self) -> u8 {
        match self {
            ReceiptRequest::None => 0,
            ReceiptRequest::Final => 1,
            ReceiptRequest::Failure => 2,
            ReceiptRequest::FinalAndIntermediate => 0x11,
        }
    }

    pub fn as_str(self) -> &'static str {
        Self::ALL.iter().find(|(r, _)| *r == self).map_or("final", |(_, s)| s)
    }
}

impl SettingValue for ReceiptRequest {
    const KIND: &'static str = "none, final, failure or final_and_intermediate";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_env(
            value
                .as_str()
                .ok_or_else(|| wrong_type("\"none\", \"final\", \"failure\" or \"final_and_intermediate\"", value))?,
        )
    }
    fn from_env(text: &str) -> Result<Self, String> {
        let word = text.trim().to_ascii_lowercase();
        Self::ALL
            .iter()
            .find(|(_, s)| *s == word)
            .map(|(r, _)| *r)
            .ok_or_else(|| format!("`{text}` is not one of none, final, failure, final_and_intermediate"))
    }
    fn to_toml(&self) -> String {
        format!("\"{}\"", self.as_str())
    }
}

/// A fixed offset from UTC, written like "+03:00", "-05:30" or "Z".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UtcOffset {
    /// Minutes east of UTC.
    pub minutes: i32,
}

impl SettingValue for UtcOffset {
    const KIND: &'static str = "UTC offset such as \"+03:00\"";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_env(
            value
                .as_str()
                .ok_or_else(|| wrong_type("an offset in quotes such as \"+03:00\"", value))?,
        )
    }
    fn from_env(text: &str) -> Result<Self, String> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("z") || t.eq_ignore_ascii_case("utc") {
            return Ok(UtcOffset { minutes: 0 });
        }
        let bad = || format!("`{text}` is not a UTC offset; write it like +03:00, -05:30 or Z");
        let (sign, rest) = match t.as_bytes().first() {
            Some(b'+') => (1, &t[1..]),
            Some(b'-') => (-1, &t[1..]),
            _ => return Err(bad()),
        };
        let (h, m) = rest.split_once(':').ok_or_else(bad)?;
        let (h, m): (i32, i32) = (h.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?);
        if h > 14 || m > 59 || h.to_string().len() > 2 {
            return Err(bad());
        }
        Ok(UtcOffset {
            minutes: sign * (h * 60 + m),
        })
    }
    fn to_toml(&self) -> String {
        let sign = if self.minutes < 0 { '-' } else { '+' };
        let m = self.minutes.abs();
        format!("\"{sign}{:02}:{:02}\"", m / 60, m % 60)
    }
}

/// A list of SMPP command_status values, written like "0x58, 0x14" (hex or decimal).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StatusCodes(pub Vec<u32>);

impl SettingValue for StatusCodes {
    const KIND: &'static str = "list of command_status codes such as \"0x14, 0x08\"";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_env(
            value
                .as_str()
                .ok_or_else(|| wrong_type("codes in quotes such as \"0x14, 0x08\"", value))?,
        )
    }
    fn from_env(text: &str) -> Result<Self, String> {
        let mut codes = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let code = match part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
                Some(hex) => u32::from_str_radix(hex, 16),
                None => part.parse(),
            };
            codes.push(code.map_err(|_| format!("`{part}` is not a command_status code (write 0x14 or 20)"))?);
        }
        Ok(StatusCodes(codes))
    }
    fn to_toml(&self) -> String {
        let list: Vec<String> = self.0.iter().map(|c| format!("0x{c:02X}")).collect();
        format!("\"{}\"", list.join(", "))
    }
}

/// What to do when a submit was written and no answer came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnUnknownOutcome {
    /// Hold the message in an exception for a person (never resend blindly).
    Exception,
    /// Send it again, accepting that it may arrive twice.
    Resend,
}

impl SettingValue for OnUnknownOutcome {
    const KIND: &'static str = "exception or resend";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_env(
            value
                .as_str()
                .ok_or_else(|| wrong_type("\"exception\" or \"resend\"", value))?,
        )
    }
    fn from_env(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "exception" => Ok(OnUnknownOutcome::Exception),
            "resend" => Ok(OnUnknownOutcome::Resend),
            _ => Err(format!("`{text}` is not exception or resend")),
        }
    }
    fn to_toml(&self) -> String {
        match self {
            OnUnknownOutcome::Exception => "\"exception\"".into(),
            OnUnknownOutcome::Resend => "\"resend\"".into(),
        }
    }
}

/// The SMPP interface version a connection binds with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SmppVersion(pub u8);

impl SettingValue for SmppVersion {
    const KIND: &'static str = "3.4 or 5.0";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_env(value.as_str().ok_or_else(|| wrong_type("\"3.4\" or \"5.0\"", value))?)
    }
    fn from_env(text: &str) -> Result<Self, String> {
        match text.trim() {
            "3.4" => Ok(SmppVersion(0x34)),
            "5.0" | "5" => Ok(SmppVersion(0x50)),
            _ => Err(format!("`{text}` is not an SMPP version smsdesk speaks (3.4 or 5.0)")),
        }
    }
    fn to_toml(&self) -> String {
        if self.0 == 0x50 {
            "\"5.0\"".into()
        } else {
            "\"3.4\"".into()
        }
    }
}

/// How a connection's binds divide the work: every bind a transceiver, or transmitters with one
/// receiver beside them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindModeSetting {
    Transceiver,
    TransmitterReceiver,
}

impl SettingValue for BindModeSetting {
    const KIND: &'static str = "transceiver or transmitter_receiver";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_env(
            value
                .as_str()
                .ok_or_else(|| wrong_type("\"transceiver\" or \"transmitter_receiver\"", value))?,
        )
    }
    fn from_env(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "transceiver" => Ok(BindModeSetting::Transceiver),
            "transmitter_receiver" => Ok(BindModeSetting::TransmitterReceiver),
            _ => Err(format!("`{text}` is not transceiver or transmitter_receiver")),
        }
    }
    fn to_toml(&self) -> String {
        match self {
            BindModeSetting::Transceiver => "\"transceiver\"".into(),
            BindModeSetting::TransmitterReceiver => "\"transmitter_receiver\"".into(),
        }
    }
}
