//! Sending: what the dispatcher decides about each message.

pub mod parts;
pub mod queue;
pub mod retry;
pub mod worker;

#[cfg(test)]
mod sandbox_tests;
#[cfg(test)]
mod tests;
