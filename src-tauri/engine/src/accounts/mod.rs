//! People's accounts: named people with a password and a role, who sign in from a browser.
//! Creating, changing and disabling them is audited; they are never deleted, so the audit log's
//! names keep meaning someone. Hashing a password is slow on purpose, so it happens before the
//! write, off the writer's thread.

pub mod hashing;
pub mod password;
pub mod session;
pub mod setup;
pub mod throttle;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::access::{AccountInfo, Role};
use crate::audit::AuditAction;
use crate::intake::{codes, FieldError};
use crate::store::tables::{account, session as sessions, NewAudit};
use crate::store::{StoreError, WriteTx};

/// A new account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewAccount {
    /// How the person signs in and how the audit log names them (compared without case).
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub name: String,
    pub role: Role,
    /// At least 10 characters, not the name, nor easy to guess (a common password, a sequence,
    /// a repeat: `weak_password` says which); the person may change it once signed in.
    #[schema(min_length = 10, max_length = 200)]
    pub password: String,
}

/// A change to an account; what is absent stays as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AccountChange {
    #[serde(default)]
    pub role: Option<Role>,
    /// `true` stops the account from signing in (its sessions end); `false` lets it again.
    #[serde(default)]
    pub disabled: Option<bool>,
    /// A new password (its sessions end).
    #[serde(default)]
    #[schema(min_length = 10, max_length = 200)]
    pub password: Option<String>,
}

/// A person changing their own password.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PasswordChange {
    pub current: String,
    /// At least 10 characters, not the name, nor easy to guess.
    #[schema(min_length = 10, max_length = 200)]
    pub new: String,
}

/// Signing in from a browser.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SignIn {
    pub name: String,
    pub password: String,
}

/// Creating the first admin with the setup link's token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FirstAdmin {
    /// The token of the link `smsdesk serve` printed.
    pub token: String,
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub name: String,
    #[schema(min_length = 10, max_length = 200)]
    pub password: String,
    /// The office's country (ISO 3166 alpha-2, such as "FR"): national numbers are read in it
    /// (`intake.default_region`). Null leaves the setting as it is.
    #[serde(default)]
    #[schema(max_length = 2)]
    pub country: Option<String>,
}

