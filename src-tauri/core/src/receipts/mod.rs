//! Receipts as values: parsing what providers send, telling repeats apart, which id format each
//! place speaks, whether a receipt fits its message, and the rules that fold a message's evidence
//! into its state.

pub mod dedup;
pub mod echo;
pub mod fields;
pub mod mismatch;
pub mod parse;
pub mod policy;
pub mod rules;
