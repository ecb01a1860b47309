//! The `smsdesk_country` SQL function, registered on every connection: the country of a number in
//! E.164 as the numbering data tells it (`smsdesk_core::country::country_of`), NULL for none. The
//! delivery report groups messages by it.

use smsdesk_core::country::country_of;

/// The SQL function's name.
pub const COUNTRY_FUNCTION: &str = "smsdesk_country";

/// Registers [`COUNTRY_FUNCTION`] on `conn`: deterministic, so SQLite may use it anywhere.
pub(crate) fn register(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    conn.create_scalar_function(
        COUNTRY_FUNCTION,
        1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            let number: Option<String> = ctx.get(0)?;
            Ok(number.as_deref().and_then(country_of))
        },
    )
}
