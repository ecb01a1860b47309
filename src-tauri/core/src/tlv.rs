//! SMPP's optional parameters (TLVs) as received, and the tags smsdesk reads.

/// One optional parameter, as received.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Tlv {
    pub tag: u16,
    pub value: Vec<u8>,
}

/// SMPP TLV tags smsdesk reads.
pub mod tag {
    /// `receipted_message_id`: C-octet string, the SMSC's id of the original message.
    pub const RECEIPTED_MESSAGE_ID: u16 = 0x001E;
    /// `network_error_code`: 1 octet network type + 2 octets error code.
    pub const NETWORK_ERROR_CODE: u16 = 0x0423;
    /// `message_payload`: the text when `short_message` is empty.
    pub const MESSAGE_PAYLOAD: u16 = 0x0424;
    /// `message_state`: 1 octet, 0 SCHEDULED … 9 SKIPPED.
    pub const MESSAGE_STATE: u16 = 0x0427;
    /// `user_message_reference`.
    pub const USER_MESSAGE_REFERENCE: u16 = 0x0204;
}
