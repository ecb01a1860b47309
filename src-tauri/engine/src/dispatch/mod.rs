//! Sending: what the dispatcher decides about each message.

mod config;
mod lanes;
pub mod routing;
mod send;
mod upkeep;
pub mod worker;

#[cfg(test)]
mod sandbox_tests;
