//! The SMPP server's side of the service: its accounts (created, listed, given a new password),
//! a bind's password check (throttled as the web sign-in is), and what a bound client may do with
//! its own messages: hand them in, ask where they stand, cancel them.

use crate::access::{Caller, Scope};
use crate::apikeys::{self, NewApiKey};
use crate::domain::{IntakeChannel, MessageKind};
use crate::intake::{self, FieldError, SubmitMessage};
use crate::said::FieldCode;
use crate::smpp_clients::{CreatedSmppAccount, NewSmppAccount, Registry, SmppAccountInfo, SmppServerStatus};
use crate::store::tables::smpp as table;

use super::{MessageAction, Service, ServiceError};

/// SMPP's longest password (9 octets with its terminating NUL).
pub const PASSWORD_CHARS: usize = 8;
/// The tps and window of an account that does not say.
pub const DEFAULT_TPS: u32 = 10;
pub const DEFAULT_WINDOW: u32 = 10;

/// Why a bind is refused, as SMPP says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindRefused {
    /// ESME_RINVSYSID or ESME_RINVPASWD: no such account, or the wrong password. Which one is not
    /// told: both answer ESME_RINVPASWD.
    WrongPassword,
    /// ESME_RBINDFAIL: too many wrong passwords lately (the sign-in's slow-down), or the
    /// password checks are all busy: try later.
    TryLater,
}

/// A bound account: who its messages are from, and its session limits.
#[derive(Debug, Clone)]
pub struct SmppBound {
    pub caller: Caller,
    pub tps: u32,
    pub window: u32,
    pub kinds: Vec<MessageKind>,
}

impl Service {
    /// Creates an SMPP account (an API key with an SMPP password; audited as a key's creation).
    pub async fn create_smpp_account(
        &self,
        caller: &Caller,
        new: NewSmppAccount,
    ) -> Result<CreatedSmppAccount, ServiceError> {
        let (tps, window, kinds) = checked(&new)?;
        let sealer = self
            .sealer
            .clone()
            .ok_or_else(|| ServiceError::BadRequest("this instance has no key to seal secrets with".into()))?;
        let password = new_password();
        let hash = self.hash_password(password.clone()).await?;
        let actor = caller.actor();
        let key = NewApiKey {
            name: new.name.clone(),
            webhook_url: None,
            scopes: new.scopes.clone(),
            limits: new.limits.clone(),
        };
        let name = new.name.clone();
        let id = self
            .store
            .writer()
            .write(move |tx| -> Result<i64, ServiceError> {
                let created = apikeys::create(tx, &key, &actor, &sealer)?;
                if !table::set_account(tx, created.info.id, &hash, tps, window, &kinds)? {
                    return Err(name_taken(&name));
                }
                Ok(created.info.id)
            })
            .await?;
        let info = self.smpp_account(id).await?;
        Ok(CreatedSmppAccount { info, password })
    }

    /// Every SMPP account, newest first, revoked ones too (revoke one as any API key).
    pub async fn smpp_accounts(&self) -> Result<Vec<SmppAccountInfo>, ServiceError> {
        let rows = self.store.reader().read(table::accounts).await?;
        Ok(rows.into_iter().map(info).collect())
    }

    async fn smpp_account(&self, id: i64) -> Result<SmppAccountInfo, ServiceError> {
        self.smpp_accounts()
            .await?
            .into_iter()
            .find(|a| a.id == id)
            .ok_or_else(|| ServiceError::NotFound(format!("SMPP account {id}")))
    }

    /// Gives live account `id` a new password (audited); binds with the old one are refused from
    /// now on, sessions already bound go on.
    pub async fn reset_smpp_password(&self, caller: &Caller, id: i64) -> Result<CreatedSmppAccount, ServiceError> {
        let info = self.smpp_account(id).await?;
        if info.revoked_at_ms.is_some() {
            return Err(ServiceError::NotNow(format!("SMPP account {} is revoked", info.name)));
        }
        let password = new_password();
        let hash = self.hash_password(password.clone()).await?;
        let (actor, account) = (caller.actor(), info.clone());
        self.store
            .writer()
            .write(move |tx| -> Result<(), ServiceError> {
                table::set_account(tx, account.id, &hash, account.tps, account.window, &account.kinds)?;
                tx.audit().append(&crate::store::tables::NewAudit {
                    actor,
                    action: crate::audit::AuditAction::SmppPasswordReset,
                    subject_type: Some("api_key".into()),
                    subject_id: Some(account.id),
                    note: None,
                    details_json: Some(serde_json::json!({ "name": account.name }).to_string()),
                })?;
                Ok(())
            })
            .await?;
        Ok(CreatedSmppAccount { info, password })
    }

