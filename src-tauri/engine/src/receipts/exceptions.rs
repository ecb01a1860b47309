//! The exception queue's rows: what needs a person, with its evidence. Opening and closing them
//! is the store's (`tables::exception`); an operator's resolution is `decisions::resolve`.

pub use crate::store::tables::exception::{
    close_automatically, get, link_attempt, link_event_receipts, link_receipt, open, open_for_event, open_for_message,
    open_for_receipt, open_status_unreadable, receipt_facts, Evidence, ExceptionRow, NewException,
};
pub use crate::store::tables::message::message_facts;
