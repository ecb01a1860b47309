//! Read models: what the HTTP API, the command line and the desktop UI show. The queries and their
//! answer types are the store's (`smsdesk_store::views`); the CSV export that pages through them
//! is here.

mod export;
#[cfg(test)]
mod tests;

pub use export::{inert_cell, write_csv, ExportError, ExportProgress};
pub use smsdesk_store::views::*;
