//! SMPP command_status values: their names, what they mean in plain words, and how a submit that
//! got one is treated by default (the dispatcher's retry table starts from these and can be
//! overridden per connection).
//!
//! Default classes, as gateways disagree (Kannel retries 0x08/0x14/0x58/0x64 only; NowSMS treats
//! only 0x0A/0x0B/0x66 as permanent): throttling is retried with a slower rate; queue full, system
//! error and the receiver's temporary error are retried; bad addresses, bad parameters and the
//! receiver's permanent or reject errors fail at once; anything else is retried, with a low cap.

use serde::Serialize;

/// How a submit that got a status is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    /// Accepted: not an error.
    Ok,
    /// Retry later and slow the sending rate.
    Throttled,
    /// Retry with backoff.
    Temporary,
    /// Fail at once: resending cannot help.
    Permanent,
    /// Not in the table: retried, but only a few times.
    Unlisted,
}

/// A status with its name and meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StatusInfo {
    pub code: u32,
    pub name: &'static str,
    pub meaning: &'static str,
    pub class: ErrorClass,
}

use ErrorClass::{Ok as Fine, Permanent as P, Temporary as T, Throttled as Th};

const TABLE: &[(u32, &str, &str, ErrorClass)] = &[
    (0x00, "ESME_ROK", "No error: the SMSC accepted the request", Fine),
    (0x01, "ESME_RINVMSGLEN", "Message length is invalid", P),
    (0x02, "ESME_RINVCMDLEN", "Command length is invalid", P),
    (0x03, "ESME_RINVCMDID", "Invalid command id", P),
    (0x04, "ESME_RINVBNDSTS", "Incorrect bind status for this command", T),
    (0x05, "ESME_RALYBND", "Already bound", T),
    (0x06, "ESME_RINVPRTFLG", "Invalid priority flag", P),
    (0x07, "ESME_RINVREGDLVFLG", "Invalid registered delivery flag", P),
    (0x08, "ESME_RSYSERR", "System error at the SMSC", T),
    (0x0A, "ESME_RINVSRCADR", "Invalid source address (sender id)", P),
    (0x0B, "ESME_RINVDSTADR", "Invalid destination address (phone number)", P),
    (0x0C, "ESME_RINVMSGID", "Message id is invalid", P),
    (0x0D, "ESME_RBINDFAIL", "Bind failed", T),
    (0x0E, "ESME_RINVPASWD", "Invalid password", P),
    (0x0F, "ESME_RINVSYSID", "Invalid system id", P),
    (0x11, "ESME_RCANCELFAIL", "Cancel failed", T),
    (0x13, "ESME_RREPLACEFAIL", "Replace failed", T),
    (0x14, "ESME_RMSGQFUL", "The SMSC's message queue is full", T),
    (0x15, "ESME_RINVSERTYP", "Invalid service type", P),
    (0x33, "ESME_RINVNUMDESTS", "Invalid number of destinations", P),
    (0x34, "ESME_RINVDLNAME", "Invalid distribution list name", P),
    (0x40, "ESME_RINVDESTFLAG", "Invalid destination flag", P),
    (0x42, "ESME_RINVSUBREP", "Invalid submit-with-replace request", P),
    (0x43, "ESME_RINVESMCLASS", "Invalid esm_class", P),
    (0x44, "ESME_RCNTSUBDL", "Cannot submit to a distribution list", P),
    (0x45, "ESME_RSUBMITFAIL", "Submit failed", ErrorClass::Unlisted),
    (0x48, "ESME_RINVSRCTON", "Invalid source address TON", P),
    (0x49, "ESME_RINVSRCNPI", "Invalid source address NPI", P),
    (0x50, "ESME_RINVDSTTON", "Invalid destination address TON", P),
    (0x51, "ESME_RINVDSTNPI", "Invalid destination address NPI", P),
    (0x53, "ESME_RINVSYSTYP", "Invalid system type", P),
    (0x54, "ESME_RINVREPFLAG", "Invalid replace_if_present flag", P),
    (0x55, "ESME_RINVNUMMSGS", "Invalid number of messages", P),
    (
        0x58,
        "ESME_RTHROTTLED",
        "Throttled: sending faster than the account allows",
        Th,
    ),
    (0x61, "ESME_RINVSCHED", "Invalid scheduled delivery time", P),
    (0x62, "ESME_RINVEXPIRY", "Invalid validity period", P),
    (0x63, "ESME_RINVDFTMSGID", "Predefined message not found", P),
    (0x64, "ESME_RX_T_APPN", "The receiver reported a temporary error", T),
    (0x65, "ESME_RX_P_APPN", "The receiver reported a permanent error", P),
    (0x66, "ESME_RX_R_APPN", "The receiver rejected the message", P),
    (0x67, "ESME_RQUERYFAIL", "Query failed", T),
    (0xC0, "ESME_RINVOPTPARSTREAM", "Error in the optional parameters", P),
    (0xC1, "ESME_ROPTPARNOTALLWD", "Optional parameter not allowed", P),
    (0xC2, "ESME_RINVPARLEN", "Invalid parameter length", P),
    (0xC3, "ESME_RMISSINGOPTPARAM", "Expected optional parameter missing", P),
    (0xC4, "ESME_RINVOPTPARAMVAL", "Invalid optional parameter value", P),
    (0xFE, "ESME_RDELIVERYFAILURE", "Delivery failure", ErrorClass::Unlisted),
    (0xFF, "ESME_RUNKNOWNERR", "Unknown error", ErrorClass::Unlisted),
];

