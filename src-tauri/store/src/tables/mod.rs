//! One module per table: its typed reads and writes. The logs' handles offer only `append`: there
//! is no way, through the store's API, to change or remove evidence once written (and SQL triggers
//! refuse it as well).

pub mod account;
pub mod alert;
pub mod api_key;
pub mod attempt;
mod audit;
pub mod connection_hold;
pub mod connection_rules;
pub mod deadline;
pub mod exception;
pub mod guardrail;
pub mod idempotency;
pub mod inbound;
pub mod inbox;
pub mod instance;
pub mod logical_event;
pub mod message;
pub mod node;
pub mod opt_out;
pub mod projection;
pub mod queue;
pub mod receipt;
pub mod redact;
pub mod session;
pub mod smpp;
pub mod start_check;
pub mod template;
pub mod uncorrelated_wait;
pub mod webhook;

#[cfg(test)]
mod access_tests;
#[cfg(test)]
mod attempt_tests;
#[cfg(test)]
mod message_tests;
#[cfg(test)]
mod smpp_tests;

pub use audit::{AuditLog, NewAudit};
pub use receipt::{NewReceipt, ReceiptLog};
#[cfg(test)]
mod alert_tests;
#[cfg(test)]
mod api_key_tests;
#[cfg(test)]
mod exception_tests;
#[cfg(test)]
mod guardrail_tests;
#[cfg(test)]
mod inbound_tests;
#[cfg(test)]
mod logical_event_tests;
#[cfg(test)]
mod opt_out_tests;
#[cfg(test)]
mod projection_tests;
#[cfg(test)]
mod test_rows;
#[cfg(test)]
mod webhook_tests;
