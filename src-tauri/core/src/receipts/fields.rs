//! What a report says, as read from it: the fields every place that keeps or shows a receipt
//! shares, declared once. The parser reads them ([`Parsed::fields`]), the store keeps them in
//! the receipt's row, processing decides with them, and the API shows them.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::parse::{Parsed, Stat};
use crate::domain::IdSource;

/// The fields a report was read into, as found (none is invented).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct ReceiptFields {
    /// The provider's message id, exactly as written.
    pub message_id_raw: Option<String>,
    /// Where `message_id_raw` was read (the TLV, the receipt text, an HTTP field).
    pub id_source: Option<IdSource>,
    /// The receipt text's id, when the TLV gave `message_id_raw`.
    pub text_id: Option<String>,
    /// The provider's id of the callback event itself.
    pub event_id: Option<String>,
    /// The normalised status token (DELIVRD, UNDELIV, ...) and the token as written.
    pub stat: Option<Stat>,
    pub stat_raw: Option<String>,
    /// The status word names no status anyone knows: the report says nothing of the state.
    pub status_unreadable: bool,
    pub err: Option<String>,
    pub sub: Option<String>,
    pub dlvrd: Option<String>,
    pub submit_date: Option<String>,
    pub done_date: Option<String>,
    /// `YYYY-MM-DDTHH:MM:SS`: local when the source had no zone, UTC when it had one.
    pub submit_ts: Option<String>,
    pub done_ts: Option<String>,
    pub message_state: Option<u8>,
    /// Hex of the `network_error_code` TLV's raw value.
    pub network_error_code: Option<String>,
}

impl Parsed {
    /// What the parser read, as a receipt keeps it: the text's id whenever the TLV gave the id
    /// (what the ids' agreement is checked on), else when it differs.
    pub fn fields(&self) -> ReceiptFields {
        ReceiptFields {
            message_id_raw: self.message_id.clone(),
            id_source: self.id_source,
            text_id: self.text_id_seen.clone().or_else(|| self.text_id.clone()),
            event_id: self.event_id.clone(),
            stat: self.stat,
            stat_raw: self.stat_raw.clone(),
            status_unreadable: self.stat_unreadable,
            err: self.err.clone(),
            sub: self.sub.clone(),
            dlvrd: self.dlvrd.clone(),
            submit_date: self.submit_date.clone(),
            done_date: self.done_date.clone(),
            submit_ts: self.submit_ts.clone(),
            done_ts: self.done_ts.clone(),
            message_state: self.message_state,
            network_error_code: self.network_error_code.clone(),
        }
    }
}