/// The name of every status this table knows, in code order: what the screens word.
pub fn names() -> impl Iterator<Item = &'static str> {
    TABLE.iter().map(|&(_, name, ..)| name)
}

/// The name, meaning and default class of a command_status.
pub fn describe(code: u32) -> StatusInfo {
    match TABLE.iter().find(|(c, ..)| *c == code) {
        Some(&(code, name, meaning, class)) => StatusInfo {
            code,
            name,
            meaning,
            class,
        },
        None => StatusInfo {
            code,
            name: "UNLISTED",
            meaning: "A status this table does not know (vendor-specific)",
            class: ErrorClass::Unlisted,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_defaults_hold() {
        assert_eq!(describe(0x58).class, ErrorClass::Throttled);
        for code in [0x14, 0x08, 0x64] {
            assert_eq!(describe(code).class, ErrorClass::Temporary, "{code:#x}");
        }
        for code in [0x0A, 0x0B, 0x66, 0x65, 0x62, 0xC4] {
            assert_eq!(describe(code).class, ErrorClass::Permanent, "{code:#x}");
        }
        assert_eq!(
            describe(0x0400).class,
            ErrorClass::Unlisted,
            "vendor codes are unlisted"
        );
        assert_eq!(describe(0).class, ErrorClass::Ok);
    }

    #[test]
    fn every_entry_has_a_name_and_a_meaning_and_codes_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for (code, name, meaning, _) in TABLE {
            assert!(seen.insert(code), "{code:#x} listed twice");
            assert!(name.starts_with("ESME_R") && !meaning.is_empty());
        }
        assert_eq!(describe(0x0B).name, "ESME_RINVDSTADR");
    }
}

/// Codes a connection classes otherwise than the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClassOverrides {
    pub throttled: Vec<u32>,
    pub temporary: Vec<u32>,
    pub permanent: Vec<u32>,
}

/// The class of a status: as configured, else the documented default.
pub fn classify(code: u32, overrides: &ClassOverrides) -> ErrorClass {
    if code == 0 {
        ErrorClass::Ok
    } else if overrides.permanent.contains(&code) {
        ErrorClass::Permanent
    } else if overrides.throttled.contains(&code) {
        ErrorClass::Throttled
    } else if overrides.temporary.contains(&code) {
        ErrorClass::Temporary
    } else {
        describe(code).class
    }
}

#[cfg(test)]
mod override_tests {
    use super::*;

    #[test]
    fn configured_classes_win_over_the_defaults() {
        let o = ClassOverrides {
            permanent: vec![0x45],
            temporary: vec![0x0B],
            throttled: vec![0x400],
        };
        assert_eq!(
            classify(0x45, &o),
            ErrorClass::Permanent,
            "a vendor's submit-failed configured permanent"
        );
        assert_eq!(classify(0x0B, &o), ErrorClass::Temporary);
        assert_eq!(classify(0x400, &o), ErrorClass::Throttled);
        assert_eq!(
            classify(0x0A, &o),
            ErrorClass::Permanent,
            "unlisted here: the default holds"
        );
        assert_eq!(classify(0, &o), ErrorClass::Ok);
    }
}
