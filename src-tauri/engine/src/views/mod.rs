//! Read models: what the HTTP API, the command line and the desktop UI show. The queries and their
//! answer types are the store's (`smsdesk_store::views`); the CSV export that pages through them,
//! and the reading of a phone number typed in a search field, are here.

mod export;
mod number;
#[cfg(test)]
mod tests;

pub use crate::store::views::*;
pub use export::{export_file, inert_cell, write_csv, ExportError, ExportProgress};
pub use number::{looks_like_number, search_number, NumberSearchError, MIN_SUFFIX_DIGITS};
