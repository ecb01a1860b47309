//! Who is calling, and what they may do: an API key by its scopes, a signed-in person by their
//! role, and the person at this computer (the desktop window, or the command line with the
//! operator token) as its admin.

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

pub use smsdesk_core::access::{AccountInfo, KeyLimits, Role, Scope, SessionInfo};

/// Who may call an operation: what the caller's scopes or role must allow (see
/// `Caller::may`). The desktop window is the local admin, and may call all of those it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone, without a credential.
    Public,
    /// Any valid credential.
    Any,
    /// Handing messages in: scope `send`.
    Send,
    /// Reading messages: `read:own` (only those the key handed in) or `read:all`.
    ReadMessages,
    /// Reading everything else (exceptions and their evidence, the dashboard, the audit log):
    /// `read:all`.
    ReadAll,
    /// Acting on messages the caller may read: `act`.
    Act,
    /// Resolving exceptions: `act` and `read:all`.
    Resolve,
    /// Exporting the messages the caller may read: `export`.
    Export,
    /// Exporting what only callers that may read everything see (the opt-out list): `export`
    /// and `read:all`.
    ExportAll,
    /// Settings, connections, accounts and keys: the admin role.
    Admin,
    /// A signed-in person (about their own account).
    Person,
    /// The metrics for the server's monitoring: scope `metrics`, or an admin.
    Metrics,
}

/// How the person at this computer reaches the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Local {
    /// The desktop window.
    Window,
    /// `smsdesk` on the command line, with the running instance's operator token.
    CommandLine,
}

/// Who is calling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// An integration, by its API key.
    Key {
        id: i64,
        name: String,
        scopes: Vec<Scope>,
        limits: KeyLimits,
    },
    /// A person signed in from a browser.
    Person {
        account_id: i64,
        name: String,
        role: Role,
        session_id: i64,
    },
    /// The person at this computer: an admin without a password (whoever can run the app or
    /// read its operator token owns its data anyway). `user` is their login name.
    Local { user: String, via: Local },
}

/// The login name of whoever runs this process, for the audit log.
static LOGIN: LazyLock<String> = LazyLock::new(|| {
    ["USER", "LOGNAME", "USERNAME"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|u| !u.trim().is_empty()))
        .unwrap_or_else(|| "local user".into())
});

impl Caller {
    /// The desktop window.
    pub fn window() -> Caller {
        Caller::Local {
            user: LOGIN.clone(),
            via: Local::Window,
        }
    }

    /// The command line on this computer.
    pub fn command_line() -> Caller {
        Caller::Local {
            user: LOGIN.clone(),
            via: Local::CommandLine,
        }
    }

    /// A key with `scopes` and no limits (tests, and keys as stored).
    pub fn key(id: i64, name: &str, scopes: &[Scope]) -> Caller {
        Caller::Key {
            id,
            name: name.into(),
            scopes: scopes.to_vec(),
            limits: KeyLimits::default(),
        }
    }

    /// The idempotency scope of this caller: callers never see each other's records.
    pub fn scope(&self) -> String {
        match self {
            Caller::Key { id, .. } => format!("key:{id}"),
            Caller::Person { account_id, .. } => format!("account:{account_id}"),
            Caller::Local { .. } => "operator".into(),
        }
    }

    /// The name recorded in the audit log: the person, or the key.
    pub fn actor(&self) -> String {
        match self {
            Caller::Key { name, .. } => format!("api key {name}"),
            Caller::Person { name, .. } => name.clone(),
            Caller::Local {
                user,
                via: Local::Window,
            } => format!("{user} (desktop)"),
            Caller::Local {
                user,
                via: Local::CommandLine,
            } => format!("{user} (command line)"),
        }
    }

    /// Who hands a message in, as a message records it: the person's name (the login name of the
    /// person at this computer, or the signed-in account's), or the API key's name. The channel
    /// (compose, CSV, API, command line) is recorded beside it.
    pub fn submitter(&self) -> String {
        match self {
            Caller::Key { name, .. } | Caller::Person { name, .. } => name.clone(),
            Caller::Local { user, .. } => user.clone(),
        }
    }

    /// The name of the caller's API key, if it is one.
    pub fn key_name(&self) -> Option<&str> {
        match self {
            Caller::Key { name, .. } => Some(name),
            _ => None,
        }
    }

    pub fn api_key_id(&self) -> Option<i64> {
        match self {
            Caller::Key { id, .. } => Some(*id),
            _ => None,
        }
    }

    /// The role this caller acts with; a key has none (its scopes say what it may do).
    pub fn role(&self) -> Option<Role> {
        match self {
            Caller::Key { .. } => None,
            Caller::Person { role, .. } => Some(*role),
            Caller::Local { .. } => Some(Role::Admin),
        }
    }

    pub fn is_admin(&self) -> bool {
        self.role() == Some(Role::Admin)
    }

    /// What this caller may do, in the scopes' terms.
    pub fn scopes(&self) -> &[Scope] {
        match self {
            Caller::Key { scopes, .. } => scopes,
            _ => self.role().map_or(&[], Role::scopes),
        }
    }

    fn has(&self, scope: Scope) -> bool {
        self.scopes().contains(&scope)
    }

    /// The key whose messages are the only ones this caller may see, if it may not see all.
    /// `Some` for a key without `read:all`.
    pub fn only_own(&self) -> Option<i64> {
        match self {
            Caller::Key { id, .. } if !self.has(Scope::ReadAll) => Some(*id),
            _ => None,
        }
    }

