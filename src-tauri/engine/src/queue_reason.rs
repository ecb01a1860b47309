//! Why the queue holds a message where it is, said once for each situation the dispatcher, its
//! recovery and the operator's actions record: a reason code with parameters, which the screens
//! word in the operator's language, and the engine's English sentence (the queue's `last_error`,
//! for logs and exports). Every queue status written with a problem takes its note from here.

use crate::command_status::{self as status, ErrorClass};
use crate::domain::{ExceptionKind, QueueStatus};
use crate::reasons::{QueueNote, QueueReason, QueueReasonCode as Code};
use smsdesk_core::retry::GiveUp;

/// Not sent: the link closed before the submit was written; it waits for the link.
pub fn no_link() -> QueueNote {
    QueueNote::new(
        QueueReason::new(Code::NoLink),
        "not sent: the link closed before the write",
    )
}

/// The SMSC answered a submit with `command_status` (not 0), classed `class`; `tries` counts
/// this one.
pub fn refused(command_status: u32, class: ErrorClass, tries: u32) -> QueueNote {
    let info = status::describe(command_status);
    let code = match class {
        ErrorClass::Throttled => Code::Throttled,
        ErrorClass::Permanent => Code::RefusedPermanent,
        _ => Code::RefusedTemporary,
    };
    QueueNote::new(
        QueueReason::new(code)
            .with("status", info.name)
            .with("command_status", format!("0x{command_status:08X}"))
            .with("tries", tries),
        format!("{} (0x{:08X}): {}", info.name, command_status, info.meaning),
    )
}

/// A try whose answer never came, or was never recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unanswered {
    /// No answer within the response timeout.
    Timeout,
    /// The link was lost after the submit was written.
    LinkLost,
    /// smsdesk stopped before the answer was recorded (found at the next start).
    Stopped,
    /// The answer could not be recorded (found while running).
    NotRecorded,
}

impl Unanswered {
    /// What happened, as a clause ("A submit was written but …").
    pub fn clause(self) -> &'static str {
        match self {
            Unanswered::Timeout => "no answer within the response timeout",
            Unanswered::LinkLost => "the link was lost after the submit was written",
            Unanswered::Stopped => "smsdesk stopped before the answer was recorded",
            Unanswered::NotRecorded => "its answer could not be recorded",
        }
    }

    fn code(self) -> Code {
        match self {
            Unanswered::Timeout => Code::Timeout,
            Unanswered::LinkLost => Code::LinkLost,
            Unanswered::Stopped => Code::StoppedBeforeAnswer,
            Unanswered::NotRecorded => Code::AnswerNotRecorded,
        }
    }

    /// Its cause, as [`held`] takes it.
    pub fn note(self) -> QueueNote {
        QueueNote::new(QueueReason::new(self.code()), self.clause())
    }
}

/// An unanswered try that the connection's policy sends again rather than hold.
pub fn resent_by_policy(after: Unanswered) -> QueueNote {
    let reason = QueueReason::new(Code::ResentByPolicy).with("after", after.code().as_str());
    QueueNote::new(reason, format!("{}; resent by policy", after.clause()))
}

/// `cause` (a refusal, or a resend by policy), tried again at `at`.
pub fn retrying(cause: &QueueNote, at: i64) -> QueueNote {
    QueueNote::new(cause.reason.clone().with("at_ms", at), cause.english.clone())
}

/// `cause`, given up for `reason`: the status the message ends in, and its note.
pub fn given_up(cause: &QueueNote, reason: GiveUp) -> (QueueStatus, QueueNote) {
    let (status, end, tail) = match reason {
        GiveUp::ValidityEnded => (
            QueueStatus::Expired,
            Some("validity_ended"),
            "; its validity ends before a retry",
        ),
        GiveUp::Permanent => (QueueStatus::Failed, None, ""),
        GiveUp::AttemptsExhausted => (QueueStatus::Failed, Some("attempts_exhausted"), "; no attempts left"),
        GiveUp::TooOld => (QueueStatus::Failed, Some("too_old"), "; too old to retry"),
    };
    let mut reason = cause.reason.clone();
    if let Some(end) = end {
        reason = reason.with("end", end);
    }
    (status, QueueNote::new(reason, format!("{}{tail}", cause.english)))
}

