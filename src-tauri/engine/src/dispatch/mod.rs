//! Sending: what the dispatcher decides about each message.

pub mod queue;
mod upkeep;
pub mod worker;

pub use smsdesk_core::retry;

#[cfg(test)]
mod sandbox_tests;
#[cfg(test)]
mod tests;