    /// Whether this caller may read message `owner` (the key that handed it in, if any).
    pub fn may_see(&self, owner: Option<i64>) -> bool {
        match self.only_own() {
            None => self.has(Scope::ReadAll),
            Some(me) => self.has(Scope::ReadOwn) && owner == Some(me),
        }
    }

    /// Whether this caller may call an operation of `access`.
    pub fn may(&self, access: Access) -> bool {
        let reads = self.has(Scope::ReadAll) || self.has(Scope::ReadOwn);
        match access {
            Access::Public | Access::Any => true,
            Access::Send => self.has(Scope::Send),
            Access::ReadMessages => reads,
            Access::ReadAll => self.has(Scope::ReadAll),
            Access::Act => self.has(Scope::Act) && reads,
            Access::Resolve => self.has(Scope::Act) && self.has(Scope::ReadAll),
            Access::Export => self.has(Scope::Export) && reads,
            Access::ExportAll => self.has(Scope::Export) && self.has(Scope::ReadAll),
            Access::Admin => self.is_admin(),
            Access::Person => matches!(self, Caller::Person { .. }),
            Access::Metrics => self.has(Scope::Metrics) || self.is_admin(),
        }
    }
}

/// Who the caller is, as the UI asks it to decide what to show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct Me {
    /// The name the audit log gives this caller's actions.
    pub actor: String,
    /// `key`, `person` or `local`.
    pub kind: CallerKind,
    /// The person's role (the person at this computer is an admin); none for a key.
    pub role: Option<Role>,
    /// What this caller may do.
    pub scopes: Vec<Scope>,
    /// Whether it may change settings, keys and accounts.
    pub admin: bool,
    /// Whether it sees only the messages it handed in.
    pub only_own: bool,
    /// For a signed-in browser: the value every state-changing request must carry in
    /// `X-CSRF-Token`.
    pub csrf_token: Option<String>,
}

/// What kind of caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CallerKind {
    Key,
    Person,
    Local,
}

impl Me {
    /// How `caller` is described to itself; `csrf_token` is its session's, if it has one.
    pub fn of(caller: &Caller, csrf_token: Option<String>) -> Me {
        Me {
            actor: caller.actor(),
            kind: match caller {
                Caller::Key { .. } => CallerKind::Key,
                Caller::Person { .. } => CallerKind::Person,
                Caller::Local { .. } => CallerKind::Local,
            },
            role: caller.role(),
            scopes: caller.scopes().to_vec(),
            admin: caller.is_admin(),
            only_own: caller.only_own().is_some(),
            csrf_token,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(role: Role) -> Caller {
        Caller::Person {
            account_id: 1,
            name: "Marie".into(),
            role,
            session_id: 1,
        }
    }

    #[test]
    fn each_role_may_exactly_what_it_promises() {
        use Access::*;
        let all = [Any, Send, ReadMessages, ReadAll, Act, Resolve, Export, ExportAll, Admin];
        let may = |c: &Caller| all.iter().copied().filter(|a| c.may(*a)).collect::<Vec<_>>();
        assert_eq!(may(&person(Role::Admin)), all.to_vec());
        assert_eq!(
            may(&Caller::window()),
            all.to_vec(),
            "the person at this computer is the admin"
        );
        assert_eq!(
            may(&person(Role::Operator)),
            vec![Any, Send, ReadMessages, ReadAll, Act, Resolve, Export, ExportAll]
        );
        assert_eq!(may(&person(Role::Viewer)), vec![Any, ReadMessages, ReadAll]);
    }

    #[test]
    fn a_website_key_sends_and_reads_its_own_messages_only() {
        let website = Caller::key(7, "website", &Scope::DEFAULT);
        assert!(website.may(Access::Send) && website.may(Access::ReadMessages));
        for a in [
            Access::ReadAll,
            Access::Act,
            Access::Resolve,
            Access::Export,
            Access::Admin,
        ] {
            assert!(!website.may(a), "{a:?} is not the website's");
        }
        assert_eq!(website.only_own(), Some(7));
        assert!(website.may_see(Some(7)));
        assert!(
            !website.may_see(Some(8)) && !website.may_see(None),
            "another's message is not its"
        );
    }

    #[test]
    fn act_needs_something_to_act_on_and_resolving_needs_every_message() {
        let act_own = Caller::key(1, "crm", &[Scope::ReadOwn, Scope::Act]);
        assert!(act_own.may(Access::Act) && !act_own.may(Access::Resolve));
        let act_blind = Caller::key(2, "odd", &[Scope::Act]);
        assert!(!act_blind.may(Access::Act), "acting on what it cannot read is refused");
        let all = Caller::key(3, "backoffice", &[Scope::ReadAll, Scope::Act, Scope::Export]);
        assert!(all.may(Access::Resolve) && all.may(Access::Export) && all.only_own().is_none());
        assert!(!all.may(Access::Admin), "no key administers");
    }

    #[test]
    fn the_audit_names_the_person_or_the_key_never_a_generic_operator() {
        assert_eq!(person(Role::Operator).actor(), "Marie");
        assert_eq!(Caller::key(1, "website", &[]).actor(), "api key website");
        assert!(Caller::window().actor().ends_with(" (desktop)"));
        assert!(Caller::command_line().actor().ends_with(" (command line)"));
        assert_ne!(Caller::window().actor(), "operator");
    }
}
