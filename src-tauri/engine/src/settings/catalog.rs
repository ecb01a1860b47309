//! What the Settings screen knows about each setting beyond its documentation: how it is edited,
//! and when a change takes effect.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::config::KeySpec;

/// When a saved change takes effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Applies {
    /// At once, for the next message, receipt or request.
    Now,
    /// At once: the SMPP link is unbound (what is in flight finishes first) and bound again.
    Reconnect,
    /// At the next start of smsdesk.
    Restart,
}

/// How a setting's value is edited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SettingKind {
    Bool,
    Integer,
    Text,
    /// One of `choices`.
    Choice,
    /// A list of command_status codes, such as "0x58, 0x14".
    Codes,
    /// The callback providers (edited as a list of their own).
    Providers,
    /// The SMPP password (write-only).
    Password,
}

/// The screen's view of one setting.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    pub applies: Applies,
    pub kind: SettingKind,
    pub choices: &'static [&'static str],
    /// Shown, never edited here (changing it would point smsdesk at other data).
    pub read_only: bool,
}

const fn entry(applies: Applies, kind: SettingKind) -> Entry {
    Entry {
        applies,
        kind,
        choices: &[],
        read_only: false,
    }
}

const fn choice(applies: Applies, choices: &'static [&'static str]) -> Entry {
    Entry {
        applies,
        kind: SettingKind::Choice,
        choices,
        read_only: false,
    }
}

/// The entry of `section.key` (`spec` is its documented type).
pub fn entry_for(section: &str, key: &str, spec: &KeySpec) -> Entry {
    use Applies::*;
    let applies = match (section, key) {
        // Prices are read at intake, with the guardrails.
        ("smpp", "source_addr" | "window" | "tps" | "prices") => Now,
        // Which nodes run a connection is settled when a node starts.
        ("smpp", "nodes") => Restart,
        ("smpp", _) => Reconnect,
        // Retention reads the settings in force at each run; alerts at each look at the rules.
        (
            "retry" | "receipts" | "intake" | "guardrails" | "callbacks" | "inbox" | "retention" | "alerts" | "smtp",
            _,
        ) => Now,
        ("routing", _) => Reconnect,
        _ => Restart,
    };
    match (section, key) {
        ("smpp", "password") => entry(Reconnect, SettingKind::Password),
        ("smpp", "interface_version") => choice(Reconnect, &["3.4", "5.0"]),
        ("smpp", "bind_mode") => choice(Reconnect, &["transceiver", "transmitter_receiver"]),
        ("receipts", "response_id" | "receipt_id") => choice(Now, &["text", "hex", "decimal"]),
        ("receipts", "tlv_id") => choice(Now, &["response", "text", "hex", "decimal"]),
        ("receipts", k) if k.ends_with("_request") => {
            choice(Now, &["none", "final", "failure", "final_and_intermediate"])
        }
        ("retry", k) if k.ends_with("_on_unknown_outcome") => choice(Now, &["exception", "resend"]),
        ("retry", k) if k.ends_with("_codes") => entry(Now, SettingKind::Codes),
        ("callbacks", "providers") => entry(Now, SettingKind::Providers),
        ("alerts", "language") => choice(Now, &["auto", "en", "fr", "ru"]),
        ("intake", "smart_encoding") => choice(Now, &["off", "typography", "always"]),
        ("smtp", "security") => choice(Now, &["starttls", "tls", "none"]),
        // Set with `smsdesk smtp-password` or SMSDESK_SMTP_PASSWORD, never shown.
        ("smtp", "password") => Entry {
            read_only: true,
            ..entry(Now, SettingKind::Password)
        },
        // Where the store is: changed in the file (or the environment) while smsdesk is stopped.
        ("store", "database" | "url" | "password_file" | "node") => Entry {
            read_only: true,
            ..entry(Restart, SettingKind::Text)
        },
        ("store", "backend") => Entry {
            read_only: true,
            ..choice(Restart, &["sqlite", "postgres"])
        },
        // Set with `smsdesk store-password`, store.password_file or SMSDESK_STORE_PASSWORD, never shown.
        ("store", "password") => Entry {
            read_only: true,
            ..entry(Restart, SettingKind::Password)
        },
        _ => entry(
            applies,
            match spec.kind {
                "true or false" => SettingKind::Bool,
                k if k.starts_with("integer") => SettingKind::Integer,
                _ => SettingKind::Text,
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SECTIONS;

    #[test]
    fn what_the_issue_asks_to_apply_live_is_not_left_for_a_restart() {
        let applies = |s: &str, k: &str| {
            let spec = SECTIONS
                .iter()
                .find(|x| x.name == s)
                .and_then(|x| x.keys.iter().find(|y| y.name == k))
                .unwrap_or_else(|| panic!("{s}.{k} is a setting"));
            entry_for(s, k, spec).applies
        };
        for (s, k) in [
            ("smpp", "tps"),
            ("smpp", "window"),
            ("retry", "otp_max_attempts"),
            ("retry", "bulk_on_unknown_outcome"),
            ("receipts", "otp_deadline_minutes"),
            ("receipts", "bulk_request"),
            ("receipts", "tlv_id"),
            ("retention", "bulk_text_days"),
            ("receipts", "id_ignore_case"),
            ("callbacks", "providers"),
            ("inbox", "stop_words_fr"),
            ("inbox", "opt_out_kinds"),
            ("inbox", "notify"),
        ] {
            assert_eq!(applies(s, k), Applies::Now, "{s}.{k} must apply without a restart");
        }
        for k in ["host", "port", "system_id", "password", "sandbox"] {
            assert_eq!(applies("smpp", k), Applies::Reconnect, "smpp.{k} re-binds the link");
        }
        assert_eq!(
            applies("http", "bind"),
            Applies::Restart,
            "the listener is bound at start"
        );
    }
}
