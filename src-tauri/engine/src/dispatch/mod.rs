//! Sending: what the dispatcher decides about each message.

pub mod retry;
