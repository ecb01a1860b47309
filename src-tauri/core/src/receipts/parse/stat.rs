//! The normalised status token and the vendor words that map onto it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Normalised status token, spelled as in SMPP 3.4 Appendix B receipt texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, ts_rs::TS, utoipa::ToSchema)]
#[ts(rename_all = "UPPERCASE")]
#[schema(rename_all = "UPPERCASE")]
pub enum Stat {
    Delivrd,
    Expired,
    Deleted,
    Undeliv,
    Acceptd,
    Unknown,
    Rejectd,
    Enroute,
    Schedld,
    Skipped,
}

/// A text that is not one of the ten status tokens.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a status token (expected one of DELIVRD, EXPIRED, DELETED, UNDELIV, ACCEPTD, UNKNOWN, REJECTD, ENROUTE, SCHEDLD, SKIPPED)")]
pub struct UnknownStat(pub String);

impl Stat {
    /// Every token, in SMPP `message_state` order (SCHEDLD = 0 … SKIPPED = 9).
    pub const ALL: [Stat; 10] = [
        Stat::Schedld,
        Stat::Enroute,
        Stat::Delivrd,
        Stat::Expired,
        Stat::Deleted,
        Stat::Undeliv,
        Stat::Acceptd,
        Stat::Unknown,
        Stat::Rejectd,
        Stat::Skipped,
    ];

    /// The seven-letter token: `DELIVRD`, `UNDELIV`, …
    pub const fn as_str(self) -> &'static str {
        match self {
            Stat::Delivrd => "DELIVRD",
            Stat::Expired => "EXPIRED",
            Stat::Deleted => "DELETED",
            Stat::Undeliv => "UNDELIV",
            Stat::Acceptd => "ACCEPTD",
            Stat::Unknown => "UNKNOWN",
            Stat::Rejectd => "REJECTD",
            Stat::Enroute => "ENROUTE",
            Stat::Schedld => "SCHEDLD",
            Stat::Skipped => "SKIPPED",
        }
    }

    /// Final states: no later receipt moves a message out of them. ACCEPTD is not final here
    /// (Kannel, Jasmin and Vonage use it as an intermediate); a connection may say otherwise.
    pub const fn is_final(self) -> bool {
        matches!(
            self,
            Stat::Delivrd
                | Stat::Expired
                | Stat::Deleted
                | Stat::Undeliv
                | Stat::Unknown
                | Stat::Rejectd
                | Stat::Skipped
        )
    }

    /// SMPP `message_state` (TLV 0x0427): 0 SCHEDLD (5.0), 1 ENROUTE, 2 DELIVRD, 3 EXPIRED,
    /// 4 DELETED, 5 UNDELIV, 6 ACCEPTD, 7 UNKNOWN, 8 REJECTD, 9 SKIPPED (5.0).
    pub const fn from_message_state(state: u8) -> Option<Stat> {
        if (state as usize) < Stat::ALL.len() {
            Some(Stat::ALL[state as usize])
        } else {
            None
        }
    }

    /// The SMPP `message_state` value of this token.
    pub const fn message_state(self) -> u8 {
        match self {
            Stat::Schedld => 0,
            Stat::Enroute => 1,
            Stat::Delivrd => 2,
            Stat::Expired => 3,
            Stat::Deleted => 4,
            Stat::Undeliv => 5,
            Stat::Acceptd => 6,
            Stat::Unknown => 7,
            Stat::Rejectd => 8,
            Stat::Skipped => 9,
        }
    }

    /// Reads a vendor status word, case-insensitively: the tokens themselves, the SMPP state
    /// names (DELIVERED, UNDELIVERABLE, …) and the words HTTP providers and gateways use
    /// (`Success`, `FAILED`, `delivery_failed`, `sent`, `ESME_ROK`, `buffered`, …).
    /// `None` when the word is not known; callers then report `UNKNOWN` and keep the word.
    pub fn from_word(word: &str) -> Option<Stat> {
        let w = word.trim_matches(|c: char| c.is_ascii_whitespace() || c == '\0');
        if w.is_empty() || w.len() > 32 {
            return None;
        }
        // Fast path: the canonical tokens as SMSCs write them.
        if w.len() == 7 {
            for s in Stat::ALL {
                if s.as_str().as_bytes() == w.as_bytes() {
                    return Some(s);
                }
            }
        }
        for (name, stat) in WORDS {
            if eq_word(w, name) {
                return Some(*stat);
            }
        }
        // Any other SMPP command status name is a refusal.
        if w.len() > 5 && w.as_bytes()[..5].eq_ignore_ascii_case(b"ESME_") {
            return Some(Stat::Rejectd);
        }
        None
    }
}

