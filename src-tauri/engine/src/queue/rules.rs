//! The rules a retry of a message meets, found once by [`checks`]: the operator's retry refuses
//! with the first one not confirmed away, and the message's detail shows them all before anyone
//! writes a note ([`advice`]), so what the screen warns of is what the retry would answer.

use crate::domain::{DeliveryState, MessageKind, QueueStatus};
use crate::reasons::{RetryAdvice, RetryFact, RetryFactCode as Fact};
use crate::store::tables::{attempt, message, projection, queue};
use crate::store::{Reads, StoreError};
use smsdesk_core::retry::RetryPolicy;

/// Why sending a message again may deliver it twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DuplicateRisk {
    /// The SMSC accepted a try of it (some part of it, for a long message).
    Accepted,
    /// A try was written and its answer never came.
    OutcomeUnknown,
    /// A receipt for it was received: the network had it.
    Receipt,
    /// The network reported it rejected or undeliverable (the state): a retry is a second
    /// message, which will most likely be refused the same way.
    Rejected(DeliveryState),
}

impl std::fmt::Display for DuplicateRisk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DuplicateRisk::Accepted => f.write_str("the SMSC accepted a try of this message"),
            DuplicateRisk::OutcomeUnknown => f.write_str("a try of this message was written and its answer never came"),
            DuplicateRisk::Receipt => f.write_str("a receipt for this message was received"),
            DuplicateRisk::Rejected(state) => write!(f, "the network reported this message {state}"),
        }
    }
}

/// Whether sending the message again may deliver it twice, and why: the evidence that what a
/// retry would send (the whole message once it was accepted whole, else the parts not accepted)
/// may have reached the network already. A message the network reported rejected or undeliverable
/// says so first: that is what a retry must be weighed against.
pub fn duplicate_risk(conn: &impl Reads, message_id: i64) -> Result<Option<DuplicateRisk>, StoreError> {
    let row = queue::duplicate_evidence(conn, message_id)?;
    let risk = match row {
        Some((_, _, true)) => Some(DuplicateRisk::Receipt),
        Some((true, _, _)) => Some(DuplicateRisk::Accepted),
        Some((_, true, _)) => Some(DuplicateRisk::OutcomeUnknown),
        _ => None,
    };
    if risk == Some(DuplicateRisk::Receipt) {
        if let Some(state @ (DeliveryState::Rejected | DeliveryState::Undeliverable)) =
            projection::state(conn, message_id)?
        {
            return Ok(Some(DuplicateRisk::Rejected(state)));
        }
    }
    Ok(risk)
}

/// What a manual retry must respect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryLimits {
    /// Each kind's limits on tries and age (otp, transactional, bulk), as the dispatcher has them.
    Obey([RetryPolicy; 3]),
    /// An admin's override (audited with its note): the limits do not apply; the message's own
    /// validity still does.
    Override,
}

impl RetryLimits {
    /// Each kind's documented limits (otp, transactional, bulk).
    pub const DEFAULT_POLICIES: [RetryPolicy; 3] = [
        RetryPolicy::default_for(MessageKind::Otp),
        RetryPolicy::default_for(MessageKind::Transactional),
        RetryPolicy::default_for(MessageKind::Bulk),
    ];

    /// The documented limits of each kind.
    pub const fn defaults() -> RetryLimits {
        RetryLimits::Obey(Self::DEFAULT_POLICIES)
    }
}

fn policy(policies: &[RetryPolicy; 3], kind: MessageKind) -> &RetryPolicy {
    match kind {
        MessageKind::Otp => &policies[0],
        MessageKind::Transactional => &policies[1],
        MessageKind::Bulk => &policies[2],
    }
}

/// A kind's limit a retry would go past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitHit {
    /// Tried `tries` times; its kind allows `max` in all.
    Tries { kind: MessageKind, tries: u32, max: u32 },
    /// `age_minutes` old; its kind is not sent later than `max_minutes` after it was created.
    Age {
        kind: MessageKind,
        age_minutes: i64,
        max_minutes: u64,
    },
}

/// One rule a retry of a message meets now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetryCheck {
    /// Queued or being sent already: nothing to retry.
    InFlight(QueueStatus),
    /// Its validity ended: never sent late.
    ValidityEnded,
    /// Its number (this one) is on the opt-out list for its kind.
    OptedOut(String),
    /// Past its kind's limit: an admin may override it with a note.
    Limit(LimitHit),
    /// It may arrive twice (or the network refused it): needs a confirmation.
    Duplicate(DuplicateRisk),
    /// Its last try was refused for good by the SMSC (status name, meaning): needs a
    /// confirmation, where the caller's retry asks for one.
    Permanent { status: String, meaning: String },
}

impl RetryCheck {
    /// Whether no confirmation or note overcomes it (the tries limit aside, which an admin may).
    fn blocks(&self) -> bool {
        matches!(
            self,
            RetryCheck::InFlight(_) | RetryCheck::ValidityEnded | RetryCheck::OptedOut(_)
        )
    }

