//! API keys: what integrations (a website, a CRM, a second operator's browser) present to the HTTP
//! API, and the operator token the command line uses to talk to a running instance.
//!
//! A key is 32 random bytes, shown once when created (`sdk_` + 64 hex digits). Only its SHA-256 is
//! stored: a copy of the database does not hold usable keys. Keys are random, not chosen by
//! people, so a plain hash is enough (no slow password hashing is needed against guessing).

use crate::store::Connection;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

pub use crate::access::Caller;
pub use smsdesk_core::api_key::ApiKeyInfo;

use crate::access::{KeyLimits, Scope};
use crate::audit::AuditAction;
use crate::sealed::Sealer;
use crate::store::tables::{api_key, NewAudit};
use crate::store::{StoreError, WriteTx};
use crate::tokens::{hash, random_secret};
use crate::webhooks::target;
use smsdesk_core::redact::redact_url;

/// What every key starts with, so a key found in a log or a file is recognisable.
pub const KEY_PREFIX: &str = "sdk_";
/// How many characters of a key lists show.
const SHOWN: usize = 12;

/// A new key: the only time the key (and its webhook secret) can be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct CreatedApiKey {
    pub info: ApiKeyInfo,
    /// Give this to the integration; it is not stored and cannot be shown again.
    pub key: String,
    /// Signs the status webhooks, when a webhook URL was given.
    pub webhook_secret: Option<String>,
}

/// What a new key needs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewApiKey {
    /// Who it is for ("website", "crm").
    pub name: String,
    /// Where to POST status changes of the messages sent with it (http or https).
    #[serde(default)]
    pub webhook_url: Option<String>,
    /// What it may do: `send` and `read:own` when not given.
    #[serde(default)]
    pub scopes: Option<Vec<Scope>>,
    /// Limits on what it hands in (none when not given).
    #[serde(default)]
    pub limits: KeyLimits,
}

#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("a key needs a name (who it is for): at most 100 characters, no control characters")]
    BadName,
    #[error("webhook URL `{0}` is not an http:// or https:// address")]
    BadWebhook(String),
    #[error("a key needs at least one scope (send, read:own, read:all, act, export, alerts, metrics)")]
    NoScope,
    #[error("destination prefix `{0}` is not the start of an international number (`+` and 1 to 15 digits)")]
    BadPrefix(String),
    #[error("a limit per minute or per day is at least 1")]
    BadLimit,
    #[error("`{0}` is not a country code (two letters of ISO 3166, such as FR)")]
    BadCountry(String),
    #[error("spend limit `{0}` is not an amount above 0, such as 5.00")]
    BadAmount(String),
    #[error("API key {0} does not exist")]
    NotFound(i64),
    #[error("API key {0} is already revoked")]
    AlreadyRevoked(i64),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The scopes and limits asked for, checked: the default scopes when none were given.
fn checked_access(new: &NewApiKey) -> Result<(Vec<Scope>, KeyLimits), KeyError> {
    let scopes = Scope::split(&Scope::join(new.scopes.as_deref().unwrap_or(&Scope::DEFAULT)));
    if scopes.is_empty() {
        return Err(KeyError::NoScope);
    }
    let mut limits = new.limits.clone();
    if limits.per_minute == Some(0) || limits.per_day == Some(0) {
        return Err(KeyError::BadLimit);
    }
    for p in limits.destination_prefixes.iter_mut() {
        let t: String = p.chars().filter(|c| !matches!(c, ' ' | '-' | '.')).collect();
        let digits = t.strip_prefix('+').unwrap_or("");
        if digits.is_empty() || digits.len() > 15 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(KeyError::BadPrefix(p.clone()));
        }
        *p = t;
    }
    limits.destination_prefixes.sort();
    limits.destination_prefixes.dedup();
    for list in [&mut limits.countries, &mut limits.otp_countries] {
        for c in list.iter_mut() {
            *c = smsdesk_core::config::Countries::read_code(c)
                .ok()
                .filter(|c| c != smsdesk_core::config::ANY_COUNTRY)
                .ok_or_else(|| KeyError::BadCountry(c.clone()))?;
        }
        list.sort();
        list.dedup();
    }
    for amount in [&mut limits.spend_day, &mut limits.spend_month] {
        if let Some(a) = amount.as_mut() {
            let money = smsdesk_core::config::Money::parse(a).ok().filter(|m| m.0 > 0);
            *a = money.ok_or_else(|| KeyError::BadAmount(a.clone()))?.text();
        }
    }
    Ok((scopes, limits))
}

