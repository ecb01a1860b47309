//! The office's message templates: listed for everyone who reads, saved and deleted by those who
//! act (audited, since everyone's compose form and CSV import offer them).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Service, ServiceError};
use crate::apikeys::Caller;
use crate::audit::AuditAction;
use crate::intake::{codes, FieldError};
use crate::store::tables::{template as table, NewAudit};
pub use smsdesk_core::template::Template;
use smsdesk_core::template::{MAX_NAME_CHARS, MAX_TEXT_CHARS};

/// A template to save.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTemplate {
    /// What the office calls it (unique, whatever the case; at most 100 characters).
    pub name: String,
    /// The text, with `{placeholders}` (letters, digits, `_` and `-`) filled in when it is used:
    /// by hand in compose, from the CSV file's column of that name on import. At most 2,000
    /// characters.
    pub text: String,
}

/// A control character other than a line break or a tab, and where (from 1).
fn control_char(s: &str, breaks: bool) -> Option<(usize, char)> {
    s.chars()
        .enumerate()
        .find(|&(_, c)| c.is_control() && !(breaks && matches!(c, '\n' | '\r' | '\t')))
        .map(|(i, c)| (i + 1, c))
}

/// Every invalid field of `t`, or its name trimmed.
fn check(t: &NewTemplate) -> Result<String, Vec<FieldError>> {
    let mut errors = Vec::new();
    let name = t.name.trim();
    if name.is_empty() {
        errors.push(FieldError::new("name", codes::REQUIRED, "a template needs a name"));
    } else if name.chars().count() > MAX_NAME_CHARS {
        errors.push(FieldError::new(
            "name",
            codes::TOO_LONG,
            format!("the name has more than {MAX_NAME_CHARS} characters"),
        ));
    } else if let Some((at, c)) = control_char(name, false) {
        errors.push(FieldError::new(
            "name",
            codes::INVALID_CHARACTER,
            format!(
                "the name holds the control character U+{:04X} at character {at}",
                u32::from(c)
            ),
        ));
    }
    if t.text.trim().is_empty() {
        errors.push(FieldError::new("text", codes::REQUIRED, "a template needs a text"));
    } else if t.text.chars().count() > MAX_TEXT_CHARS {
        errors.push(FieldError::new(
            "text",
            codes::TOO_LONG,
            format!("the text has more than {MAX_TEXT_CHARS} characters"),
        ));
    } else if let Some((at, c)) = control_char(&t.text, true) {
        errors.push(FieldError::new(
            "text",
            codes::INVALID_CHARACTER,
            format!(
                "the text holds the control character U+{:04X} at character {at}, which SMS cannot carry",
                u32::from(c)
            ),
        ));
    }
    if errors.is_empty() {
        Ok(name.to_owned())
    } else {
        Err(errors)
    }
}

fn audit(action: AuditAction, actor: &str, t: &Template) -> NewAudit {
    NewAudit {
        actor: actor.into(),
        action,
        subject_type: Some("template".into()),
        subject_id: Some(t.id),
        note: None,
        details_json: Some(serde_json::json!({ "name": t.name, "text": t.text }).to_string()),
    }
}

impl Service {
    /// Every template, by name.
    pub async fn list_templates(&self) -> Result<Vec<Template>, ServiceError> {
        Ok(self.store.reader().read(table::list).await?)
    }

    /// Saves a new template (audited); its name must not be taken, whatever the case.
    pub async fn create_template(&self, caller: &Caller, t: NewTemplate) -> Result<Template, ServiceError> {
        let name = check(&t).map_err(ServiceError::Invalid)?;
        let actor = caller.actor();
        Ok(self
            .store
            .writer()
            .write(move |tx| {
                let saved = table::insert(tx, &name, &t.text, &actor)?;
                tx.audit()
                    .append(&audit(AuditAction::TemplateCreate, &actor, &saved))
                    .map_err(table::TemplateError::Store)?;
                Ok::<_, table::TemplateError>(saved)
            })
            .await?)
    }

    /// Deletes a template (audited, with its name and text). Messages keep their texts.
    pub async fn delete_template(&self, caller: &Caller, id: i64) -> Result<(), ServiceError> {
        let actor = caller.actor();
        let deleted = self
            .store
            .writer()
            .write(move |tx| {
                let Some(gone) = table::delete(tx, id)? else {
                    return Ok(None);
                };
                tx.audit().append(&audit(AuditAction::TemplateDelete, &actor, &gone))?;
                Ok::<_, crate::store::StoreError>(Some(gone))
            })
            .await?;
        match deleted {
            Some(_) => Ok(()),
            None => Err(ServiceError::NotFound(format!("template {id}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new(name: &str, text: &str) -> NewTemplate {
        NewTemplate {
            name: name.into(),
            text: text.into(),
        }
    }

    #[test]
    fn a_template_needs_a_name_and_a_text_without_control_characters() {
        assert_eq!(check(&new("  Reminder ", "See you {date}")).unwrap(), "Reminder");
        let fields = |t: NewTemplate| -> Vec<(String, String)> {
            check(&t)
                .unwrap_err()
                .into_iter()
                .map(|e| (e.field, e.code.as_str().to_owned()))
                .collect()
        };
        assert_eq!(
            fields(new(" ", " \n")),
            [("name".into(), "required".into()), ("text".into(), "required".into())]
        );
        assert_eq!(
            fields(new(&"n".repeat(MAX_NAME_CHARS + 1), &"t".repeat(MAX_TEXT_CHARS + 1))),
            [("name".into(), "too_long".into()), ("text".into(), "too_long".into())]
        );
        assert_eq!(
            fields(new("a\tb", "nul \0 here")),
            [
                ("name".into(), "invalid_character".into()),
                ("text".into(), "invalid_character".into())
            ]
        );
        assert!(
            check(&new("Lines", "line one\nline two\ttabbed")).is_ok(),
            "line breaks and tabs are text"
        );
    }
}