    /// The fact the screens word for it.
    fn fact(&self) -> RetryFact {
        match self {
            RetryCheck::InFlight(status) => RetryFact::new(Fact::InFlight).with("status", status),
            RetryCheck::ValidityEnded => RetryFact::new(Fact::Expired),
            RetryCheck::OptedOut(phone) => RetryFact::new(Fact::OptedOut).with("phone", phone),
            RetryCheck::Limit(LimitHit::Tries { kind, tries, max }) => RetryFact::new(Fact::LimitReached)
                .with("limit", "tries")
                .with("kind", kind)
                .with("tries", tries)
                .with("max", max),
            RetryCheck::Limit(LimitHit::Age {
                kind,
                age_minutes,
                max_minutes,
            }) => RetryFact::new(Fact::LimitReached)
                .with("limit", "age")
                .with("kind", kind)
                .with("age_minutes", age_minutes)
                .with("max_minutes", max_minutes),
            RetryCheck::Duplicate(DuplicateRisk::Rejected(state)) => {
                RetryFact::new(Fact::RejectedByNetwork).with("state", state)
            }
            RetryCheck::Duplicate(risk) => RetryFact::new(Fact::MayArriveTwice).with(
                "risk",
                match risk {
                    DuplicateRisk::Accepted => "accepted",
                    DuplicateRisk::OutcomeUnknown => "outcome_unknown",
                    _ => "receipt",
                },
            ),
            RetryCheck::Permanent { status, .. } => RetryFact::new(Fact::WillFailAgain).with("status", status),
        }
    }
}

/// Every rule a retry of the message would meet at `now`, in the order the retry applies them:
/// first those no confirmation overcomes (in the queue already, validity ended, opted out), then
/// the kind's limit (`policies`), then what needs confirming (may arrive twice; refused for good,
/// when `permanent` asks for that rule). `None` when there is no such message.
pub fn checks(
    conn: &impl Reads,
    message_id: i64,
    now: i64,
    policies: &[RetryPolicy; 3],
    permanent: bool,
) -> Result<Option<Vec<RetryCheck>>, StoreError> {
    let Some(current) = queue::status(conn, message_id)? else {
        return Ok(None);
    };
    let Some((phone, kind)) = message::destination_and_kind(conn, message_id)? else {
        return Ok(None);
    };
    let mut found = Vec::new();
    if matches!(current, QueueStatus::Queued | QueueStatus::Sending) {
        found.push(RetryCheck::InFlight(current));
    }
    if queue::expires_at(conn, message_id)?.is_some_and(|v| v <= now) {
        found.push(RetryCheck::ValidityEnded);
    }
    if crate::optouts::blocks(conn, &phone, kind)?.is_some() {
        found.push(RetryCheck::OptedOut(phone));
    }
    if let Some((kind, created_at, tries)) = attempt::retry_facts(conn, message_id)? {
        let p = policy(policies, kind);
        let age = now - created_at;
        if tries >= p.max_attempts {
            found.push(RetryCheck::Limit(LimitHit::Tries {
                kind,
                tries,
                max: p.max_attempts,
            }));
        } else if age >= p.max_age_ms as i64 {
            found.push(RetryCheck::Limit(LimitHit::Age {
                kind,
                age_minutes: age / 60_000,
                max_minutes: p.max_age_ms / 60_000,
            }));
        }
    }
    if let Some(risk) = duplicate_risk(conn, message_id)? {
        found.push(RetryCheck::Duplicate(risk));
    }
    if permanent {
        if let Some(code) = attempt::permanent_failure(conn, message_id)? {
            let (status, meaning) = match code {
                Some(code) => {
                    let info = crate::command_status::describe(code);
                    (info.name.to_owned(), info.meaning.to_owned())
                }
                None => ("an unnamed status".to_owned(), "refused for good".to_owned()),
            };
            found.push(RetryCheck::Permanent { status, meaning });
        }
    }
    Ok(Some(found))
}

/// Who asks for advice on a retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Asker {
    /// May act on messages at all (a viewer may not).
    pub may_act: bool,
    /// May override a kind's limits with a note.
    pub admin: bool,
}

/// What the operator's retry (`POST /messages/{id}/retry`) would meet for `asker`, from the same
/// [`checks`]: the rules no note overcomes (the kind's limit, too, for someone who may not
/// override it) are `blocked`, the others are to `confirm`. A caller who may not act on messages
/// is told so alone.
pub fn advice(
    conn: &impl Reads,
    message_id: i64,
    now: i64,
    policies: &[RetryPolicy; 3],
    asker: Asker,
) -> Result<RetryAdvice, StoreError> {
    let mut advice = RetryAdvice::default();
    if !asker.may_act {
        advice.blocked.push(RetryFact::new(Fact::NotAllowed));
        return Ok(advice);
    }
    for check in checks(conn, message_id, now, policies, true)?.unwrap_or_default() {
        let blocked = check.blocks() || (matches!(check, RetryCheck::Limit(_)) && !asker.admin);
        match blocked {
            true => advice.blocked.push(check.fact()),
            false => advice.confirm.push(check.fact()),
        }
    }
    Ok(advice)
}