fn validate(new: &NewApiKey) -> Result<(String, Option<String>), KeyError> {
    let name = new.name.trim();
    if name.is_empty() || name.chars().count() > 100 || name.chars().any(char::is_control) {
        return Err(KeyError::BadName);
    }
    let webhook = match new.webhook_url.as_deref().map(str::trim).filter(|u| !u.is_empty()) {
        None => None,
        Some(u) => {
            let ok = reqwest::Url::parse(u)
                .map(|p| matches!(p.scheme(), "http" | "https") && p.host_str().is_some())
                .unwrap_or(false);
            if !ok {
                return Err(KeyError::BadWebhook(redact_url(u).into_owned()));
            }
            Some(u.to_owned())
        }
    };
    Ok((name.to_owned(), webhook))
}

/// Creates a key (audited). The key in the answer is not stored anywhere; its webhook secret is
/// stored sealed by `sealer`, and its webhook URL shown everywhere without credentials.
pub fn create(tx: &mut WriteTx<'_>, new: &NewApiKey, actor: &str, sealer: &Sealer) -> Result<CreatedApiKey, KeyError> {
    let (name, webhook) = validate(new)?;
    let (scopes, limits) = checked_access(new)?;
    let key = random_secret(KEY_PREFIX);
    let webhook_secret = webhook.as_ref().map(|_| random_secret("whsec_"));
    let stored = webhook
        .as_deref()
        .zip(webhook_secret.as_deref())
        .map(|(url, secret)| target::seal(sealer, url, secret));
    let webhook_url = stored.as_ref().map(|s| s.shown_url.clone());
    let now = tx.now_ms();
    let prefix: String = key.chars().take(SHOWN).collect();
    let id = api_key::insert(
        tx,
        &api_key::NewKey {
            name: &name,
            prefix: &prefix,
            hash: &hash(&key),
            created_by: actor,
            webhook_url: webhook_url.as_deref(),
            webhook_secret: stored.as_ref().map(|s| s.sealed.as_str()),
            scopes: &scopes,
            limits: &limits,
        },
    )?;
    tx.audit().append(&NewAudit {
        actor: actor.into(),
        action: AuditAction::ApiKeyCreate,
        subject_type: Some("api_key".into()),
        subject_id: Some(id),
        note: None,
        details_json: Some(
            serde_json::json!({
                "name": name, "prefix": prefix, "scopes": Scope::join(&scopes), "webhook_url": webhook_url,
            })
            .to_string(),
        ),
    })?;
    Ok(CreatedApiKey {
        info: ApiKeyInfo {
            id,
            name,
            prefix,
            created_at_ms: now,
            created_by: actor.into(),
            revoked_at_ms: None,
            webhook_url,
            scopes,
            limits,
        },
        key,
        webhook_secret,
    })
}

/// Revokes a key at once (audited): every later request with it is refused.
pub fn revoke(tx: &mut WriteTx<'_>, id: i64, actor: &str) -> Result<(), KeyError> {
    match api_key::revoked_at(tx, id)? {
        None => return Err(KeyError::NotFound(id)),
        Some(Some(_)) => return Err(KeyError::AlreadyRevoked(id)),
        Some(None) => api_key::revoke(tx, id, actor)?,
    }
    tx.audit().append(&NewAudit {
        actor: actor.into(),
        action: AuditAction::ApiKeyRevoke,
        subject_type: Some("api_key".into()),
        subject_id: Some(id),
        note: None,
        details_json: None,
    })?;
    Ok(())
}

/// Every key, newest first.
pub fn list(conn: &Connection) -> Result<Vec<ApiKeyInfo>, StoreError> {
    api_key::list(conn)
}

/// The stored form of a presented key, when it has the form of one.
pub fn presented_hash(key: &str) -> Option<String> {
    key.starts_with(KEY_PREFIX).then(|| hash(key))
}

/// The caller a presented key stands for: `None` when it is unknown or revoked.
pub fn verify(conn: &Connection, key: &str) -> Result<Option<Caller>, StoreError> {
    match presented_hash(key) {
        Some(hash) => verify_hash(conn, &hash),
        None => Ok(None),
    }
}