/// Whether the first admin may still be created from a browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SetupState {
    /// No account exists yet.
    pub open: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    #[error("the account has invalid fields")]
    Invalid(Vec<FieldError>),
    #[error("an account named `{0}` exists already")]
    NameTaken(String),
    #[error("account {0} does not exist")]
    NotFound(i64),
    #[error("{0} is the last active admin: make another admin first")]
    LastAdmin(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn field(field: &str, code: crate::said::FieldCode, message: impl Into<String>) -> FieldError {
    FieldError::new(field, code, message)
}

/// The trimmed name, or why it is refused.
pub fn check_name(name: &str) -> Result<String, FieldError> {
    let n = name.trim();
    let code = if n.is_empty() {
        codes::REQUIRED
    } else if n.chars().count() > 100 {
        codes::TOO_LONG
    } else if n.chars().any(char::is_control) {
        codes::INVALID_CHARACTER
    } else {
        return Ok(n.to_owned());
    };
    Err(field(
        "name",
        code,
        "a name is 1 to 100 characters, without control characters",
    ))
}

/// A password, or why it is refused (`name`: the account's): `weak_password` with the reason
/// as its `reason` parameter (and `min` or `max` for a length).
pub fn check_password(field_name: &str, password: &str, name: &str) -> Result<(), FieldError> {
    use password::Weakness;
    let Some(weakness) = password::weakness(password, name) else {
        return Ok(());
    };
    let refused = field(field_name, codes::WEAK_PASSWORD, weakness.sentence()).with("reason", weakness.as_str());
    Err(match weakness {
        Weakness::TooShort => refused.with("min", password::MIN_CHARS),
        Weakness::TooLong => refused.with("max", password::MAX_CHARS),
        _ => refused,
    })
}

/// Checks a new account: its trimmed name, or every invalid field.
pub fn check_new(new: &NewAccount) -> Result<String, AccountError> {
    let mut errors = Vec::new();
    let name = check_name(&new.name).map_err(|e| errors.push(e)).ok();
    if let Err(e) = check_password("password", &new.password, &new.name) {
        errors.push(e);
    }
    match name {
        Some(n) if errors.is_empty() => Ok(n),
        _ => Err(AccountError::Invalid(errors)),
    }
}

/// Stores a checked account (`name` from [`check_new`], `hash` of its password), audited. `via`
/// names how it was made when not by a signed-in admin (`setup_link`: the first admin, by the
/// link the server printed; the actor is then the new admin).
pub fn create(
    tx: &mut WriteTx<'_>,
    name: &str,
    role: Role,
    hash: &str,
    actor: &str,
    via: Option<&str>,
) -> Result<AccountInfo, AccountError> {
    let id = account::insert(tx, name, role, hash, actor)?.ok_or_else(|| AccountError::NameTaken(name.into()))?;
    let mut details = serde_json::json!({ "name": name, "role": role.as_str() });
    if let Some(via) = via {
        details["via"] = via.into();
    }
    audit(tx, actor, AuditAction::AccountCreate, id, details)?;
    account::get(tx, id)?.ok_or(AccountError::NotFound(id))
}

/// Applies `change` to account `id` (`hash`: the new password's, when there is one), audited.
/// Disabling an account or changing its password ends its sessions, but `keep` (the session of a
/// person changing their own password).
pub fn update(
    tx: &mut WriteTx<'_>,
    id: i64,
    change: &AccountChange,
    hash: Option<&str>,
    actor: &str,
    keep: Option<i64>,
) -> Result<AccountInfo, AccountError> {
    let before = account::get(tx, id)?.ok_or(AccountError::NotFound(id))?;
    let stays_admin = change.role.unwrap_or(before.role) == Role::Admin
        && !change.disabled.unwrap_or(before.disabled_at_ms.is_some());
    let (_, active_admins) = account::counts(tx)?;
    let was_active_admin = before.role == Role::Admin && before.disabled_at_ms.is_none();
    if was_active_admin && !stays_admin && active_admins <= 1 {
        return Err(AccountError::LastAdmin(before.name));
    }
    // What changed, as facts the screens word: { name, role: [from, to], disabled, password_set }.
    let mut done = serde_json::Map::new();
    if let Some(role) = change.role.filter(|r| *r != before.role) {
        account::set_role(tx, id, role)?;
        done.insert("role".into(), serde_json::json!([before.role.as_str(), role.as_str()]));
    }
    if let Some(disabled) = change.disabled.filter(|d| *d != before.disabled_at_ms.is_some()) {
        account::set_disabled(tx, id, disabled)?;
        done.insert("disabled".into(), disabled.into());
    }
    if let Some(hash) = hash {
        account::set_password(tx, id, hash)?;
        done.insert("password_set".into(), true.into());
    }
    if hash.is_some() || change.disabled == Some(true) {
        sessions::revoke_all(tx, id, actor, keep.filter(|_| change.disabled != Some(true)))?;
    }
    if !done.is_empty() {
        done.insert("name".into(), before.name.clone().into());
        audit(tx, actor, AuditAction::AccountUpdate, id, done.into())?;
    }
    account::get(tx, id)?.ok_or(AccountError::NotFound(id))
}

/// Appends an audit entry about account `id`, with what it did as `details` (no sentence: the
/// screens word the facts).
pub fn audit(
    tx: &mut WriteTx<'_>,
    actor: &str,
    action: AuditAction,
    id: i64,
    details: serde_json::Value,
) -> Result<(), StoreError> {
    tx.audit().append(&NewAudit {
        actor: actor.into(),
        action,
        subject_type: Some("account".into()),
        subject_id: Some(id),
        note: None,
        details_json: Some(details.to_string()),
    })?;
    Ok(())
}
