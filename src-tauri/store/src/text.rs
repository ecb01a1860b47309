//! Enum values in SQL: the stable text form of a `smsdesk_core::domain` enum, bound as a parameter
//! or read from a column (a text the enum does not know is a read error that names the column).

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use smsdesk_core::domain::TextForm;

use crate::db::{FromValue, Param, Value};

/// A domain enum as an SQL value: `Text(state)` in `params!` or a
/// [`Param`] list, `row.get::<_, Text<_>>(i)?.0` (rusqlite) or `r.get::<Text<_>>(i)?.0` (either
/// store) out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Text<T>(pub T);

impl<T: TextForm> ToSql for Text<T> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.0.text()))
    }
}

impl<T: TextForm> FromSql for Text<T> {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let text = value.as_str()?;
        text.parse().map(Text).map_err(|e| FromSqlError::Other(Box::new(e)))
    }
}

impl<T: TextForm> Param for Text<T> {
    fn value(&self) -> Value<'_> {
        Value::Text(self.0.text())
    }
}

impl<T: TextForm> FromValue for Text<T> {
    fn from_value(v: Value<'_>) -> Result<Self, String> {
        match v {
            // Parsed where it lies: the hot reads (the claim's kinds, receipts' sources) copy nothing.
            Value::Text(text) => text.parse().map(Text).map_err(|e| format!("{e}")),
            _ => Err("text was expected".to_owned()),
        }
    }
}