/// Its validity ended before it could be sent (nothing of it went out).
pub fn expired() -> QueueNote {
    QueueNote::new(
        QueueReason::new(Code::Expired),
        "its validity ended before it could be sent",
    )
}

/// A one-time code sealed by an smsdesk that stopped before sending it: its key is gone.
pub fn code_lost() -> QueueNote {
    QueueNote::new(
        QueueReason::new(Code::CodeLost),
        "the one-time code was sealed with a key held only in memory by the smsdesk that took it in, \
         which stopped before sending it; nothing was sent (ask for a new code)",
    )
}

/// The validity of a message partly sent ended, `before` what: held for a person.
pub fn validity_ended(before: &str) -> QueueNote {
    QueueNote::new(
        QueueReason::new(Code::Expired),
        format!("its validity ended before {before}"),
    )
}

/// Held for a person's decision (an exception of `kind`) because of `cause`; `english` is the
/// exception's sentence, which the queue keeps as its own. A long message (`segments` parts)
/// names its parts; one partly sent says so, with the cause's code as `because`.
pub fn held(kind: ExceptionKind, cause: &QueueNote, segments: u32, english: String) -> QueueNote {
    let mut reason = match kind {
        ExceptionKind::OutcomeUnknown => cause.reason.clone(),
        _ => {
            let mut r = QueueReason::new(Code::PartlySent).with("because", cause.reason.code.as_str());
            r.params.extend(cause.reason.params.clone());
            r
        }
    };
    if segments > 1 {
        reason = reason.with("parts", segments);
    }
    QueueNote::new(reason, english)
}

/// How a number on the opt-out list was found or put there, for a message it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptOutVia<'a> {
    /// Found when the message was due.
    Due,
    /// A reply with a stop word (the keyword it matched, if any).
    Reply(Option<&'a str>),
    /// A person added it.
    Operator(&'a str),
    /// A person's import.
    Import(&'a str),
}

impl OptOutVia<'_> {
    /// In a few words, as the audit and the queue's sentence say it.
    pub fn english(self) -> String {
        match self {
            OptOutVia::Due => "found when it was due".into(),
            OptOutVia::Reply(Some(k)) => format!("reply \"{k}\""),
            OptOutVia::Reply(None) => "reply".into(),
            OptOutVia::Operator(actor) => format!("added by {actor}"),
            OptOutVia::Import(actor) => format!("imported by {actor}"),
        }
    }

    /// Its code and parameters, added to `reason`.
    fn add_to(self, reason: QueueReason) -> QueueReason {
        match self {
            OptOutVia::Due => reason.with("via", "due"),
            OptOutVia::Reply(k) => {
                let r = reason.with("via", "reply");
                match k {
                    Some(k) => r.with("keyword", k),
                    None => r,
                }
            }
            OptOutVia::Operator(actor) => reason.with("via", "operator").with("actor", actor),
            OptOutVia::Import(actor) => reason.with("via", "import").with("actor", actor),
        }
    }
}

/// Not sent: `phone` is on the opt-out list.
pub fn opted_out(phone: &str, via: OptOutVia<'_>) -> QueueNote {
    let reason = via.add_to(QueueReason::new(Code::OptedOut).with("phone", phone));
    QueueNote::new(
        reason,
        format!("not sent: {phone} is on the opt-out list ({})", via.english()),
    )
}

/// What a person did that settled a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    Cancelled,
    /// Marked failed, its outcome unknown.
    MarkedFailed,
    /// A receipt they attached shows the SMSC had it.
    AcceptedByEvidence,
}