/// Compares ignoring ASCII case and treating `-`, ` ` and `_` alike.
fn eq_word(word: &str, name: &str) -> bool {
    let (a, b) = (word.as_bytes(), name.as_bytes());
    a.len() == b.len()
        && a.iter().zip(b).all(|(&x, &y)| {
            let x = if x == b'-' || x == b' ' { b'_' } else { x };
            x.eq_ignore_ascii_case(&y)
        })
}

/// Vendor words (upper case, `_` for any separator).
const WORDS: &[(&str, Stat)] = &[
    ("DELIVRD", Stat::Delivrd),
    ("DELIVERED", Stat::Delivrd),
    ("DELIVRED", Stat::Delivrd),
    ("DELIVER", Stat::Delivrd),
    ("DELIV", Stat::Delivrd),
    ("SUCCESS", Stat::Delivrd),
    ("SUCCESSFUL", Stat::Delivrd),
    ("DELIVERED_TO_HANDSET", Stat::Delivrd),
    ("DELIVERED_TO_TERMINAL", Stat::Delivrd),
    ("DELIVEREDTOTERMINAL", Stat::Delivrd),
    ("READ", Stat::Delivrd),
    ("EXPIRED", Stat::Expired),
    ("EXPIRD", Stat::Expired),
    ("EXPIRE", Stat::Expired),
    ("DELETED", Stat::Deleted),
    ("DELETD", Stat::Deleted),
    ("CANCELLED", Stat::Deleted),
    ("CANCELED", Stat::Deleted),
    ("UNDELIV", Stat::Undeliv),
    ("UNDELIVERABLE", Stat::Undeliv),
    ("UNDELVRD", Stat::Undeliv),
    ("UNDELIVRD", Stat::Undeliv),
    ("UNDELIVERED", Stat::Undeliv),
    ("UNDELIVR", Stat::Undeliv),
    ("FAILED", Stat::Undeliv),
    ("FAIL", Stat::Undeliv),
    ("FAILD", Stat::Undeliv),
    ("FAILURE", Stat::Undeliv),
    ("DELIVERY_FAILED", Stat::Undeliv),
    ("NOT_DELIVERED", Stat::Undeliv),
    ("ACCEPTD", Stat::Acceptd),
    ("ACCEPTED", Stat::Acceptd),
    ("ACCEPT", Stat::Acceptd),
    ("SENT", Stat::Acceptd),
    ("SUBMITTED", Stat::Acceptd),
    ("DISPATCHED", Stat::Acceptd),
    ("ESME_ROK", Stat::Acceptd),
    ("UNKNOWN", Stat::Unknown),
    ("UNKNOW", Stat::Unknown),
    ("REJECTD", Stat::Rejectd),
    ("REJECTED", Stat::Rejectd),
    ("REJECT", Stat::Rejectd),
    ("DND_REJECTED", Stat::Rejectd),
    ("ABORTED", Stat::Rejectd),
    ("ENROUTE", Stat::Enroute),
    ("EN_ROUTE", Stat::Enroute),
    ("BUFFERED", Stat::Enroute),
    ("PENDING", Stat::Enroute),
    ("QUEUED", Stat::Enroute),
    ("SENDING", Stat::Enroute),
    ("SCHEDLD", Stat::Schedld),
    ("SCHEDULED", Stat::Schedld),
    ("SKIPPED", Stat::Skipped),
];

impl fmt::Display for Stat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Stat {
    /// The token exactly as [`Stat::as_str`] spells it (as stored), and nothing else.
    pub fn from_token(token: &str) -> Option<Stat> {
        Stat::ALL.into_iter().find(|s| s.as_str() == token)
    }
}

impl FromStr for Stat {
    type Err = UnknownStat;

    /// Accepts the ten tokens (any case) and the vendor words of [`Stat::from_word`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Stat::from_word(s).ok_or_else(|| UnknownStat(s.to_owned()))
    }
}

impl Serialize for Stat {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Stat {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
