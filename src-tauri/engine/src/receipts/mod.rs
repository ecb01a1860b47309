//! Delivery receipts: parse, keep as evidence, de-duplicate, correlate, compute state, and raise
//! what needs a person.

pub mod apply;
pub mod correlate;
pub mod deadline;
pub mod exceptions;
mod facts;
pub mod ingest;
pub mod project;
pub mod rebuild;
pub mod rekey;
mod rows;
pub mod uncorrelated;

pub use smsdesk_core::receipts::{dedup, fields, mismatch, parse, policy, rules};

#[cfg(test)]
mod tests;
