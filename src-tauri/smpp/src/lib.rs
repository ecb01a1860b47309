//! smsdesk's SMPP client: one session per account as an owner task behind a cloneable handle. It
//! knows PDUs and the link, nothing of the store or the rules: inbound reports leave it as
//! [`SmppReceived`] values through an [`session::InboundHandler`] the engine provides.

pub mod session;
pub mod submit;

use rusmpp::types::COctetString;

pub use session::raw_tlv;
pub use smsdesk_core::receipts::parse::Tlv;

/// A deliver_sm or data_sm as it came off the wire.
#[derive(Debug, Clone, Default)]
pub struct SmppReceived {
    pub connection: String,
    pub session_id: Option<String>,
    pub sequence_number: Option<u32>,
    /// Its position among the reports read on its session (from 1): the order they arrived in.
    pub arrival_no: Option<u64>,
    pub data_sm: bool,
    pub esm_class: Option<u8>,
    pub data_coding: Option<u8>,
    pub source_addr: Option<String>,
    /// The source address's type of number (1 international, 2 national, 5 alphanumeric...).
    pub source_addr_ton: Option<u8>,
    pub destination_addr: Option<String>,
    pub short_message: Vec<u8>,
    pub tlvs: Vec<Tlv>,
    /// The whole PDU, when the session has it.
    pub pdu: Option<Vec<u8>>,
    pub received_at: i64,
}

/// A C-octet string of at most MAX - 1 characters (longer text is cut, NULs dropped).
pub fn cstr<const MIN: usize, const MAX: usize>(s: &str) -> COctetString<MIN, MAX> {
    let mut bytes: Vec<u8> = s.bytes().filter(|b| *b != 0).take(MAX - 1).collect();
    bytes.push(0);
    COctetString::from_vec(bytes).unwrap_or_default()
}
