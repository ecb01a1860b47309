//! Messages and their submit attempts: intake (API, CSV, compose) and the dispatcher build on
//! these. The rows are the store's (`tables::message`, `tables::attempt`); recording an accepted
//! submit, which also matches the receipts that arrived before it, is `decisions::record_accepted`.

pub use crate::store::tables::attempt::{begin_attempt, AttemptRef, Wire};
pub use crate::store::tables::message::{insert, insert_sealed};
pub use smsdesk_core::message::{queue_priority, Idempotency, NewMessage, DEFAULT_PRIORITY};
