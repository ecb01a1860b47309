//! Enum values in SQL: the stable text form of a `smsdesk_core::domain` enum, bound as a parameter
//! or read from a column (a text the enum does not know is a read error that names the column).

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use smsdesk_core::domain::TextForm;

/// A domain enum as an SQL value: `Text(state)` in `params!`, `row.get::<_, Text<_>>(i)?.0` out.
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

impl<T: TextForm> crate::db::Param for Text<T> {
    fn value(&self) -> crate::db::Value<'_> {
        crate::db::Value::Text(self.0.text())
    }
}

impl<T: TextForm> crate::db::FromValue for Text<T> {
    fn from_value(v: crate::db::Value<'_>) -> Result<Self, String> {
        let text = String::from_value(v)?;
        text.parse().map(Text).map_err(|e| format!("{e}"))
    }
}
