//! Text folded for searching in SQL: the `smsdesk_fold` function, registered on every connection,
//! folds accents and case in Rust as keyword replies are folded (`smsdesk_core::optout::fold`),
//! which SQLite's own `lower` does for ASCII letters only ("Arrêt", "СТОП").

use smsdesk_core::optout::fold;

/// The SQL function that folds a text for searching.
pub const FOLD_FUNCTION: &str = "smsdesk_fold";

/// Registers [`FOLD_FUNCTION`] on `conn`: deterministic, so SQLite may use it anywhere.
pub(crate) fn register(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    conn.create_scalar_function(
        FOLD_FUNCTION,
        1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            let text: Option<String> = ctx.get(0)?;
            Ok(text.map(|t| fold(&t)))
        },
    )
}
