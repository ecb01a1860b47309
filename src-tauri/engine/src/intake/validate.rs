//! The field checks, gathered into one verdict per message.

use crate::clock::{format_rfc3339, parse_rfc3339};
use crate::domain::{IntakeChannel, MessageKind};
use crate::messages::{NewMessage, DEFAULT_PRIORITY};
use crate::sms::encoding::{plan, Encoding};
use crate::sms::smart::{smarten, to_stored};

use super::template::{message_text, Templates};
use super::{
    codes, quote, read_destination, FieldError, IntakeRules, SubmitMessage, MAX_AHEAD_DAYS, MAX_CLIENT_REF_CHARS,
    MAX_ORDERING_KEY_CHARS,
};

const DAY_MS: i64 = 86_400_000;
const TIME_EXAMPLE: &str = "write it like \"2026-12-01T10:00:00Z\" (UTC) or \"2026-12-01T12:00:00+02:00\"";

/// Checks a submitted message and builds the message to queue, or says everything wrong with it,
/// field by field, in the order of [`SubmitMessage`]'s fields. No template is known: a message
/// naming one is refused (see [`validate_with`]).
pub fn validate(
    req: &SubmitMessage,
    channel: IntakeChannel,
    rules: &IntakeRules,
    now_ms: i64,
) -> Result<NewMessage, Vec<FieldError>> {
    validate_with(req, &Templates::default(), channel, rules, now_ms)
}

/// [`validate`], a message naming a template being sent with the template's text filled with
/// its values.
pub fn validate_with(
    req: &SubmitMessage,
    templates: &Templates,
    channel: IntakeChannel,
    rules: &IntakeRules,
    now_ms: i64,
) -> Result<NewMessage, Vec<FieldError>> {
    let mut errors = Vec::new();
    let e = &mut errors;
    let destination = keep(e, read_destination(&req.destination, rules.default_region.as_deref()));
    let text = message_text(req, templates).map_err(|es| e.extend(es)).ok();
    // Typographic characters replaced (or not) before the text is checked and split.
    let smart = text.map(|t| smarten(&t, req.smart_encoding.unwrap_or(rules.smart_encoding)));
    let smart = smart.filter(|s| keep(e, check_text(&s.text, rules.max_segments)).is_some());
    let priority = keep(e, check_priority(req.priority));
    // A person who picks a send time in the compose form means it: a time already past is a
    // mistake to point out, not "now".
    let past_is_now = channel != IntakeChannel::Compose;
    let scheduled_at = keep(e, check_scheduled_at(req.scheduled_at.as_deref(), now_ms, past_is_now)).flatten();
    let valid_until = check_validity(req, scheduled_at.unwrap_or(now_ms), now_ms, e);
    let ordering_key = keep(e, check_key("ordering_key", &req.ordering_key, MAX_ORDERING_KEY_CHARS));
    let client_ref = keep(e, check_key("client_ref", &req.client_ref, MAX_CLIENT_REF_CHARS));

    match (destination, smart, priority, ordering_key, client_ref) {
        (Some((destination, country)), Some(smart), Some(priority), Some(ordering_key), Some(client_ref))
            if errors.is_empty() =>
        {
            let kind = req.kind.unwrap_or(MessageKind::Transactional);
            let mut m = NewMessage::text(channel, &destination, &smart.text, kind, &rules.connection);
            m.smart_replaced = to_stored(&smart.replaced);
            m.country = Some(country.unwrap_or_default());
            m.destination_raw = req.destination.clone();
            m.priority = priority;
            // Every one-time code has a validity: the one given, else the configured age from
            // its send time. It is never sent after it.
            m.valid_until = match (valid_until, kind) {
                (None, MessageKind::Otp) => Some(scheduled_at.unwrap_or(now_ms) + rules.otp_validity_ms),
                (given, _) => given,
            };
            m.scheduled_at = scheduled_at;
            m.ordering_key = ordering_key;
            m.client_ref = client_ref;
            m.registered_delivery = rules.registered_delivery[kind.priority() as usize];
            Ok(m)
        }
        _ => Err(errors),
    }
}

