//! What a submit came to: the SMSC's answer, or why none came.

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
