//! Checking messages as a submit would, writing nothing: the compose form's live counter and a
//! CSV import's preview.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::submit::{check_batch_size, SubmitBatch};
use super::{Live, Service, ServiceError};
use crate::domain::IntakeChannel;
use crate::intake::{self, FieldError, IntakeRules, SubmitMessage, Templates};

/// What one message of a preview would be, or why it would be refused; nothing is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct PreviewRow {
    /// Its place in the request, from 0.
    #[ts(type = "number")]
    pub index: usize,
    /// The number as it would be sent (E.164), when it is valid.
    pub destination: Option<String>,
    /// For a message naming a template: its text filled with the message's values, as it would
    /// be sent, when every placeholder has one (even if other fields are invalid). None for a
    /// message given its text.
    pub text: Option<String>,
    /// The text's encoding, size and parts (a template's once filled), whenever there is a text
    /// (even if other fields are invalid): what a live counter shows.
    pub plan: Option<crate::sms::encoding::Plan>,
    /// Every invalid field; empty when the message would be accepted. A number on the opt-out
    /// list for the message's kind is one (`destination_opted_out`): a submit would be refused.
    pub errors: Vec<FieldError>,
}

/// The answer to a preview, one row per message in the order given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct Preview {
    pub rows: Vec<PreviewRow>,
}

impl Service {
    /// Checks messages as a submit would, writing nothing: for the compose form's live counter
    /// and a CSV import's preview. At most `intake.max_batch` at once.
    pub async fn preview(&self, req: &SubmitBatch) -> Result<Preview, ServiceError> {
        let Live { rules, max_batch, .. } = self.live();
        check_batch_size("a preview", req.messages.len(), max_batch)?;
        let templates = self.templates_for(&req.messages).await?;
        let now = self.clock().now_ms();
        let mut rows: Vec<PreviewRow> = req
            .messages
            .iter()
            .enumerate()
            .map(|(index, m)| preview_row(index, m, &templates, &rules, now))
            .collect();
        // Valid messages to numbers on the opt-out list, read in one snapshot.
        let wanted: Vec<(usize, String, crate::domain::MessageKind)> = rows
            .iter()
            .filter(|r| r.errors.is_empty())
            .filter_map(|r| {
                let kind = req.messages[r.index]
                    .kind
                    .unwrap_or(crate::domain::MessageKind::Transactional);
                r.destination.clone().map(|d| (r.index, d, kind))
            })
            .collect();
        if !wanted.is_empty() {
            let blocked = self
                .store
                .reader()
                .read(move |c| {
                    let mut out = Vec::new();
                    for (index, phone, kind) in wanted {
                        if crate::optouts::blocks(c, &phone, kind)?.is_some() {
                            out.push((index, phone, kind));
                        }
                    }
                    Ok::<_, crate::store::StoreError>(out)
                })
                .await?;
            for (index, phone, kind) in blocked {
                rows[index]
                    .errors
                    .push(super::submit::opted_out_error("destination", &phone, kind));
            }
        }
        Ok(Preview { rows })
    }
}

/// One message's row: where it would go and how it would be sent, or what is wrong with it (with
/// the destination and the text's plan still shown when they can be worked out).
fn preview_row(index: usize, m: &SubmitMessage, templates: &Templates, rules: &IntakeRules, now: i64) -> PreviewRow {
    let text = intake::message_text(m, templates).ok();
    let plan = text
        .as_deref()
        .filter(|t| !t.is_empty())
        .map(crate::sms::encoding::plan);
    let text = text.filter(|_| intake::names_template(m)).map(|t| t.into_owned());
    // Checked as an import or an integration's submit is: a past `scheduled_at` means now. (The
    // compose form, where it is refused, checks a past time itself.)
    match intake::validate_with(m, templates, IntakeChannel::Csv, rules, now) {
        Ok(n) => PreviewRow {
            index,
            destination: Some(n.destination),
            text,
            plan,
            errors: Vec::new(),
        },
        Err(errors) => PreviewRow {
            index,
            destination: intake::normalize_destination(&m.destination, rules.default_region.as_deref()).ok(),
            text,
            plan,
            errors,
        },
    }
}
