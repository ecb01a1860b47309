//! Sending: what the dispatcher decides about each message.

mod lanes;
pub mod queue;
pub mod routing;
mod upkeep;
pub mod worker;

pub use smsdesk_core::retry;

#[cfg(test)]
mod sandbox_tests;
#[cfg(test)]
mod tests;