/// A person (`actor`) settled the message.
pub fn by_operator(what: Settled, actor: &str) -> QueueNote {
    let (action, english) = match what {
        Settled::Cancelled => ("cancelled", "cancelled by an operator".to_owned()),
        Settled::MarkedFailed => (
            "marked_failed",
            "marked failed by an operator (outcome unknown)".to_owned(),
        ),
        Settled::AcceptedByEvidence => (
            "accepted_by_evidence",
            format!("accepted by evidence: a receipt attached by {actor} shows the SMSC had it"),
        ),
    };
    let reason = QueueReason::new(Code::Operator)
        .with("action", action)
        .with("actor", actor);
    QueueNote::new(reason, english)
}

/// Given back to the queue unsent: `connection` no longer serves its route.
pub fn rerouted(connection: &str) -> QueueNote {
    QueueNote::new(
        QueueReason::new(Code::Rerouted).with("connection", connection),
        format!("given back to the queue unsent: {connection} no longer serves its route"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param<'a>(n: &'a QueueNote, name: &str) -> Option<&'a str> {
        n.reason.params.get(name).map(String::as_str)
    }

    #[test]
    fn a_refusal_names_its_status_and_its_class_picks_the_code() {
        let n = refused(0x0B, ErrorClass::Permanent, 1);
        assert_eq!(n.reason.code, Code::RefusedPermanent);
        assert_eq!(param(&n, "status"), Some("ESME_RINVDSTADR"));
        assert_eq!(param(&n, "tries"), Some("1"));
        assert!(n.english.starts_with("ESME_RINVDSTADR (0x0000000B): "), "{}", n.english);
        assert_eq!(refused(0x58, ErrorClass::Throttled, 2).reason.code, Code::Throttled);
        assert_eq!(
            refused(0x08, ErrorClass::Temporary, 2).reason.code,
            Code::RefusedTemporary
        );
    }

    #[test]
    fn giving_up_adds_why_to_the_code_and_to_the_sentence_alike() {
        let cause = refused(0x08, ErrorClass::Temporary, 3);
        let (status, n) = given_up(&cause, GiveUp::AttemptsExhausted);
        assert_eq!(status, QueueStatus::Failed);
        assert_eq!(param(&n, "end"), Some("attempts_exhausted"));
        assert!(n.english.ends_with("; no attempts left"));
        let (status, n) = given_up(&cause, GiveUp::ValidityEnded);
        assert_eq!(
            (status, param(&n, "end")),
            (QueueStatus::Expired, Some("validity_ended"))
        );
        let (_, n) = given_up(&refused(0x0B, ErrorClass::Permanent, 1), GiveUp::Permanent);
        assert_eq!(param(&n, "end"), None);
        assert_eq!(param(&retrying(&cause, 42), "at_ms"), Some("42"));
    }

    #[test]
    fn a_partly_sent_hold_keeps_its_cause_as_because() {
        let cause = refused(0x0B, ErrorClass::Permanent, 1);
        let n = held(ExceptionKind::PartlySent, &cause, 3, "went out in part".into());
        assert_eq!(n.reason.code, Code::PartlySent);
        assert_eq!(param(&n, "because"), Some("refused_permanent"));
        assert_eq!(param(&n, "status"), Some("ESME_RINVDSTADR"));
        assert_eq!(param(&n, "parts"), Some("3"));
        assert_eq!(n.english, "went out in part");
        let n = held(
            ExceptionKind::OutcomeUnknown,
            &Unanswered::Stopped.note(),
            1,
            "x".into(),
        );
        assert_eq!(n.reason.code, Code::StoppedBeforeAnswer);
        assert!(n.reason.params.is_empty());
    }

    #[test]
    fn an_opt_out_says_how_the_number_got_there() {
        let n = opted_out("+33612345600", OptOutVia::Reply(Some("STOP")));
        assert_eq!(n.reason.code, Code::OptedOut);
        assert_eq!(
            (param(&n, "phone"), param(&n, "via"), param(&n, "keyword")),
            (Some("+33612345600"), Some("reply"), Some("STOP"))
        );
        assert_eq!(
            n.english,
            "not sent: +33612345600 is on the opt-out list (reply \"STOP\")"
        );
        assert_eq!(param(&opted_out("+1", OptOutVia::Due), "via"), Some("due"));
    }
}
