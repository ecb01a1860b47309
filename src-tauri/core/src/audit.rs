//! What the audit log records: each action by a stable word (`message.retry`,
//! `exception.resolve`), the word its `action` column stores and the screens word in the
//! operator's language.
//!
//! The engine writes only [`AuditAction`]s. A row read back is a [`RecordedAction`]: a word this
//! version does not know (written by a newer one, say) is kept as written, so the log still reads.

use std::convert::Infallible;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::domain::{TextForm, UnknownVariant};

text_enum! {
    /// An action the audit log records: an operator's, or one the engine took on its own
    /// (`actor` "system"). Its text is what the log stores: renaming one is a migration.
    AuditAction, "audit action" {
        /// A person's account was created.
        AccountCreate = "account.create",
        /// An account's role, password or state was changed.
        AccountUpdate = "account.update",
        /// An alert was acknowledged by a person: its reminders stop.
        AlertAcknowledge = "alert.acknowledge",
        /// An alert rule started to hold (the office was told).
        AlertFired = "alert.fired",
        /// An alert rule no longer holds.
        AlertResolved = "alert.resolved",
        /// An API key was created.
        ApiKeyCreate = "api_key.create",
        /// An API key was revoked.
        ApiKeyRevoke = "api_key.revoke",
        /// A connection was disabled: it sends nothing and unbinds.
        ConnectionDisable = "connection.disable",
        /// A connection was drained: it takes nothing new.
        ConnectionDrain = "connection.drain",
        /// A connection was enabled again.
        ConnectionEnable = "connection.enable",
        /// An exception was closed by new evidence, without a person.
        ExceptionClosed = "exception.closed",
        /// An exception was resolved or dismissed by a person.
        ExceptionResolve = "exception.resolve",
        /// A guardrail refused a request (details: reason, country, limit, who asked); nothing
        /// of it was stored.
        GuardrailRefused = "guardrail.refused",
        /// A receipt attached to a message whose outcome was unknown showed the SMSC had it.
        MessageAcceptedByEvidence = "message.accepted_by_evidence",
        /// A message that had not been sent was cancelled.
        MessageCancel = "message.cancel",
        /// A waiting message was held: its number opted out.
        MessageHoldOptedOut = "message.hold_opted_out",
        /// A one-time code was held: codes to its country surged (details: country, counts, key).
        MessageHoldUnusualVolume = "message.hold_unusual_volume",
        /// A message was marked failed.
        MessageMarkFailed = "message.mark_failed",
        /// A message was put back in the queue.
        MessageRetry = "message.retry",
        /// A message was sent again, accepting it may arrive twice.
        MessageRetryConfirmed = "message.retry_confirmed",
        /// A message was sent again past its kind's limits (an admin's override).
        MessageRetryOverride = "message.retry_override",
        /// A message was sent again although its last try was refused for good.
        MessageRetryPermanentConfirmed = "message.retry_permanent_confirmed",
        /// A number came off the opt-out list by its own reply (a start word).
        OptInReply = "opt_in.reply",
        /// A number was put on the opt-out list by hand.
        OptOutAdd = "opt_out.add",
        /// A number was put on the opt-out list by a CSV import.
        OptOutImport = "opt_out.import",
        /// A number was taken off the opt-out list by hand.
        OptOutRemove = "opt_out.remove",
        /// A number went on the opt-out list by its own reply (a stop word).
        OptOutReply = "opt_out.reply",
        /// A person was given everything held about a number (a subject access request).
        PrivacyAccess = "privacy.access",
        /// Everything held about a number was erased (its hash only is kept).
        PrivacyErase = "privacy.erase",
        /// Messages a stop left sending went back to the queue, or were held with an unknown outcome.
        QueueRecovered = "queue.recovered",
        /// Retention removed personal content past its period.
        RetentionRun = "retention.run",
        /// A browser's session was ended.
        SessionRevoke = "session.revoke",
        /// The configuration file was read again.
        SettingsReload = "settings.reload",
        /// Settings were changed.
        SettingsUpdate = "settings.update",
        /// An SMPP account was given a new password.
        SmppPasswordReset = "smpp.password_reset",
        /// A message an SMPP client handed in was refused for its number (opted out).
        SmppSubmitRefused = "smpp.submit_refused",
        /// A message template was saved.
        TemplateCreate = "template.create",
        /// A message template was deleted.
        TemplateDelete = "template.delete",
    }
}

/// An action as an audit row holds it: one this version writes, or a word it does not know (a
/// newer version wrote it), kept as written so the row still reads. On the wire it is the word
/// alone, as the log stores it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(untagged)]
pub enum RecordedAction {
    /// An action this version writes.
    Known(AuditAction),
    /// A word this version has no action for, as written.
    // Built through `From<&str>` or `FromStr`, which keep a known word `Known`.
    Other(String),
}

/// Described as any of the known words or another string: a known word is both, which `oneOf`
/// (what the derive would say of an untagged enum) forbids.
impl utoipa::PartialSchema for RecordedAction {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AnyOfBuilder, ObjectBuilder, Type};
        AnyOfBuilder::new()
            .item(utoipa::openapi::Ref::from_schema_name("AuditAction"))
            .item(ObjectBuilder::new().schema_type(Type::String))
            .description(Some(
                "An action this version writes, or a word a newer version wrote, as written.",
            ))
            .into()
    }
}

impl utoipa::ToSchema for RecordedAction {
    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) {
        schemas.push((
            <AuditAction as utoipa::ToSchema>::name().into_owned(),
            <AuditAction as utoipa::PartialSchema>::schema(),
        ));
    }
}

