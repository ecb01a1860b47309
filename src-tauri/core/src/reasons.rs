//! Why a message stands where it does in the queue, and what a retry of it would meet, as codes
//! with parameters: the screens word them in the operator's language, and API clients branch on
//! them. The queue keeps the engine's English sentence beside its reason, for logs and exports.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::domain::{TextForm, UnknownVariant};
use crate::said::Params;

text_enum! {
    /// The reasons the queue records (the engine documents each).
    QueueReasonCode, "queue reason code" {
        /// A submit was written and no answer came within the response timeout (`parts` for a
        /// long message).
        Timeout = "timeout",
        /// A submit was written, then the link was lost before its answer.
        LinkLost = "link_lost",
        /// The SMSC refused a submit for now (`status`, `tries`; `at_ms` when it is tried again,
        /// `end` when it is not: `attempts_exhausted`, `too_old`, `validity_ended`).
        RefusedTemporary = "refused_temporary",
        /// The SMSC refused a submit for good (`status`, `tries`).
        RefusedPermanent = "refused_permanent",
        /// The SMSC said we were sending too fast (`status`, `tries`, `at_ms` or `end`).
        Throttled = "throttled",
        /// Its validity ended before it could be sent.
        Expired = "expired",
        /// Not sent: the link closed before the submit was written; it waits for the link.
        NoLink = "no_link",
        /// Not sent: the number is on the opt-out list (`phone`; `via`: `due`, `reply`,
        /// `operator`, `import`; `keyword` for a reply, `actor` for a person).
        OptedOut = "opted_out",
        /// smsdesk stopped after a submit was written and before its answer was recorded.
        StoppedBeforeAnswer = "stopped_before_answer",
        /// A submit was written and its answer could not be recorded.
        AnswerNotRecorded = "answer_not_recorded",
        /// No answer came (`after`: `timeout` or `link_lost`) and the connection's policy sends it
        /// again (`at_ms`, or `end` when it is not).
        ResentByPolicy = "resent_by_policy",
        /// A person settled it (`action`: `cancelled`, `marked_failed`, `accepted_by_evidence`;
        /// `actor`).
        Operator = "operator",
        /// A long message only some parts of went out (`parts`; `because`: the code of what
        /// stopped the others, with its parameters).
        PartlySent = "partly_sent",
        /// Given back to the queue unsent: its connection no longer serves its route
        /// (`connection`).
        Rerouted = "rerouted",
        /// Not sent: a one-time code, sealed with a key held only in memory by the smsdesk that
        /// took it in, which stopped before sending it; the website asks for a new code.
        CodeLost = "code_lost",
        /// Held: one-time codes to its country surged (`country`, `count` in the last hour,
        /// `average` an hour over the last 7 days); a person releases or cancels it.
        UnusualVolume = "unusual_volume",
    }
}

/// Why a queue row is where it is, as a code and its parameters (an SMPP status, a count, a time).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct QueueReason {
    pub code: QueueReasonCode,
    #[ts(type = "Record<string, string>")]
    pub params: Params,
}

impl QueueReason {
    /// A reason with no parameters.
    pub fn new(code: QueueReasonCode) -> QueueReason {
        QueueReason {
            code,
            params: Params::new(),
        }
    }

    /// The same reason with one more parameter.
    pub fn with(mut self, name: &str, value: impl ToString) -> QueueReason {
        self.params.insert(name.to_owned(), value.to_string());
        self
    }

    /// The reason as the queue row stores it (JSON).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The reason a queue row stored; `None` for a row of a version that did not record one, or
    /// one whose code this version does not know.
    pub fn from_json(json: Option<&str>) -> Option<QueueReason> {
        json.and_then(|j| serde_json::from_str(j).ok())
    }
}

/// What the queue records about a message's last problem: its reason for the screens, and the
/// engine's English sentence for logs and exports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueNote {
    pub reason: QueueReason,
    pub english: String,
}

impl QueueNote {
    pub fn new(reason: QueueReason, english: impl Into<String>) -> QueueNote {
        QueueNote {
            reason,
            english: english.into(),
        }
    }
}

text_enum! {
    /// The facts a retry can meet.
    RetryFactCode, "retry fact code" {
        /// It is in the queue or being sent already (`status`).
        InFlight = "in_flight",
        /// The number is on the opt-out list for its kind (`phone`).
        OptedOut = "opted_out",
        /// Its kind's limit is reached (`limit`: `tries` with `tries`, `max`; or `age` with
        /// `age_minutes`, `max_minutes`; and `kind`).
        LimitReached = "limit_reached",
        /// Its last try was refused for good by the SMSC (`status`): it will most likely fail
        /// again.
        WillFailAgain = "will_fail_again",
        /// The network reported it rejected or undeliverable (`state`): it may be rejected again,
        /// and a retry is a second message.
        RejectedByNetwork = "rejected_by_network",
        /// The SMSC accepted a try, a try went unanswered, or a receipt came (`risk`:
        /// `accepted`, `outcome_unknown`, `receipt`): it may arrive twice.
        MayArriveTwice = "may_arrive_twice",
        /// Its validity ended; it is never sent late.
        Expired = "expired",
        /// This caller may not act on messages.
        NotAllowed = "not_allowed",
    }
}

/// One fact a retry meets, as a code and its parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct RetryFact {
    pub code: RetryFactCode,
    #[ts(type = "Record<string, string>")]
    pub params: Params,
}

impl RetryFact {
    pub fn new(code: RetryFactCode) -> RetryFact {
        RetryFact {
            code,
            params: Params::new(),
        }
    }

    /// The same fact with one more parameter.
    pub fn with(mut self, name: &str, value: impl ToString) -> RetryFact {
        self.params.insert(name.to_owned(), value.to_string());
        self
    }
}

/// What a retry of a message by this caller would meet now.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct RetryAdvice {
    /// Refusals no note overcomes for this caller; the screen leads with the first. Empty when a
    /// retry can be taken.
    pub blocked: Vec<RetryFact>,
    /// What a retry must be confirmed for, with a note (may arrive twice, will fail again, beyond
    /// the limit for an admin).
    pub confirm: Vec<RetryFact>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_read_back_from_their_text() {
        for c in QueueReasonCode::ALL {
            assert_eq!(c.as_str().parse::<QueueReasonCode>().unwrap(), *c);
        }
        for c in RetryFactCode::ALL {
            assert_eq!(c.as_str().parse::<RetryFactCode>().unwrap(), *c);
        }
    }

    #[test]
    fn a_reason_reads_back_as_stored_and_an_unknown_one_reads_as_none() {
        let r = QueueReason::new(QueueReasonCode::RefusedPermanent)
            .with("status", "ESME_RINVDSTADR")
            .with("tries", 1);
        assert_eq!(QueueReason::from_json(Some(&r.to_json())), Some(r));
        assert_eq!(QueueReason::from_json(None), None);
        assert_eq!(
            QueueReason::from_json(Some(r#"{"code":"from_a_later_version","params":{}}"#)),
            None
        );
    }
}
