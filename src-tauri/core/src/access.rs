//! Who may do what: the roles of people's accounts, the scopes of API keys, and the accounts and
//! sessions as the API lists them. (Checking a caller against an operation is the engine's;
//! storing accounts the store's.)

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A person's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Everything: settings, connections, accounts, API keys, and what an operator does.
    Admin,
    /// Sends, retries, cancels, resolves exceptions, exports; reads everything.
    Operator,
    /// Reads everything, changes nothing (no export either).
    Viewer,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Admin, Role::Operator, Role::Viewer];

    pub const fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Operator => "operator",
            Role::Viewer => "viewer",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// What the role may do, in the scopes' terms (an admin may also administer).
    pub fn scopes(self) -> &'static [Scope] {
        match self {
            Role::Admin | Role::Operator => &[Scope::Send, Scope::ReadAll, Scope::Act, Scope::Export],
            Role::Viewer => &[Scope::ReadAll],
        }
    }
}

/// What an API key may do, chosen when it is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub enum Scope {
    /// Hand messages in (and preview them).
    #[serde(rename = "send")]
    Send,
    /// Read the messages this key handed in (their detail, events and list), nothing else.
    #[serde(rename = "read:own")]
    ReadOwn,
    /// Read every message, the exception queue with its evidence, the dashboard and the audit log.
    #[serde(rename = "read:all")]
    ReadAll,
    /// Retry and cancel messages it may read; resolve exceptions (with `read:all`).
    #[serde(rename = "act")]
    Act,
    /// Export the messages it may read as CSV.
    #[serde(rename = "export")]
    Export,
    /// Receive the office's alerts on its webhook (nothing else: no message, no read).
    #[serde(rename = "alerts")]
    Alerts,
    /// Read the metrics for the server's monitoring (`GET /api/v1/metrics`), nothing else.
    #[serde(rename = "metrics")]
    Metrics,
}

impl Scope {
    pub const ALL: [Scope; 7] = [
        Scope::Send,
        Scope::ReadOwn,
        Scope::ReadAll,
        Scope::Act,
        Scope::Export,
        Scope::Alerts,
        Scope::Metrics,
    ];

    /// What a new key gets when nothing is asked for: enough for a website that sends and
    /// follows its own messages.
    pub const DEFAULT: [Scope; 2] = [Scope::Send, Scope::ReadOwn];

    pub const fn as_str(self) -> &'static str {
        match self {
            Scope::Send => "send",
            Scope::ReadOwn => "read:own",
            Scope::ReadAll => "read:all",
            Scope::Act => "act",
            Scope::Export => "export",
            Scope::Alerts => "alerts",
            Scope::Metrics => "metrics",
        }
    }

    pub fn parse(s: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|x| x.as_str() == s)
    }

    /// Scopes as stored: sorted, each once, separated by spaces.
    pub fn join(scopes: &[Scope]) -> String {
        let mut v = scopes.to_vec();
        v.sort();
        v.dedup();
        v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" ")
    }

    /// Scopes as stored, read back; an unknown word is dropped (it grants nothing).
    pub fn split(stored: &str) -> Vec<Scope> {
        let mut v: Vec<Scope> = stored.split_whitespace().filter_map(Scope::parse).collect();
        v.sort();
        v.dedup();
        v
    }
}

/// Limits on what one API key may hand in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyLimits {
    /// At most this many messages in any 60 seconds (none when absent).
    #[serde(default)]
    pub per_minute: Option<u32>,
    /// At most this many messages in any 24 hours (none when absent).
    #[serde(default)]
    pub per_day: Option<u32>,
    /// Destinations must start with one of these E.164 prefixes (`+33`, `+3319`); any
    /// destination when empty.
    #[serde(default)]
    pub destination_prefixes: Vec<String>,
    /// Countries (two letters) its messages may go to, within the office's
    /// (`guardrails.countries`); empty: as the office allows.
    #[serde(default)]
    pub countries: Vec<String>,
    /// Countries its one-time codes may go to, within the office's (`guardrails.otp_countries`);
    /// empty: as the office allows.
    #[serde(default)]
    pub otp_countries: Vec<String>,
    /// The most its messages may cost in a day (the office's local day), in the office's
    /// currency, such as "5.00"; none when absent.
    #[serde(default)]
    #[ts(optional)]
    pub spend_day: Option<String>,
    /// The same, in a calendar month.
    #[serde(default)]
    #[ts(optional)]
    pub spend_month: Option<String>,
}

impl KeyLimits {
    pub fn is_empty(&self) -> bool {
        self.per_minute.is_none()
            && self.per_day.is_none()
            && self.destination_prefixes.is_empty()
            && self.countries.is_empty()
            && self.otp_countries.is_empty()
            && self.spend_day.is_none()
            && self.spend_month.is_none()
    }

    /// Whether `destination` (E.164) is one this key may send to.
    pub fn allows_destination(&self, destination: &str) -> bool {
        self.destination_prefixes.is_empty() || self.destination_prefixes.iter().any(|p| destination.starts_with(p))
    }
}

/// A person's account, as lists show it (never the password).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct AccountInfo {
    #[ts(type = "number")]
    pub id: i64,
    pub name: String,
    pub role: Role,
    #[ts(type = "number")]
    pub created_at_ms: i64,
    pub created_by: String,
    /// Set while the account may not sign in.
    #[ts(type = "number | null")]
    pub disabled_at_ms: Option<i64>,
    #[ts(type = "number | null")]
    pub last_sign_in_ms: Option<i64>,
}

/// A signed-in browser, as an admin sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SessionInfo {
    #[ts(type = "number")]
    pub id: i64,
    #[ts(type = "number")]
    pub account_id: i64,
    pub account_name: String,
    #[ts(type = "number")]
    pub created_at_ms: i64,
    #[ts(type = "number")]
    pub last_seen_ms: i64,
    /// When it ends at the latest, whatever its use.
    #[ts(type = "number")]
    pub expires_at_ms: i64,
    /// The address it signed in from.
    pub address: String,
    pub user_agent: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_round_trip_through_their_stored_form_sorted_and_once() {
        let stored = Scope::join(&[Scope::Export, Scope::Send, Scope::Send, Scope::ReadOwn]);
        assert_eq!(stored, "send read:own export");
        assert_eq!(Scope::split(&stored), vec![Scope::Send, Scope::ReadOwn, Scope::Export]);
        assert_eq!(
            Scope::split("send admin  act"),
            vec![Scope::Send, Scope::Act],
            "unknown words grant nothing"
        );
    }

    #[test]
    fn a_viewer_only_reads_and_no_role_is_a_scope_short_of_an_operator_but_admin() {
        assert_eq!(Role::Viewer.scopes(), &[Scope::ReadAll]);
        assert!(!Role::Operator.scopes().contains(&Scope::ReadOwn));
        for r in Role::ALL {
            assert_eq!(Role::parse(r.as_str()), Some(r));
        }
    }

    #[test]
    fn destination_prefixes_limit_only_when_given() {
        let mut l = KeyLimits::default();
        assert!(l.allows_destination("+33612345678"));
        l.destination_prefixes = vec!["+33".into(), "+44".into()];
        assert!(l.allows_destination("+33612345678") && l.allows_destination("+447700900123"));
        assert!(!l.allows_destination("+79161234567"));
    }
}
