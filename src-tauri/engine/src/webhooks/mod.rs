//! Outbound status webhooks: when a message handed in with an API key changes queue status or
//! computed state, the key's webhook URL receives a signed JSON POST, at least once.
//!
//! The store's triggers write a `webhook_delivery` row in the same transaction as the change it
//! announces, so no notification is lost to a crash. [`Webhooks`] is the background task that
//! sends them: it wakes on committed changes and on a timer, picks due deliveries on the reader,
//! POSTs a few at once without holding the writer, and records every try (`webhook_attempt`)
//! before settling the delivery: delivered on a 2xx answer, retried with exponential backoff
//! otherwise, failed after `max_attempts` tries or when the key was revoked or lost its URL.
//!
//! Guarantees a receiver can rely on:
//! - **At least once.** A delivery is settled only after its POST's outcome is known; one whose
//!   outcome was not recorded (a crash, a stop) is sent again. The `Smsdesk-Delivery` header is
//!   the same on every try of one delivery: receivers de-duplicate by it.
//! - **In order per message.** A message's next notification waits until the previous one was
//!   delivered or given up, so "delivered" never arrives before "accepted". Different messages
//!   are sent in parallel.
//! - **Signed.** `Smsdesk-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`;
//!   see [`verify`] for how a receiver checks it.
//! - **No redirects followed**: a 3xx answer is a failed try, so a moved endpoint is noticed.
//!
//! The signing secret, and the URL when it holds credentials, are kept sealed ([`target`]); what is
//! shown or recorded of the URL never holds credentials.

mod payload;
mod signature;
pub mod target;
mod worker;

#[cfg(test)]
mod tests;

use std::time::Duration;

pub(crate) use crate::store::tables::webhook as deliveries;
pub use crate::store::tables::webhook::deliveries_for_message;
pub use payload::{InboundPayload, WebhookPayload};
pub use signature::{sign, verify};
pub use smsdesk_core::domain::{WebhookField, WebhookStatus};
pub use smsdesk_core::webhook::{DeliveryAttemptView, DeliveryView};
pub use worker::Webhooks;

use crate::store::StoreError;

/// How webhooks are sent and retried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookConfig {
    /// Tries per delivery before it is given up (each one recorded).
    pub max_attempts: u32,
    /// How long one POST may take, answer included.
    pub timeout: Duration,
    /// The wait after the first failed try; it doubles with each further failure.
    pub base_delay: Duration,
    /// The longest wait between two tries.
    pub max_delay: Duration,
    /// The longest the sender sleeps without looking for due deliveries (it also wakes on every
    /// committed change and when the next retry is due); catches what no change announces, such as
    /// a revoked key.
    pub poll_every: Duration,
}

impl Default for WebhookConfig {
    fn default() -> Self {
        WebhookConfig {
            max_attempts: 12,
            timeout: Duration::from_secs(10),
            base_delay: Duration::from_secs(10),
            max_delay: Duration::from_secs(3_600),
            poll_every: Duration::from_secs(5),
        }
    }
}

impl From<&crate::config::WebhookSettings> for WebhookConfig {
    fn from(s: &crate::config::WebhookSettings) -> Self {
        WebhookConfig {
            max_attempts: s.max_attempts.0,
            timeout: Duration::from_secs(u64::from(s.timeout_seconds.0)),
            ..WebhookConfig::default()
        }
    }
}

impl WebhookConfig {
    /// The wait before the next try after `failed` failed tries (1 or more):
    /// `min(max_delay, base_delay * 2^(failed-1))`, spread by ±20 % with `jitter` in [0, 1).
    pub fn backoff(&self, failed: u32, jitter: f64) -> Duration {
        let doublings = failed.saturating_sub(1).min(63);
        let factor = 1u64 << doublings;
        let base = self.base_delay.as_millis().min(u128::from(u64::MAX)) as u64;
        let max = self.max_delay.as_millis().min(u128::from(u64::MAX)) as u64;
        let capped = base.saturating_mul(factor).min(max);
        let spread = 0.8 + 0.4 * jitter.clamp(0.0, 1.0);
        Duration::from_millis((capped as f64 * spread) as u64)
    }
}

/// What stops the webhook sender from working at all (a single try's failure is not an error:
/// it is recorded and retried).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WebhookError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot set up the HTTP client for webhooks: {0}")]
    Client(#[source] reqwest::Error),
}