impl RecordedAction {
    /// The action, when this version knows it.
    pub fn known(&self) -> Option<AuditAction> {
        match self {
            RecordedAction::Known(a) => Some(*a),
            RecordedAction::Other(_) => None,
        }
    }

    /// The word as the log stores it.
    pub fn as_str(&self) -> &str {
        match self {
            RecordedAction::Known(a) => a.as_str(),
            RecordedAction::Other(word) => word,
        }
    }
}

impl From<AuditAction> for RecordedAction {
    fn from(a: AuditAction) -> Self {
        RecordedAction::Known(a)
    }
}

impl From<&str> for RecordedAction {
    fn from(word: &str) -> Self {
        word.parse::<AuditAction>()
            .map_or_else(|_| RecordedAction::Other(word.to_owned()), RecordedAction::Known)
    }
}

impl From<String> for RecordedAction {
    fn from(word: String) -> Self {
        match word.parse::<AuditAction>() {
            Ok(a) => RecordedAction::Known(a),
            Err(_) => RecordedAction::Other(word),
        }
    }
}

/// Every word reads: an unknown one as [`RecordedAction::Other`].
impl FromStr for RecordedAction {
    type Err = Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(s.into())
    }
}

impl fmt::Display for RecordedAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<AuditAction> for RecordedAction {
    fn eq(&self, other: &AuditAction) -> bool {
        self.known() == Some(*other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words the audit log has stored since each action was added. A row keeps its word for
    /// ever, so this list only grows.
    const STORED_WORDS: &[&str] = &[
        "account.create",
        "account.update",
        "alert.acknowledge",
        "alert.fired",
        "alert.resolved",
        "api_key.create",
        "api_key.revoke",
        "connection.disable",
        "connection.drain",
        "connection.enable",
        "exception.closed",
        "exception.resolve",
        "guardrail.refused",
        "message.accepted_by_evidence",
        "message.cancel",
        "message.hold_opted_out",
        "message.hold_unusual_volume",
        "message.mark_failed",
        "message.retry",
        "message.retry_confirmed",
        "message.retry_override",
        "message.retry_permanent_confirmed",
        "opt_in.reply",
        "opt_out.add",
        "opt_out.import",
        "opt_out.remove",
        "opt_out.reply",
        "privacy.access",
        "privacy.erase",
        "queue.recovered",
        "retention.run",
        "session.revoke",
        "settings.reload",
        "settings.update",
        "smpp.password_reset",
        "smpp.submit_refused",
        "template.create",
        "template.delete",
    ];

    #[test]
    fn every_action_keeps_the_word_the_log_stores() {
        let words: Vec<&str> = AuditAction::ALL.iter().map(|a| a.as_str()).collect();
        assert_eq!(
            words, STORED_WORDS,
            "the actions' words are those stored in the audit log, listed once each in order"
        );
    }

    #[test]
    fn every_action_reads_back_from_its_text_its_display_and_its_json() {
        for a in AuditAction::ALL {
            assert_eq!(
                a.as_str().parse::<AuditAction>(),
                Ok(*a),
                "{a} reads back from its text"
            );
            assert_eq!(a.to_string(), a.as_str(), "{a} displays as its text");
            let json = serde_json::to_string(a).unwrap();
            assert_eq!(json, format!("\"{}\"", a.as_str()), "{a} is its text in JSON");
            assert_eq!(
                serde_json::from_str::<AuditAction>(&json).unwrap(),
                *a,
                "{a} reads back from JSON"
            );
            assert_eq!(
                RecordedAction::from(a.as_str()),
                RecordedAction::Known(*a),
                "a known word is read as its action"
            );
        }
    }

    #[test]
    fn a_word_this_version_does_not_know_is_refused_as_an_action_but_kept_as_recorded() {
        let err = "message.teleport".parse::<AuditAction>().unwrap_err();
        assert_eq!(err.value, "message.teleport");
        let recorded: RecordedAction = "message.teleport".parse().unwrap();
        assert_eq!(recorded, RecordedAction::Other("message.teleport".into()));
        assert_eq!(recorded.known(), None, "an unknown word is no action of this version");
        assert_eq!(
            recorded.as_str(),
            "message.teleport",
            "an unknown word is kept as written"
        );
        assert_eq!(
            serde_json::to_string(&recorded).unwrap(),
            "\"message.teleport\"",
            "an unknown word goes to clients as written"
        );
        assert_eq!(
            serde_json::from_str::<RecordedAction>("\"message.teleport\"").unwrap(),
            recorded
        );
    }

    #[test]
    fn a_recorded_action_is_its_word_on_the_wire_and_compares_with_the_action() {
        let recorded = RecordedAction::from(String::from("message.retry"));
        assert_eq!(recorded, AuditAction::MessageRetry);
        assert_ne!(recorded, AuditAction::MessageCancel);
        assert_eq!(serde_json::to_string(&recorded).unwrap(), "\"message.retry\"");
        assert_eq!(
            serde_json::from_str::<RecordedAction>("\"message.retry\"").unwrap(),
            RecordedAction::Known(AuditAction::MessageRetry),
            "a known word on the wire reads as its action"
        );
        assert_eq!(recorded.to_string(), "message.retry");
    }

    #[test]
    fn a_recorded_action_is_described_as_any_of_the_known_words_or_another_word() {
        let schema = serde_json::to_value(<RecordedAction as utoipa::PartialSchema>::schema()).unwrap();
        assert!(
            schema["anyOf"].is_array() && schema.get("oneOf").is_none(),
            "a known word is both a known word and a string, which oneOf would refuse: {schema}"
        );
        assert_eq!(
            schema["anyOf"][0]["$ref"], "#/components/schemas/AuditAction",
            "{schema}"
        );
        assert_eq!(schema["anyOf"][1]["type"], "string", "{schema}");
    }
}
