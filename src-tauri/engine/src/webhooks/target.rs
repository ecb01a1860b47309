//! A key's webhook as the database keeps it: in `api_key.webhook_url` the URL as it may be shown
//! (its credentials taken out by [`redact_url`]), and in `api_key.webhook_secret`, sealed, the
//! signing secret, with the full URL when that one holds credentials. Delivery opens both; every
//! list, audit entry, recorded try and log line has the shown URL only.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use smsdesk_core::redact::{has_credentials, redact_url};

use crate::sealed::{is_sealed, SealError, Sealer};
use crate::store::tables::api_key;
use crate::store::{Store, StoreError};

/// What is sealed.
#[derive(Serialize, Deserialize)]
struct Sealed {
    secret: String,
    /// The URL to deliver to, when it differs from the shown one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    url: Option<String>,
}

/// A webhook as it is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredWebhook {
    /// `api_key.webhook_url`: fit to show.
    pub shown_url: String,
    /// `api_key.webhook_secret`: the secret (and the full URL when it holds credentials), sealed.
    pub sealed: String,
}

/// The stored form of a webhook to `url` signed with `secret`.
pub fn seal(sealer: &Sealer, url: &str, secret: &str) -> StoredWebhook {
    let sealed = Sealed {
        secret: secret.to_owned(),
        url: has_credentials(url).then(|| url.to_owned()),
    };
    StoredWebhook {
        shown_url: redact_url(url).into_owned(),
        sealed: sealer.seal(&serde_json::to_string(&sealed).expect("two texts serialise")),
    }
}

/// The URL to deliver to and the secret to sign with, from the stored form.
pub fn open(sealer: &Sealer, shown_url: &str, sealed: &str) -> Result<(String, String), SealError> {
    let s: Sealed = serde_json::from_str(&sealer.open(sealed)?).map_err(|_| SealError::Unreadable)?;
    Ok((s.url.unwrap_or_else(|| shown_url.to_owned()), s.secret))
}

/// What [`seal_at_rest`] changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SealedAtRest {
    /// Keys whose webhook secret (and URL credentials) an earlier version stored in clear.
    pub keys: usize,
    /// Recorded webhook tries whose URL showed credentials.
    pub tries: usize,
}

/// Seals the webhook secrets an earlier version stored in clear (taking the credentials out of
/// their shown URL), and takes credentials out of the URLs of recorded tries; at start, before
/// any webhook is sent. The clear values are overwritten, not merely replaced.
pub async fn seal_at_rest(store: &Arc<Store>, sealer: &Sealer) -> Result<SealedAtRest, StoreError> {
    let sealer = sealer.clone();
    let done = store
        .writer()
        .write(move |tx| {
            let clear: Vec<_> = api_key::webhooks(&*tx)?
                .into_iter()
                .filter(|w| !is_sealed(&w.secret))
                .collect();
            for w in &clear {
                let stored = seal(&sealer, &w.url, &w.secret);
                api_key::set_webhook(tx, w.id, &stored.shown_url, &stored.sealed)?;
            }
            let tries = crate::store::tables::webhook::redact_attempt_urls(tx)?;
            Ok::<_, StoreError>(SealedAtRest {
                keys: clear.len(),
                tries,
            })
        })
        .await?;
    if done.keys > 0 || done.tries > 0 {
        // The overwritten pages reach the database file, and the WAL keeps no older copy.
        let store = store.clone();
        if !tokio::task::spawn_blocking(move || store.checkpoint_truncate())
            .await
            .map_err(|_| StoreError::Aborted)??
        {
            tracing::warn!("the database was busy: the clear values stay in its WAL until the next checkpoint");
        }
        tracing::warn!(
            keys = done.keys,
            tries = done.tries,
            "webhook secrets stored in clear by an earlier version are now sealed with secret.key, and credentials are taken out of the webhook URLs shown"
        );
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shown_url_has_no_credentials_and_delivery_gets_them_back() {
        let dir = tempfile::tempdir().unwrap();
        let sealer = Sealer::for_data_dir(dir.path()).unwrap();
        let url = "https://crm:hunter2@crm.example/hook?token=t0k&x=1";
        let stored = seal(&sealer, url, "whsec_1");
        assert_eq!(stored.shown_url, "https://crm:***@crm.example/hook?token=***&x=1");
        assert!(!stored.sealed.contains("hunter2") && !stored.sealed.contains("whsec_1"));
        assert_eq!(
            open(&sealer, &stored.shown_url, &stored.sealed).unwrap(),
            (url.to_owned(), "whsec_1".to_owned())
        );
        let plain = seal(&sealer, "https://crm.example/hook", "whsec_2");
        assert_eq!(plain.shown_url, "https://crm.example/hook");
        assert_eq!(
            open(&sealer, "https://crm.example/moved", &plain.sealed).unwrap(),
            ("https://crm.example/moved".to_owned(), "whsec_2".to_owned()),
            "a URL without credentials is delivered to as stored"
        );
        assert_eq!(
            open(&sealer, "https://crm.example/hook", "whsec_2"),
            Err(SealError::NotSealed),
            "a secret in clear is never used as it stands"
        );
    }
}
