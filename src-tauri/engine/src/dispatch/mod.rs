//! Sending: what the dispatcher decides about each message.

pub mod queue;
pub mod retry;

#[cfg(test)]
mod tests;