/// The caller the key stored as `hash` stands for: `None` when it is unknown or revoked.
pub fn verify_hash(conn: &Connection, hash: &str) -> Result<Option<Caller>, StoreError> {
    Ok(api_key::active(conn, hash)?.map(|k| Caller::Key {
        id: k.id,
        name: k.name,
        scopes: k.scopes,
        limits: k.limits,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("k.db")).unwrap();
        (dir, store)
    }

    fn sealer(dir: &tempfile::TempDir) -> Sealer {
        Sealer::for_data_dir(dir.path()).unwrap()
    }

    #[test]
    fn a_created_key_verifies_until_it_is_revoked_and_only_its_hash_is_stored() {
        let (d, store) = store();
        let sealer = sealer(&d);
        let created = store
            .writer()
            .write_blocking(move |tx| {
                create(
                    tx,
                    &NewApiKey {
                        name: "crm".into(),
                        webhook_url: Some("https://crm.example/hook".into()),
                        ..NewApiKey::default()
                    },
                    "operator",
                    &sealer,
                )
            })
            .unwrap();
        assert!(created.key.starts_with(KEY_PREFIX) && created.key.len() == 4 + 64);
        assert!(created.webhook_secret.as_deref().unwrap().starts_with("whsec_"));
        let key = created.key.clone();
        let who = store.reader().read_blocking(move |c| verify(c, &key)).unwrap();
        assert_eq!(who, Some(Caller::key(created.info.id, "crm", &Scope::DEFAULT)));
        assert_eq!(
            created.info.scopes,
            Scope::DEFAULT,
            "a key asked for without scopes gets send and read:own"
        );
        let stored: Vec<String> = store
            .reader()
            .read_blocking(|c| {
                c.prepare("SELECT name || prefix || hash || created_by FROM api_key")?
                    .query_map([], |r| r.get(0))?
                    .collect::<Result<Vec<String>, _>>()
                    .map_err(StoreError::from)
            })
            .unwrap();
        assert!(!stored[0].contains(&created.key), "the key itself is not stored");

        let id = created.info.id;
        store
            .writer()
            .write_blocking(move |tx| revoke(tx, id, "operator"))
            .unwrap();
        let key = created.key.clone();
        assert_eq!(store.reader().read_blocking(move |c| verify(c, &key)).unwrap(), None);
        let again = store.writer().write_blocking(move |tx| revoke(tx, id, "operator"));
        assert!(matches!(again, Err(KeyError::AlreadyRevoked(_))));
        let listed = store.reader().read_blocking(list).unwrap();
        assert!(listed[0].revoked_at_ms.is_some());
    }

    #[test]
    fn unknown_and_malformed_keys_are_refused() {
        let (_d, store) = store();
        for k in ["", "sdk_", "sdk_00", "Bearer x", &random_secret(KEY_PREFIX)] {
            let k = k.to_owned();
            assert_eq!(store.reader().read_blocking(move |c| verify(c, &k)).unwrap(), None);
        }
    }

    #[test]
    fn bad_names_and_webhooks_are_refused_and_nothing_is_written() {
        let (d, store) = store();
        let sealer = sealer(&d);
        for (name, hook) in [
            ("", None),
            ("  ", None),
            ("crm", Some("ftp://x")),
            ("crm", Some("not a url")),
        ] {
            let new = NewApiKey {
                name: name.into(),
                webhook_url: hook.map(Into::into),
                ..NewApiKey::default()
            };
            let sealer = sealer.clone();
            assert!(store
                .writer()
                .write_blocking(move |tx| create(tx, &new, "operator", &sealer))
                .is_err());
        }
        assert!(store.reader().read_blocking(list).unwrap().is_empty());
    }

    #[test]
    fn scopes_and_limits_are_kept_as_asked_and_bad_ones_refused() {
        let (d, store) = store();
        let sealer = sealer(&d);
        let new = NewApiKey {
            name: "backoffice".into(),
            scopes: Some(vec![Scope::Export, Scope::ReadAll, Scope::ReadAll]),
            limits: KeyLimits {
                per_minute: Some(60),
                per_day: None,
                destination_prefixes: vec!["+33 6".into(), "+44".into()],
                countries: vec!["fr".into(), "BE".into(), "FR".into()],
                spend_day: Some("5".into()),
                ..KeyLimits::default()
            },
            ..NewApiKey::default()
        };
        let created = store
            .writer()
            .write_blocking({
                let sealer = sealer.clone();
                move |tx| create(tx, &new, "marie", &sealer)
            })
            .unwrap();
        assert_eq!(created.info.scopes, vec![Scope::ReadAll, Scope::Export]);
        assert_eq!(created.info.limits.destination_prefixes, vec!["+336", "+44"]);
        let key = created.key.clone();
        match store.reader().read_blocking(move |c| verify(c, &key)).unwrap() {
            Some(Caller::Key { scopes, limits, .. }) => {
                assert_eq!(scopes, created.info.scopes);
                assert_eq!(limits, created.info.limits);
            }
            other => panic!("the key must verify with its scopes: {other:?}"),
        }
        for bad in [
            NewApiKey {
                scopes: Some(vec![]),
                ..NewApiKey::default()
            },
            NewApiKey {
                limits: KeyLimits {
                    per_day: Some(0),
                    ..KeyLimits::default()
                },
                ..NewApiKey::default()
            },
            NewApiKey {
                limits: KeyLimits {
                    destination_prefixes: vec!["33".into()],
                    ..KeyLimits::default()
                },
                ..NewApiKey::default()
            },
        ] {
            let bad = NewApiKey {
                name: "x".into(),
                ..bad
            };
            let sealer = sealer.clone();
            assert!(store
                .writer()
                .write_blocking(move |tx| create(tx, &bad, "marie", &sealer))
                .is_err());
        }
    }
}
