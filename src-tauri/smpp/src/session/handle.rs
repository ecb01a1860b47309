//! The cloneable handle senders hold, and the two steps of a submit: [`SessionHandle::reserve`]
//! then [`Permit::submit`].

use std::sync::Arc;
use std::time::Duration;

use rusmpp::pdus::SubmitSm;
use rusmpp::{Command, CommandStatus, Pdu};
use tokio::sync::{oneshot, watch};

use super::binds::Slot;
use super::{BindRole, Inner, Link, LinkState, Outgoing};

/// Why a submit did not get an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubmitFailure {
    /// Nothing was written: safe to try again later.
    #[error("not sent: {0}")]
    NotSent(String),
    /// Written (at `written_at`, when the write finished in time), but no answer came in time: it
    /// may or may not have been accepted.
    #[error("no answer within the response timeout; the outcome is unknown")]
    Timeout { written_at: Option<i64> },
    /// Handed to the socket (at `written_at`; a write that failed part-way counts), then the link
    /// went down before the answer: the outcome is unknown.
    #[error("the link was lost before the answer; the outcome is unknown")]
    LinkLost { written_at: Option<i64> },
}

/// The SMSC's answer to a submit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubmitAnswer {
    pub command_status: u32,
    /// The provider's message id exactly as returned (accepted submits only).
    pub message_id: Option<String>,
    /// When the submit's frame was flushed to the socket.
    pub written_at: i64,
}

/// A cloneable handle to the session task.
#[derive(Clone)]
pub struct SessionHandle {
    pub(super) inner: Arc<Inner>,
}

/// The right to send one submit: a window slot, a rate token, and its sequence number.
pub struct Permit {
    link: Link,
    connection: String,
    sequence_number: u32,
    response_timeout: Duration,
    _slot: Slot,
}

impl Permit {
    /// The connection the submit goes out on.
    pub fn connection(&self) -> &str {
        &self.connection
    }

    pub fn session_id(&self) -> &str {
        &self.link.session_id
    }

    pub fn sequence_number(&self) -> u32 {
        self.sequence_number
    }

    /// Writes the submit and waits for its answer. A submit counts as written once its frame was
    /// flushed to the socket; one the link ended before writing is [`SubmitFailure::NotSent`].
    pub async fn submit(self, pdu: SubmitSm) -> Result<SubmitAnswer, SubmitFailure> {
        // Registered before the frame goes out: the answer can arrive as soon as it is flushed.
        let (answered, answer) = oneshot::channel();
        self.link
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(self.sequence_number, answered);
        let written_at = self.write(pdu).await?;
        self.await_answer(answer, written_at).await
    }

    /// Hands the submit to the link's writer and waits (the response timeout at most) until it
    /// was flushed: the time it was, or why it does not count as sent or its outcome is unknown.
    async fn write(&self, pdu: SubmitSm) -> Result<i64, SubmitFailure> {
        let (written, write) = oneshot::channel();
        let frame = Outgoing {
            command: Command::new(CommandStatus::EsmeRok, self.sequence_number, pdu),
            written: Some(written),
        };
        if self.link.out.send(frame).is_err() {
            self.link.forget(self.sequence_number);
            return Err(SubmitFailure::NotSent("the link closed before the write".into()));
        }
        match tokio::time::timeout(self.response_timeout, write).await {
            Ok(Ok(Ok(at))) => Ok(at),
            Ok(Ok(Err(at))) => {
                self.link.forget(self.sequence_number);
                Err(SubmitFailure::LinkLost { written_at: Some(at) })
            }
            Ok(Err(_)) => {
                self.link.forget(self.sequence_number);
                Err(SubmitFailure::NotSent(
                    "the link closed before the submit was written".into(),
                ))
            }
            // Still in the socket's hands: it may yet reach the SMSC.
            Err(_) => {
                self.link.forget(self.sequence_number);
                Err(SubmitFailure::Timeout { written_at: None })
            }
        }
    }

    /// Waits (the response timeout at most) for the answer to a submit written at `written_at`.
    async fn await_answer(
        &self,
        answer: oneshot::Receiver<Command>,
        written_at: i64,
    ) -> Result<SubmitAnswer, SubmitFailure> {
        match tokio::time::timeout(self.response_timeout, answer).await {
            Ok(Ok(answer)) => Ok(SubmitAnswer {
                command_status: u32::from(answer.status()),
                message_id: accepted_message_id(&answer),
                written_at,
            }),
            Ok(Err(_)) => Err(SubmitFailure::LinkLost {
                written_at: Some(written_at),
            }),
            Err(_) => {
                self.link.forget(self.sequence_number);
                Err(SubmitFailure::Timeout {
                    written_at: Some(written_at),
                })
            }
        }
    }
}

/// The message id of a submit_sm_resp that accepted the submit (none for a refusal).
fn accepted_message_id(answer: &Command) -> Option<String> {
    match answer.pdu() {
        Some(Pdu::SubmitSmResp(r)) if answer.status() == CommandStatus::EsmeRok => Some(r.message_id().to_string()),
        _ => None,
    }
}

impl SessionHandle {
    /// The name of the connection it sends on.
    pub fn connection(&self) -> &str {
        &self.inner.config.connection
    }

    /// The connection's state (bound while any sending bind is).
    pub fn state(&self) -> watch::Receiver<LinkState> {
        self.inner.state.subscribe()
    }

    /// Each bind's role and state, in the order they were opened.
    pub fn binds(&self) -> Vec<(BindRole, LinkState)> {
        self.inner
            .binds
            .iter()
            .map(|b| (b.role, b.state.borrow().clone()))
            .collect()
    }

    /// Waits for a bound sending bind with a free window slot, then for the rate limit. Spends
    /// nothing while no bind is bound. When the bind's link is lost during the wait for the rate,
    /// looks for a slot again (on any bind).
    pub async fn reserve(&self) -> Result<Permit, SubmitFailure> {
        loop {
            let (i, slot) = self.inner.free_slot().await?;
            self.inner.wait_for_rate().await;
            let Some(link) = self.inner.binds[i].link.borrow().clone() else {
                continue;
            };
            let sequence_number = link.next_seq();
            return Ok(Permit {
                link,
                connection: self.inner.config.connection.clone(),
                sequence_number,
                response_timeout: self.inner.config.response_timeout,
                _slot: slot,
            });
        }
    }
}