fn check_text(text: &str, max_segments: u32) -> Result<(), FieldError> {
    let error = |code, message: String| Err(FieldError::new("text", code, message));
    if text.is_empty() {
        return error(
            codes::REQUIRED,
            "text is required (or a template to fill): it is empty or missing".to_string(),
        );
    }
    if text.trim().is_empty() {
        return error(
            codes::REQUIRED,
            "text has only spaces or blank lines: there is nothing to send".to_string(),
        );
    }
    if let Some((at, c)) = text
        .chars()
        .enumerate()
        .find(|&(_, c)| c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\u{c}'))
    {
        let message = format!(
            "text holds the control character U+{:04X} at character {}, which SMS cannot carry; remove it",
            u32::from(c),
            at + 1
        );
        let e = FieldError::new("text", codes::INVALID_CHARACTER, message);
        return Err(e.with("char", format!("U+{:04X}", u32::from(c))).with("at", at + 1));
    }
    let p = plan(text);
    if p.segments > max_segments {
        let why = match p.encoding {
            Encoding::Gsm7 => format!("GSM 7-bit, {} characters a segment", p.encoding.part_capacity()),
            Encoding::Ucs2 => {
                let culprit = text.chars().find(|c| plan(&c.to_string()).encoding == Encoding::Ucs2);
                let because = culprit.map(|c| format!(" because of {c:?}")).unwrap_or_default();
                format!("UCS-2{because}, {} characters a segment", p.encoding.part_capacity())
            }
        };
        let message = format!(
            "text would take {} SMS segments ({why}); at most {max_segments} are allowed",
            p.segments
        );
        let e = FieldError::new("text", codes::TOO_LONG, message);
        return Err(e.with("parts", p.segments).with("max", max_segments));
    }
    Ok(())
}

fn check_priority(priority: Option<u8>) -> Result<u8, FieldError> {
    match priority {
        None => Ok(DEFAULT_PRIORITY),
        Some(p) if p <= 9 => Ok(p),
        Some(p) => Err(FieldError::new(
            "priority",
            codes::OUT_OF_RANGE,
            format!("priority {p} is out of range: use 0 (sent first) to 9 (sent last) within the message's kind"),
        )
        .with("min", 0)
        .with("max", 9)),
    }
}

fn timestamp(field: &str, text: &str) -> Result<i64, FieldError> {
    parse_rfc3339(text).map_err(|e| {
        FieldError::new(
            field,
            codes::INVALID_TIME,
            format!(
                "{field} {} is not an RFC 3339 timestamp: {e}; {TIME_EXAMPLE}",
                quote(text)
            ),
        )
    })
}

/// The scheduled send time, or None when the message goes now; a time at or before now means now
/// when `past_is_now`, and is refused otherwise.
fn check_scheduled_at(text: Option<&str>, now_ms: i64, past_is_now: bool) -> Result<Option<i64>, FieldError> {
    let Some(text) = text else { return Ok(None) };
    let at = timestamp("scheduled_at", text)?;
    if at <= now_ms && !past_is_now {
        return Err(FieldError::new(
            "scheduled_at",
            codes::IN_PAST,
            format!(
                "scheduled_at {} has already passed (it is now {}): choose a later time, or none to send it now",
                quote(text),
                format_rfc3339(now_ms)
            ),
        ));
    }
    if at > now_ms + MAX_AHEAD_DAYS * DAY_MS {
        return Err(FieldError::new(
            "scheduled_at",
            codes::OUT_OF_RANGE,
            format!("scheduled_at {} is more than {MAX_AHEAD_DAYS} days ahead", quote(text)),
        )
        .with("days", MAX_AHEAD_DAYS));
    }
    Ok((at > now_ms).then_some(at))
}

/// The time the message stops being worth sending; problems go to `errors`.
fn check_validity(req: &SubmitMessage, send_at: i64, now_ms: i64, errors: &mut Vec<FieldError>) -> Option<i64> {
    let longest = MAX_AHEAD_DAYS * DAY_MS;
    match (req.valid_until.as_deref(), req.validity_seconds) {
        (None, None) => None,
        (Some(_), Some(_)) => {
            let both = "give valid_until or validity_seconds, not both";
            errors.push(FieldError::new("valid_until", codes::CONFLICT, both));
            errors.push(FieldError::new("validity_seconds", codes::CONFLICT, both));
            None
        }
        (Some(text), None) => {
            let outcome = timestamp("valid_until", text).and_then(|until| {
                let error = |code, message| Err(FieldError::new("valid_until", code, message));
                if until <= now_ms {
                    error(
                        codes::IN_PAST,
                        format!(
                            "valid_until {} has already passed (it is now {})",
                            quote(text),
                            format_rfc3339(now_ms)
                        ),
                    )
                } else if until <= send_at {
                    error(
                        codes::CONFLICT,
                        format!(
                            "valid_until {} is not after scheduled_at ({}): the message would expire before it is sent",
                            quote(text),
                            format_rfc3339(send_at)
                        ),
                    )
                } else if until - send_at > longest {
                    error(
                        codes::OUT_OF_RANGE,
                        format!(
                            "valid_until {} is more than {MAX_AHEAD_DAYS} days after the message's send time",
                            quote(text)
                        ),
                    )
                    .map_err(|e: FieldError| e.with("days", MAX_AHEAD_DAYS))
                } else {
                    Ok(until)
                }
            });
            keep(errors, outcome)
        }
        (None, Some(seconds)) => {
            let ms = i64::from(seconds) * 1_000;
            if seconds == 0 || ms > longest {
                errors.push(
                    FieldError::new(
                        "validity_seconds",
                        codes::OUT_OF_RANGE,
                        format!(
                            "validity_seconds {seconds} is out of range: use 1 to {} ({MAX_AHEAD_DAYS} days)",
                            longest / 1_000
                        ),
                    )
                    .with("min", 1)
                    .with("max", longest / 1_000),
                );
                None
            } else {
                Some(send_at + ms)
            }
        }
    }
}

/// The value when it is good; its error goes with the others when not.
fn keep<T>(errors: &mut Vec<FieldError>, result: Result<T, FieldError>) -> Option<T> {
    result.map_err(|e| errors.push(e)).ok()
}

/// An optional short key: empty counts as absent, longer than `max` characters is refused, and so
/// is any control character (Unicode `Cc`: NUL, ESC, CR, LF, tab, DEL, C1): the key is repeated in
/// logs, lists, exports and webhooks, where such a character hides or forges what follows it.
fn check_key(field: &str, value: &Option<String>, max: usize) -> Result<Option<String>, FieldError> {
    match value.as_deref() {
        None | Some("") => Ok(None),
        Some(v) => {
            let chars = v.chars().count();
            if let Some((at, c)) = v.chars().enumerate().find(|&(_, c)| c.is_control()) {
                Err(FieldError::new(
                    field,
                    codes::INVALID_CHARACTER,
                    format!(
                        "{field} holds the control character U+{:04X} at character {}; use printable characters only",
                        u32::from(c),
                        at + 1
                    ),
                )
                .with("char", format!("U+{:04X}", u32::from(c)))
                .with("at", at + 1))
            } else if chars > max {
                Err(FieldError::new(
                    field,
                    codes::TOO_LONG,
                    format!(
                        "{field} {} is {chars} characters long; at most {max} are allowed",
                        quote(v)
                    ),
                )
                .with("max", max))
            } else {
                Ok(Some(v.to_owned()))
            }
        }
    }
}