    async fn hash_password(&self, password: String) -> Result<String, ServiceError> {
        Ok(self.people.hash(password).await?)
    }

    /// Checks a bind's system_id and password from `address`, counted as the web sign-in's tries
    /// are (the same slow-down after failures, never a lockout).
    pub async fn smpp_bind(&self, system_id: &str, password: String, address: &str) -> Result<SmppBound, BindRefused> {
        let name = format!("smpp:{system_id}");
        let begun = self.begin_try(&name, address).map_err(|_| BindRefused::TryLater)?;
        let who = system_id.to_owned();
        let found = match self.store.reader().read(move |c| table::account(c, &who)).await {
            Ok(found) => found,
            Err(e) => {
                tracing::error!(error = %e, "an SMPP bind could not read its account");
                self.people.release(begun.0);
                return Err(BindRefused::TryLater);
            }
        };
        let stored = found.as_ref().map(|a| a.password_hash.clone());
        let right = self.check_password(begun, password, stored).await;
        match found {
            Some(a) if right => Ok(SmppBound {
                caller: Caller::Key {
                    id: a.key.id,
                    name: a.key.name,
                    scopes: a.key.scopes,
                    limits: a.key.limits,
                },
                tps: a.tps,
                window: a.window,
                kinds: a.kinds,
            }),
            _ => Err(BindRefused::WrongPassword),
        }
    }

    /// Hands in a message from an SMPP client, with the receipt it asked for: committed (with
    /// every check of the API's) before this returns its id.
    pub async fn smpp_submit(&self, caller: &Caller, req: SubmitMessage, receipt: u8) -> Result<i64, ServiceError> {
        let rules = self.live().rules;
        let mut new = intake::validate_with(
            &req,
            &Default::default(),
            IntakeChannel::Api,
            &rules,
            self.clock().now_ms(),
        )
        .map_err(ServiceError::Invalid)?;
        new.smpp_receipt = Some(receipt);
        let done = self
            .create(caller, "smpp", vec![new], None, |mut d| d.remove(0))
            .await?;
        Ok(done.value.id)
    }

    /// Cancels a message of the caller's own that has not been sent (cancel_sm; audited).
    pub async fn smpp_cancel(&self, caller: &Caller, id: i64) -> Result<(), ServiceError> {
        let note = "cancel_sm from its SMPP client".to_owned();
        let action = MessageAction {
            note,
            ..MessageAction::default()
        };
        self.cancel(caller, id, action).await
    }

    /// Records that a message from `caller` to `destination` was refused over SMPP because the
    /// number opted out (the audit keeps the reason and the number's last digits). A failure
    /// to record it is logged: the refusal stands.
    pub async fn smpp_refused(&self, caller: &Caller, destination: &str) {
        let (actor, key) = (caller.actor(), caller.api_key_id());
        let tail = smsdesk_core::redact::last_chars(destination, 4);
        let written = self
            .store
            .writer()
            .write(move |tx| {
                tx.audit().append(&crate::store::tables::NewAudit {
                    actor,
                    action: crate::audit::AuditAction::SmppSubmitRefused,
                    subject_type: Some("api_key".into()),
                    subject_id: key,
                    // The facts are in the details, which the audit log words in the reader's language.
                    note: None,
                    details_json: Some(serde_json::json!({ "reason": "opted_out", "number_ends": tail }).to_string()),
                })
            })
            .await;
        if let Err(e) = written {
            tracing::error!(error = %e, "an SMPP refusal could not be audited");
        }
    }

    /// The SMPP server's state for the dashboard.
    pub async fn smpp_server(&self) -> Result<SmppServerStatus, ServiceError> {
        let waiting = self.store.reader().read(table::waiting).await?;
        Ok(self.smpp_registry.status(waiting, self.clock().now_ms()))
    }

    /// The SMPP server's sessions, as the server records them and the dashboard reads them.
    pub fn smpp_registry(&self) -> std::sync::Arc<Registry> {
        self.smpp_registry.clone()
    }
}

