//! Alerts on the webhooks of the API keys with the scope `alerts`: a signed JSON POST, like the
//! messages' status webhooks (`Smsdesk-Signature`, no redirect followed), with the alert's rule,
//! subject, facts and the same words as the e-mail.

use std::time::Duration;

use serde::Serialize;

use super::words::Rendered;
use crate::access::Scope;
use crate::sealed::Sealer;
use crate::store::{tables::api_key, Reads, StoreError};
use crate::webhooks::{sign, target};

/// The body of an alert's POST.
#[derive(Debug, Clone, Serialize)]
pub struct AlertPayload<'a> {
    /// "alert".
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// fired, repeated, resolved or test.
    pub event: &'a str,
    /// The alert's id (none for a test).
    pub alert_id: Option<i64>,
    pub rule: Option<&'a str>,
    pub subject: Option<&'a str>,
    pub facts: Option<&'a serde_json::Value>,
    /// When it fired, RFC 3339 in UTC.
    pub fired_at: Option<String>,
    pub title: &'a str,
    pub text: &'a str,
}

/// An API key that takes alerts on its webhook.
#[derive(Debug, Clone)]
pub struct AlertHook {
    pub key_name: String,
    pub shown_url: String,
    pub sealed: String,
}

/// The keys, not revoked, with the scope `alerts` and a webhook.
pub fn hooks(conn: &impl Reads) -> Result<Vec<AlertHook>, StoreError> {
    Ok(api_key::with_webhook(conn)?
        .into_iter()
        .filter(|k| Scope::split(&k.scopes).contains(&Scope::Alerts))
        .map(|k| AlertHook {
            key_name: k.name,
            shown_url: k.url,
            sealed: k.secret,
        })
        .collect())
}

/// Posts `payload` to every hook: the names of the keys that took it, or what failed (each
/// key's failure named; the others went).
pub async fn post_all(
    hooks: &[AlertHook],
    sealer: &Sealer,
    delivery: &str,
    payload: &AlertPayload<'_>,
    now_ms: i64,
    timeout: Duration,
) -> Result<String, String> {
    let body = serde_json::to_vec(payload).map_err(|e| e.to_string())?;
    let client = reqwest::Client::builder()
        .user_agent(format!("smsdesk/{}", crate::VERSION))
        .timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| e.to_string())?;
    let (mut took, mut failed) = (Vec::new(), Vec::new());
    for h in hooks {
        let (url, secret) = match target::open(sealer, &h.shown_url, &h.sealed) {
            Ok(opened) => opened,
            Err(e) => {
                failed.push(format!("{}: {e}", h.key_name));
                continue;
            }
        };
        let sent = client
            .post(&url)
            .header("Content-Type", "application/json")
            .header("Smsdesk-Delivery", delivery)
            .header("Smsdesk-Signature", sign(&secret, now_ms.div_euclid(1_000), &body))
            .body(body.clone())
            .send()
            .await;
        match sent {
            Ok(r) if r.status().is_success() => took.push(h.key_name.clone()),
            Ok(r) => failed.push(format!("{}: HTTP {}", h.key_name, r.status().as_u16())),
            Err(e) => failed.push(format!("{}: {}", h.key_name, e.without_url())),
        }
    }
    if failed.is_empty() {
        Ok(took.join(", "))
    } else {
        Err(failed.join("; "))
    }
}

impl<'a> AlertPayload<'a> {
    /// A test's body.
    pub fn test(mail: &'a Rendered) -> AlertPayload<'a> {
        AlertPayload {
            kind: "alert",
            event: "test",
            alert_id: None,
            rule: None,
            subject: None,
            facts: None,
            fired_at: None,
            title: &mail.subject,
            text: &mail.body,
        }
    }
}
