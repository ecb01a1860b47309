//! Domain vocabulary shared by the store, the rules and the UI.
//!
//! Each enum has a stable text form: it is what the database stores (and what its CHECK constraints
//! list), what the API speaks and what the UI receives. Renaming a variant's text is a migration.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A text value that is not one of an enum's stable forms.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{value}` is not a valid {what} (expected one of: {expected})")]
pub struct UnknownVariant {
    pub what: &'static str,
    pub value: String,
    pub expected: String,
}

/// An enum whose every value has a stable text form: what the database stores and the API speaks.
/// The store reads and writes these through this trait, so the text is spelled once, here.
pub trait TextForm: Copy + FromStr<Err = UnknownVariant> + 'static {
    /// The stable text form.
    fn text(self) -> &'static str;
}

macro_rules! text_enum {
    (
        $(#[$meta:meta])*
        $name:ident, $what:literal {
            $( $(#[$vmeta:meta])* $variant:ident = $text:tt ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS, utoipa::ToSchema)]
        pub enum $name {
            $( $(#[$vmeta])* #[serde(rename = $text)] $variant ),+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The stable text form stored in the database and spoken by the API.
            pub const fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = UnknownVariant;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($text => Ok($name::$variant),)+
                    _ => Err(UnknownVariant {
                        what: $what,
                        value: s.to_owned(),
                        expected: [$($text),+].join(", "),
                    }),
                }
            }
        }

        impl TextForm for $name {
            fn text(self) -> &'static str {
                self.as_str()
            }
        }
    };
}

text_enum! {
    /// What a message is for; it decides priority, retry policy and receipt requests.
    MessageKind, "message kind" {
        /// One-time code: sent first, short validity, at most two tries.
        Otp = "otp",
        /// Order updates, appointment reminders: one person, one event.
        Transactional = "transactional",
        /// Campaigns and announcements: sent last, throttled first.
        Bulk = "bulk",
    }
}

impl MessageKind {
    /// Claim order: lower goes first (otp, then transactional, then bulk).
    pub const fn priority(self) -> i64 {
        match self {
            MessageKind::Otp => 0,
            MessageKind::Transactional => 1,
            MessageKind::Bulk => 2,
        }
    }
}

text_enum! {
    /// Where a message stands in the local send queue (our side only; not what the network says).
    QueueStatus, "queue status" {
        /// Waiting for its turn (or for its scheduled time, or for a retry).
        Queued = "queued",
        /// Claimed by the dispatcher under a lease; a submit may be on the wire.
        Sending = "sending",
        /// The SMSC answered submit_sm with success. Not delivery.
        Accepted = "accepted",
        /// Given up: a permanent error, or retries exhausted; the reason is recorded.
        Failed = "failed",
        /// A submit was written but no answer came: it may or may not have been accepted.
        OutcomeUnknown = "outcome_unknown",
        /// Cancelled by an operator before it was accepted.
        Cancelled = "cancelled",
        /// Its validity ended before it could be sent; never sent late.
        Expired = "expired",
        /// Held for a person before it was sent: its number opted out after it was queued. An
        /// open exception says why; nothing sends it until someone decides.
        Held = "held",
    }
}

text_enum! {
    /// An operator's hold on a connection (none: it sends by the routes). Kept in the database,
    /// so it outlasts a restart, until the connection is enabled again.
    ConnectionHold, "connection hold" {
        /// Takes nothing new: its routes' messages go to their next connection at once; what it
        /// is sending finishes, what is pinned to it still goes out on it, and its binds stay
        /// open for receipts.
        Draining = "draining",
        /// Sends nothing and is unbound, once the sends under way had their answers; what is
        /// pinned to it waits for it.
        Disabled = "disabled",
    }
}

impl QueueStatus {
    /// True when the dispatcher will never touch the message again on its own.
    pub const fn is_terminal(self) -> bool {
        !matches!(self, QueueStatus::Queued | QueueStatus::Sending)
    }
}

text_enum! {
    /// The delivery state computed from receipts: what the network reported, never more.
    DeliveryState, "delivery state" {
        /// No receipt has been applied yet.
        Pending = "pending",
        /// The SMSC has it scheduled (SMPP 5.0 state 0).
        Scheduled = "scheduled",
        /// In transit (intermediate).
        Enroute = "enroute",
        /// Accepted by the SMSC: intermediate by default, final where a connection says so.
        Accepted = "accepted",
        /// The network reported delivery to the handset. Not proof that anyone read it.
        Delivered = "delivered",
        Expired = "expired",
        Deleted = "deleted",
        Undeliverable = "undeliverable",
        Rejected = "rejected",
        Unknown = "unknown",
        Skipped = "skipped",
        /// A message sent in parts: some parts reported delivered, others not (yet). Never a
        /// receipt's word: the rules roll it up from the parts.
        PartiallyDelivered = "partially_delivered",
    }
}

impl DeliveryState {
    /// Final states never move to another state because a later receipt arrived.
    /// `Accepted` is final only where a connection's setting says so; that rule lives with the
    /// projection, so here it counts as intermediate.
    pub const fn is_final(self) -> bool {
        matches!(
            self,
            DeliveryState::Delivered
                | DeliveryState::Expired
                | DeliveryState::Deleted
                | DeliveryState::Undeliverable
                | DeliveryState::Rejected
                | DeliveryState::Unknown
                | DeliveryState::Skipped
        )
    }
}

text_enum! {
    /// Why something landed in the exception queue.
    ExceptionKind, "exception kind" {
        /// Two incompatible final receipts for one message.
        ConflictingFinal = "conflicting_final",
        /// A receipt whose message id matches no message we sent.
        Uncorrelated = "uncorrelated",
        /// A receipt whose message id matches more than one message.
        Ambiguous = "ambiguous",
        /// A receipt nothing usable could be read from.
        Unparseable = "unparseable",
        /// A submit whose answer never came: it may or may not have gone out.
        OutcomeUnknown = "outcome_unknown",
        /// No final receipt by the configured deadline.
        NoReceipt = "no_receipt",
        /// Some parts of a long message were accepted and another cannot be sent.
        PartlySent = "partly_sent",
        /// A receipt for a known message whose status word nothing can read.
        StatusUnreadable = "status_unreadable",
        /// A queued message whose number opted out before it was sent: held, not sent.
        OptedOut = "opted_out",
        /// A one-time code held because codes to its country surged far above their usual
        /// hourly number (SMS pumping): a person releases or cancels it.
        UnusualVolume = "unusual_volume",
    }
}

text_enum! {
    /// Where an exception stands.
    ExceptionStatus, "exception status" {
        Open = "open",
        Resolved = "resolved",
        Dismissed = "dismissed",
    }
}

text_enum! {
    /// What one submit try came to.
    AttemptOutcome, "attempt outcome" {
        /// Written (or about to be); no answer yet.
        Pending = "pending",
        Accepted = "accepted",
        /// A temporary error: retried with backoff.
        Temporary = "temporary",
        /// ESME_RTHROTTLED: retried, and the rate is slowed.
        Throttled = "throttled",
        /// A permanent error: the message fails at once.
        Permanent = "permanent",
        /// No answer in time after the write: outcome unknown.
        Timeout = "timeout",
        /// The link dropped after the write: outcome unknown.
        LinkLost = "link_lost",
        /// Never written (the link closed first, or the validity ended): not a try.
        NotSent = "not_sent",
    }
}

text_enum! {
    /// How a receipt reached us.
    ReceiptSource, "receipt source" {
        SmppDeliverSm = "smpp_deliver_sm",
        SmppDataSm = "smpp_data_sm",
        Http = "http",
    }
}

text_enum! {
    /// What a received report is, as decided by esm_class and content.
    ReceiptKind, "receipt kind" {
        /// A delivery receipt carrying a final state.
        Receipt = "receipt",
        /// An intermediate notification (or a non-final state such as ENROUTE/ACCEPTD).
        Intermediate = "intermediate",
        /// An SME delivery or user acknowledgement.
        Acknowledgement = "acknowledgement",
        /// Not a report at all: an incoming (mobile-originated) message.
        Mo = "mo",
        /// Nothing usable could be read; kept with its parse error.
        Unparseable = "unparseable",
    }
}

text_enum! {
    /// Where a receipt's message id was read: each place may write ids in a format of its own.
    IdSource, "id source" {
        /// The receipted_message_id TLV.
        Tlv = "tlv",
        /// The receipt text (`id:...`).
        Text = "text",
        /// An HTTP provider's message id field.
        Http = "http",
    }
}

text_enum! {
    /// How the message entered the queue.
    IntakeChannel, "intake channel" {
        Api = "api",
        Csv = "csv",
        Compose = "compose",
        Cli = "cli",
    }
}

text_enum! {
    /// How a receipt's logical event was matched to a message.
    Correlation, "correlation" {
        /// Not tried yet.
        Pending = "pending",
        Matched = "matched",
        /// No message carries that provider id (yet).
        None = "none",
        Ambiguous = "ambiguous",
    }
}

text_enum! {
    /// What a webhook notification announces.
    WebhookField, "webhook field" {
        /// The local queue status changed.
        Status = "status",
        /// The state computed from receipts changed.
        State = "state",
        /// A reply from a handset arrived (its inbox message, not a message we sent).
        Inbound = "inbound",
    }
}

text_enum! {
    /// Where a webhook notification stands.
    WebhookStatus, "webhook status" {
        /// Not yet answered with a 2xx; will be tried (again).
        Pending = "pending",
        /// A try was answered with a 2xx.
        Delivered = "delivered",
        /// Given up: too many failed tries, or the key was revoked or lost its webhook URL.
        Failed = "failed",
    }
}

text_enum! {
    /// Something about a message (or one of its receipts) a person should see beside its state.
    Flag, "flag" {
        /// A report came after a final one (kept, changed nothing).
        Late = "late",
        /// Incompatible final reports: a person has to decide.
        Conflict = "conflict",
        /// No final report by the deadline.
        NoReceipt = "no_receipt",
        /// A report's destination or text differ from the message's (never used to match).
        Mismatch = "mismatch",
        /// A report's text id and its TLV id name different messages.
        IdDisagree = "id_disagree",
        /// A report arrived more than once.
        Repeat = "repeat",
        /// A try was written and its answer never came: held for a person.
        OutcomeUnknown = "outcome_unknown",
    }
}

text_enum! {
    /// The part a receipt or a try plays in an exception.
    EvidenceRole, "evidence role" {
        /// The receipt the exception is about.
        Receipt = "receipt",
        /// The final report the state rests on.
        MaterialisedFinal = "materialised_final",
        /// A final report that contradicts it.
        ConflictingFinal = "conflicting_final",
        /// A try whose provider id the receipt carries (one of several).
        Candidate = "candidate",
        /// A try that was written and never answered.
        Unanswered = "unanswered",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip<T>(all: &[T])
    where
        T: Copy + fmt::Display + FromStr + PartialEq + fmt::Debug,
        <T as FromStr>::Err: fmt::Debug,
    {
        for v in all {
            let text = v.to_string();
            assert_eq!(text.parse::<T>().unwrap(), *v, "text form must parse back to {v:?}");
            let json = serde_json::to_string(&text).unwrap();
            assert!(json.contains(&text));
        }
    }

    #[test]
    fn every_text_form_round_trips_and_is_unique() {
        roundtrip(MessageKind::ALL);
        roundtrip(QueueStatus::ALL);
        roundtrip(DeliveryState::ALL);
        roundtrip(ExceptionKind::ALL);
        roundtrip(ExceptionStatus::ALL);
        roundtrip(AttemptOutcome::ALL);
        roundtrip(ReceiptSource::ALL);
        roundtrip(ReceiptKind::ALL);
        roundtrip(IntakeChannel::ALL);
        roundtrip(Correlation::ALL);
        roundtrip(IdSource::ALL);
        roundtrip(WebhookField::ALL);
        roundtrip(WebhookStatus::ALL);
        roundtrip(Flag::ALL);
        roundtrip(EvidenceRole::ALL);
    }

    #[test]
    fn serde_speaks_the_database_text_form() {
        assert_eq!(
            serde_json::to_string(&QueueStatus::OutcomeUnknown).unwrap(),
            "\"outcome_unknown\""
        );
        assert_eq!(
            serde_json::from_str::<ExceptionKind>("\"conflicting_final\"").unwrap(),
            ExceptionKind::ConflictingFinal
        );
    }

    #[test]
    fn unknown_text_is_refused_with_the_allowed_forms() {
        let err = "sent".parse::<QueueStatus>().unwrap_err();
        assert_eq!(err.what, "queue status");
        assert!(err.to_string().contains("queued, sending, accepted"), "{err}");
    }

    #[test]
    fn only_network_finals_are_final() {
        assert!(DeliveryState::Delivered.is_final());
        assert!(
            !DeliveryState::Accepted.is_final(),
            "ACCEPTED is intermediate by default"
        );
        assert!(!DeliveryState::Enroute.is_final());
        assert!(!DeliveryState::Pending.is_final());
    }

    #[test]
    fn otp_goes_before_transactional_before_bulk() {
        assert!(MessageKind::Otp.priority() < MessageKind::Transactional.priority());
        assert!(MessageKind::Transactional.priority() < MessageKind::Bulk.priority());
    }
}