fn info(r: table::SmppAccountRow) -> SmppAccountInfo {
    SmppAccountInfo {
        id: r.id,
        name: r.name,
        tps: r.tps,
        window: r.window,
        kinds: r.kinds,
        scopes: r.scopes,
        created_at_ms: r.created_at,
        created_by: r.created_by,
        revoked_at_ms: r.revoked_at,
    }
}

fn name_taken(name: &str) -> ServiceError {
    ServiceError::Invalid(vec![FieldError::new(
        "name",
        FieldCode::Conflict,
        format!("an SMPP account named {name} exists: revoke it first, or give its password anew"),
    )])
}

/// The account asked for, checked: its tps, window and kinds.
fn checked(new: &NewSmppAccount) -> Result<(u32, u32, Vec<MessageKind>), ServiceError> {
    let mut errors = Vec::new();
    let name = &new.name;
    let fits = (1..=15).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if !fits {
        errors.push(FieldError::new(
            "name",
            FieldCode::Invalid,
            "a system_id is 1 to 15 letters, digits, -, _ or . (SMPP's limit)".to_owned(),
        ));
    }
    let tps = new.tps.unwrap_or(DEFAULT_TPS);
    let window = new.window.unwrap_or(DEFAULT_WINDOW);
    for (field, value, max) in [("tps", tps, 10_000), ("window", window, 1_000)] {
        if value == 0 || value > max {
            errors.push(FieldError::new(
                field,
                FieldCode::OutOfRange,
                format!("{field} is 1 to {max}"),
            ));
        }
    }
    let mut kinds = new.kinds.clone().unwrap_or_else(|| vec![MessageKind::Transactional]);
    let mut seen = Vec::new();
    kinds.retain(|k| match seen.contains(k) {
        true => false,
        false => {
            seen.push(*k);
            true
        }
    });
    if kinds.is_empty() {
        errors.push(FieldError::new(
            "kinds",
            FieldCode::Required,
            "an account sends at least one kind".to_owned(),
        ));
    }
    let scopes = new.scopes.as_deref().unwrap_or(&Scope::DEFAULT);
    if !scopes.contains(&Scope::Send) {
        errors.push(FieldError::new(
            "scopes",
            FieldCode::Invalid,
            "an SMPP account hands in messages: its scopes include send".to_owned(),
        ));
    }
    match errors.is_empty() {
        true => Ok((tps, window, kinds)),
        false => Err(ServiceError::Invalid(errors)),
    }
}

/// Eight characters from 62 (about 47 bits): the most SMPP carries; the sign-in's slow-down
/// makes guessing them online hopeless.
fn new_password() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    let mut out = String::with_capacity(PASSWORD_CHARS);
    while out.len() < PASSWORD_CHARS {
        let mut byte = [0u8; 1];
        if getrandom::fill(&mut byte).is_err() {
            continue;
        }
        // Rejection sampling keeps every character equally likely.
        let limit = 256 - 256 % ALPHABET.len();
        if usize::from(byte[0]) < limit {
            out.push(ALPHABET[usize::from(byte[0]) % ALPHABET.len()] as char);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_is_eight_characters_that_read_unambiguously() {
        for _ in 0..100 {
            let p = new_password();
            assert_eq!(p.len(), PASSWORD_CHARS);
            assert!(
                p.bytes().all(|b| b.is_ascii_alphanumeric() && !b"0O1lI".contains(&b)),
                "{p}"
            );
        }
        assert_ne!(new_password(), new_password());
    }

    #[test]
    fn an_account_is_checked_before_anything_is_written() {
        let ok = NewSmppAccount {
            name: "pbx".into(),
            ..NewSmppAccount::default()
        };
        assert_eq!(checked(&ok).unwrap(), (10, 10, vec![MessageKind::Transactional]));
        for bad in [
            NewSmppAccount {
                name: "a name too long for smpp".into(),
                ..ok.clone()
            },
            NewSmppAccount {
                name: "has space".into(),
                ..ok.clone()
            },
            NewSmppAccount {
                tps: Some(0),
                ..ok.clone()
            },
            NewSmppAccount {
                kinds: Some(vec![]),
                ..ok.clone()
            },
            NewSmppAccount {
                scopes: Some(vec![Scope::ReadOwn]),
                ..ok.clone()
            },
        ] {
            assert!(checked(&bad).is_err(), "{bad:?}");
        }
    }
}
