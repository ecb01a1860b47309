//! A message handed in by template: the template's text filled with the message's values (by
//! core's `template::fill`, the one reading of placeholders), then checked as any text is.

use std::borrow::Cow;

use smsdesk_core::template::{fill, Template};

use super::{codes, quote, FieldError, SubmitMessage};

/// The office's templates, as intake finds them by name.
#[derive(Debug, Clone, Default)]
pub struct Templates(Vec<Template>);

impl Templates {
    pub fn new(all: Vec<Template>) -> Templates {
        Templates(all)
    }

    /// The template named `name`: the one spelt so, else the one whose name differs in case
    /// only (names are unique whatever their case).
    pub fn find(&self, name: &str) -> Option<&Template> {
        self.0
            .iter()
            .find(|t| t.name == name)
            .or_else(|| self.0.iter().find(|t| t.name.eq_ignore_ascii_case(name)))
    }
}

/// Whether `req` names a template (a blank name counts as none, as a blank CSV cell does).
pub fn names_template(req: &SubmitMessage) -> bool {
    template_name(req).is_some()
}

fn template_name(req: &SubmitMessage) -> Option<&str> {
    req.template.as_deref().map(str::trim).filter(|n| !n.is_empty())
}

/// The text `req` is sent with: its own, or its template's filled with its values; or every
/// problem with what it gives instead (the text itself is checked after).
pub fn message_text<'a>(req: &'a SubmitMessage, templates: &Templates) -> Result<Cow<'a, str>, Vec<FieldError>> {
    let given_values = req.values.as_ref().is_some_and(|v| !v.is_empty());
    let Some(name) = template_name(req) else {
        if given_values {
            return Err(vec![FieldError::new(
                "values",
                codes::CONFLICT,
                "values fill the placeholders of a template: name it with template, or leave values out",
            )]);
        }
        return Ok(Cow::Borrowed(&req.text));
    };
    if !req.text.is_empty() {
        let both = "give text or template, not both";
        return Err(vec![
            FieldError::new("text", codes::CONFLICT, both),
            FieldError::new("template", codes::CONFLICT, both),
        ]);
    }
    let Some(template) = templates.find(name) else {
        return Err(vec![FieldError::new(
            "template",
            codes::UNKNOWN_TEMPLATE,
            format!("no template is named {}: GET /api/v1/templates lists them", quote(name)),
        )
        .with("name", name)]);
    };
    let value = |placeholder: &str| {
        req.values
            .as_ref()
            .and_then(|v| v.get(placeholder))
            .map(String::as_str)
            .filter(|v| !v.trim().is_empty())
    };
    fill(&template.text, value).map(Cow::Owned).map_err(|missing| {
        missing
            .into_iter()
            .map(|placeholder| {
                FieldError::new(
                    "values",
                    codes::TEMPLATE_VALUE_MISSING,
                    format!(
                        "the template {} has {{{placeholder}}} and values give it none",
                        quote(&template.name)
                    ),
                )
                .with("placeholder", placeholder)
                .with("template", &template.name)
            })
            .collect()
    })
}
