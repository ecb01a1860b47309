//! Read models: what the HTTP API, the command line and the desktop UI show. The queries and their
//! answer types are the store's (`smsdesk_store::views`); the CSV export that pages through them,
//! and the reading of a phone number typed in the message list's filter, are here.

mod export;
mod number;
#[cfg(test)]
mod tests;

pub use crate::store::views::*;
pub use export::{export_file, inert_cell, write_csv, ExportError, ExportProgress};
pub use number::{search_number, MIN_SUFFIX_DIGITS};
