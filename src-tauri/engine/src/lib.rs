//! The smsdesk engine: everything the product does, with no GUI dependency.
//!
//! The desktop shell (`src-tauri`) and the headless `smsdesk serve` both drive this crate; so do the
//! tests, which therefore never need a window or webkit.

pub mod access;
pub mod accounts;
pub mod alerts;
pub mod api;
pub mod apikeys;
pub mod backups;
pub mod changes;
pub mod clock;
pub mod config;
pub mod decisions;
pub mod dispatch;
pub mod door;
pub mod engine;
pub mod guardrail_rules;
pub mod guardrails;
pub mod idempotency;
pub mod inbox;
pub mod instance;
pub mod intake;
pub mod known_keys;
pub mod logging;
pub mod messages;
pub mod nodes;
pub mod operations;
pub mod optouts;
pub mod pace;
pub mod paths;
pub mod permissions;
pub mod privacy;
pub mod progress;
pub mod queue;
pub mod queue_reason;
pub mod receipts;
pub mod sealed;
pub mod service;
pub mod settings;
pub mod smpp;
pub mod smpp_clients;
pub mod smpp_server;
#[cfg(test)]
mod test_support;
pub mod tokens;
pub mod views;
pub mod webhooks;

pub use engine::{Engine, EngineOptions};
pub use smsdesk_core::{audit, command_status, domain, reasons, said, sms};
pub use smsdesk_sandbox as sandbox;
// The store is the engine's own: its doors ask the engine, never the tables.
use smsdesk_store as store;
pub use store::{Store, StoreError};

/// The product's version, as built.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
