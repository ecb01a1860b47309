//! SMPP: what the protocol's values mean to smsdesk.

pub mod status;
