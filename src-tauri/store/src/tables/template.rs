//! The `message_template` table: the office's saved texts, by name (unique whatever the case).
//! A message keeps the text it was sent with, so a template may be deleted outright.

use smsdesk_core::template::{placeholders, Template};

use crate::db::Row;
use crate::writer::WriteTx;
use crate::{Reads, StoreError};

/// Why a template was not stored.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    #[error("a template named {0:?} exists already (names are compared without case)")]
    NameTaken(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

const COLUMNS: &str = "id, name, body, created_at, created_by";

fn row(r: &Row<'_, '_>) -> Result<Template, StoreError> {
    let text: String = r.get(2)?;
    Ok(Template {
        id: r.get(0)?,
        name: r.get(1)?,
        placeholders: placeholders(&text),
        text,
        created_at_ms: r.get(3)?,
        created_by: r.get(4)?,
    })
}

/// Stores a new template, created at the batch's time, and answers it as lists show it.
pub fn insert(tx: &mut WriteTx<'_>, name: &str, text: &str, created_by: &str) -> Result<Template, TemplateError> {
    let taken: Option<i64> = tx.db().query_opt(
        "SELECT id FROM message_template WHERE name = ?1 COLLATE NOCASE",
        &[&name],
        |r| r.get(0),
    )?;
    if taken.is_some() {
        return Err(TemplateError::NameTaken(name.to_owned()));
    }
    let now = tx.now_ms();
    let id = tx.db().one(
        "INSERT INTO message_template (name, body, created_at, created_by) VALUES (?1, ?2, ?3, ?4)
         RETURNING id",
        &[&name, &text, &now, &created_by],
    )?;
    Ok(Template {
        id,
        name: name.to_owned(),
        text: text.to_owned(),
        placeholders: placeholders(text),
        created_at_ms: now,
        created_by: created_by.to_owned(),
    })
}

/// Deletes template `id`; answers it as it was, or `None` when there is no such template.
pub fn delete(tx: &mut WriteTx<'_>, id: i64) -> Result<Option<Template>, StoreError> {
    tx.db().query_opt(
        &format!("DELETE FROM message_template WHERE id = ?1 RETURNING {COLUMNS}"),
        &[&id],
        row,
    )
}

/// Every template, by name (without case).
pub fn list(conn: &impl Reads) -> Result<Vec<Template>, StoreError> {
    conn.db().query(
        &format!("SELECT {COLUMNS} FROM message_template ORDER BY name COLLATE NOCASE, id"),
        &[],
        row,
    )
}
