//! The messages a receipt may belong to, compared with it fact by fact: what the exception
//! screen's message picker shows beside each message it lists, decided by the same comparison
//! that attaching the receipt checks (core `receipts::mismatch`).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Service, ServiceError};
use crate::decisions;
use crate::intake::FieldError;
use crate::said::FieldCode;
pub use smsdesk_core::receipts::mismatch::{CannotTell, Fact, FactCheck, Verdict};

/// Messages compared at most in one request (a picker lists 20).
pub const MAX_COMPARED: usize = 100;

/// The messages listed beside an exception's receipt, to compare with it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CompareCandidates {
    /// Their ids, at most 100; an id given twice is compared once.
    #[ts(type = "number[]")]
    pub messages: Vec<i64>,
}

/// The exception's receipt against each message asked about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct CandidateComparison {
    #[ts(type = "number")]
    pub exception_id: i64,
    /// Each message asked about that exists, in the order asked.
    pub messages: Vec<ComparedMessage>,
}

/// One message against the receipt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct ComparedMessage {
    #[ts(type = "number")]
    pub message_id: i64,
    /// Connection, destination, text and time, in that order, each as the receipt and the
    /// message say it: `differs` for exactly the facts attaching the receipt would list as
    /// mismatches.
    pub facts: Vec<FactCheck>,
}

impl Service {
    /// Compares exception `id`'s receipt with each of the messages listed, writing nothing.
    /// `NotFound` for no such exception; refused for an exception about no receipt.
    pub async fn compare_candidates(
        &self,
        id: i64,
        asked: CompareCandidates,
    ) -> Result<CandidateComparison, ServiceError> {
        if asked.messages.len() > MAX_COMPARED {
            let message = format!(
                "at most {MAX_COMPARED} messages are compared at once; this asks for {}",
                asked.messages.len()
            );
            let e = FieldError::new("messages", FieldCode::TooMany, message)
                .with("max", MAX_COMPARED)
                .with("count", asked.messages.len());
            return Err(ServiceError::Invalid(vec![e]));
        }
        let timezone = self.policy().timezone_minutes;
        let compared = self
            .store
            .reader()
            .read(move |c| decisions::compare_candidates(c, id, &asked.messages, timezone))
            .await?;
        Ok(CandidateComparison {
            exception_id: id,
            messages: compared
                .into_iter()
                .map(|(message_id, facts)| ComparedMessage { message_id, facts })
                .collect(),
        })
    }
}
