//! Delivery receipts: parse, keep as evidence, de-duplicate, correlate, compute state, and raise
//! what needs a person.

pub mod correlate;
pub mod deadline;
pub mod exceptions;
pub mod ingest;
pub mod project;
pub mod rebuild;
pub mod rekey;
pub mod uncorrelated;

pub use smsdesk_core::receipts::{dedup, fields, mismatch, parse, policy, rules};

#[cfg(test)]
mod tests;
