//! Delivery receipts: parse, keep as evidence, de-duplicate, correlate, compute state, and raise
//! what needs a person.

pub mod correlate;
pub mod deadline;
pub mod dedup;
pub mod exceptions;
pub mod ingest;
pub mod mismatch;
pub mod parse;
pub mod policy;
pub mod project;
pub mod rebuild;
pub mod rekey;
pub mod report;
pub mod rules;
pub mod uncorrelated;

#[cfg(test)]
mod tests;
