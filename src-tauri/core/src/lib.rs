//! smsdesk's core: the vocabulary and the rules, as pure functions of their inputs.
//!
//! No I/O, no async runtime, no database: what lives here is decided by its arguments alone, so it
//! is tested without a socket or a file and every other crate may use it. Reading the clock, the
//! disk or the network belongs to the crates above.

pub mod access;
pub mod api_key;
pub mod command_status;
pub mod config;
pub mod country;
#[macro_use]
pub mod domain;
// After `domain`: its enums are declared with `domain`'s `text_enum!`.
pub mod alert;
pub mod audit;
pub mod inbox;
pub mod message;
pub mod optout;
pub mod parts;
pub mod providers;
pub mod reasons;
pub mod receipts;
pub mod redact;
pub mod retry;
pub mod said;
pub mod sms;
pub mod template;
pub mod time;
pub mod tlv;
pub mod webhook;
