//! The rules a dispatcher sends by, per connection; replaced while it runs when settings change.

use std::sync::Arc;
use std::time::Duration;

use crate::command_status::ClassOverrides;
use crate::domain::MessageKind;
use crate::queue::SendPolicy;
use smsdesk_core::receipts::policy::ReceiptPolicy;
use smsdesk_core::retry::RetryPolicy;

#[derive(Debug, Clone)]
pub struct DispatcherConfig {
    /// Who holds the leases (one dispatcher per process).
    pub owner: String,
    pub lease: Duration,
    /// How long to wait before looking again when nothing is due.
    pub idle_poll: Duration,
    /// The sender id (alphanumeric) or number messages go out from.
    pub source_addr: String,
    /// Retry limits by message kind (otp, transactional, bulk).
    pub retry: [RetryPolicy; 3],
    /// Messages claimed in one transaction; each still waits for its own session permit.
    pub claim_batch: u32,
    /// Status codes classed otherwise than the documented defaults.
    pub classes: ClassOverrides,
    /// Per kind (otp, transactional, bulk): resend after an unknown outcome instead of holding
    /// the message for a person.
    pub resend_unknown: [bool; 3],
    /// Messages claimed and not yet finished at most (keep it near the session's window, so
    /// priorities still hold for what arrives meanwhile).
    pub max_in_flight: usize,
}

impl DispatcherConfig {
    pub(super) fn send_policy(&self, kind: MessageKind) -> SendPolicy<'_> {
        let k = kind.priority() as usize;
        SendPolicy {
            retry: &self.retry[k],
            classes: &self.classes,
            resend_unknown: self.resend_unknown[k],
        }
    }
}

impl Default for DispatcherConfig {
    fn default() -> Self {
        DispatcherConfig {
            owner: format!("dispatcher-{}", std::process::id()),
            lease: Duration::from_secs(120),
            idle_poll: Duration::from_millis(200),
            source_addr: "smsdesk".into(),
            claim_batch: 32,
            max_in_flight: 64,
            classes: ClassOverrides::default(),
            resend_unknown: [false; 3],
            retry: [
                RetryPolicy::default_for(MessageKind::Otp),
                RetryPolicy::default_for(MessageKind::Transactional),
                RetryPolicy::default_for(MessageKind::Bulk),
            ],
        }
    }
}

/// The rules a dispatcher sends by; replaced while it runs when settings change.
pub(super) type Rules = (Arc<ReceiptPolicy>, Arc<DispatcherConfig>);
