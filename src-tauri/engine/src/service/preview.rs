//! Checking messages as a submit would, writing nothing: the compose form's live counter and a
//! CSV import's preview.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::submit::{check_batch_size, SubmitBatch};
use super::{Live, Service, ServiceError};
use crate::domain::IntakeChannel;
use crate::guardrails::{countries, pricing};
use crate::intake::{self, FieldError, IntakeRules, SubmitMessage, Templates};
use crate::sms::smart::smarten;
use smsdesk_core::config::Money;

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
    /// list for the message's kind is one (`destination_opted_out`), as is a country the office
    /// does not send it to (`country_not_allowed`): a submit would be refused.
    pub errors: Vec<FieldError>,
    /// What it would cost on the connection it would be queued for (parts times its price), in
    /// the preview's `currency`, such as "0.090"; None when no price covers it.
    pub cost: Option<String>,
    /// What smart encoding replaced (None when the text goes as written): `plan` is the text as
    /// sent, this the text as handed in.
    pub smart: Option<SmartNote>,
}

/// Typographic characters replaced by smart encoding, and what the text would have taken without.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SmartNote {
    /// How many characters were replaced.
    pub replaced: u32,
    /// Each character replaced, once, in the order they first appear ("’«»").
    pub characters: String,
    /// The text as handed in.
    pub text_as_given: String,
    /// Its plan, as it would have gone without smart encoding.
    pub before: crate::sms::encoding::Plan,
}

/// The answer to a preview, one row per message in the order given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct Preview {
    pub rows: Vec<PreviewRow>,
    /// The currency of the costs (`guardrails.currency`).
    pub currency: String,
    /// What the rows that would be accepted would cost together, when any has a price.
    pub total_cost: Option<String>,
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
        let total: Vec<i64> = rows
            .iter()
            .filter(|r| r.errors.is_empty())
            .filter_map(|r| r.cost.as_deref().and_then(|c| Money::parse(c).ok()).map(|m| m.0))
            .collect();
        Ok(Preview {
            rows,
            currency: rules.guardrails.currency.clone(),
            total_cost: (!total.is_empty()).then(|| Money(total.iter().sum()).text()),
        })
    }
}

/// One message's row: where it would go and how it would be sent, or what is wrong with it (with
/// the destination and the text's plan still shown when they can be worked out).
fn preview_row(index: usize, m: &SubmitMessage, templates: &Templates, rules: &IntakeRules, now: i64) -> PreviewRow {
    let given = intake::message_text(m, templates).ok().filter(|t| !t.is_empty());
    let smart = given
        .as_deref()
        .map(|t| (t, smarten(t, m.smart_encoding.unwrap_or(rules.smart_encoding))));
    let plan = smart.as_ref().map(|(_, s)| crate::sms::encoding::plan(&s.text));
    let text = smart
        .as_ref()
        .filter(|_| intake::names_template(m))
        .map(|(_, s)| s.text.clone());
    let smart = smart
        .filter(|(_, s)| !s.replaced.is_empty())
        .map(|(given, s)| SmartNote {
            replaced: s.replaced.len() as u32,
            characters: crate::sms::smart::characters(&s.replaced),
            text_as_given: given.to_owned(),
            before: crate::sms::encoding::plan(given),
        });
    // Checked as an import or an integration's submit is: a past `scheduled_at` means now. (The
    // compose form, where it is refused, checks a past time itself.)
    match intake::validate_with(m, templates, IntakeChannel::Csv, rules, now) {
        Ok(mut n) => {
            // Routed and priced as a submit would; a country the office does not send it to is
            // said now, not at the submit.
            let routed = intake::route(&mut n, &rules.routes, None).is_ok();
            let mut errors = Vec::new();
            let country = n.country.clone().unwrap_or_default();
            if let Some(whose) = countries::refused_by(&rules.guardrails, None, n.kind, &country) {
                errors.push(countries::not_allowed(0, 1, &n, whose));
            }
            pricing::price_each(std::slice::from_mut(&mut n), rules);
            let cost = (routed && !n.prices.is_empty()).then(|| Money(pricing::cost(&n)).text());
            PreviewRow {
                index,
                destination: Some(n.destination),
                text,
                plan,
                errors,
                cost,
                smart,
            }
        }
        Err(errors) => PreviewRow {
            index,
            destination: intake::normalize_destination(&m.destination, rules.default_region.as_deref()).ok(),
            text,
            plan,
            errors,
            cost: None,
            smart,
        },
    }
}
