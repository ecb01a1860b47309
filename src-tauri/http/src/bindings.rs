//! The TypeScript bindings the UI imports, generated from the Rust types. `cargo xtask bindings`
//! writes them to `ui/src/bindings/`; the test below fails when the committed files drift.

use ts_rs::TS;

use crate::ChangeEvent;
use smsdesk_engine::api::{ApiError, AppInfo, Health, HealthStatus, RunMode, WriterHealth};
use smsdesk_engine::apikeys::{ApiKeyInfo, CreatedApiKey, NewApiKey};
use smsdesk_engine::domain::{
    AttemptOutcome, Correlation, DeliveryState, EvidenceRole, ExceptionKind, ExceptionStatus, Flag, IdSource,
    IntakeChannel, MessageKind, QueueStatus, ReceiptKind, ReceiptSource,
};
use smsdesk_engine::intake::{FieldError, SubmitMessage, SubmittedMessage};
use smsdesk_engine::receipts::rules::Rule;
use smsdesk_engine::service::{
    CallbackAnswer, ConnectionStatus, MessageAction, Preview, PreviewRow, ResolveRequest, SubmitBatch, SubmittedBatch,
};
use smsdesk_engine::settings::{
    Applies, ConnectionTest, ConnectionTestResult, GeneratedSecret, ProviderEdit, ProviderView, SecretBackend,
    SettingChange, SettingField, SettingKind, SettingSource, SettingsSaved, SettingsUpdate, SettingsView, TestOutcome,
};
use smsdesk_engine::smpp::session::LinkState;
use smsdesk_engine::sms::encoding::{Encoding, Plan};
use smsdesk_engine::views::{
    Activity, ActivityBucket, ActivityWindow, AttemptView, AuditEntry, AuditPage, Candidate, CandidateFact,
    CandidateField, Dashboard, DayOutcomes, EvidenceItem, ExceptionCount, ExceptionDetail, ExceptionFilter,
    ExceptionPage, ExceptionSummary, ExportProgress, MessageDetail, MessageFilter, MessagePage, MessageRecord,
    MessageSummary, OperatorDecision, PageRequest, PartStateView, QueueCount, QueueView, ReceiptView, StateCount,
    StateFlags, StateView, TimelineEntry, TimelineKind,
};
use smsdesk_engine::webhooks::{DeliveryAttemptView, DeliveryView, WebhookField, WebhookStatus};

/// Where the generated files live, relative to the repository root.
pub const DIR: &str = "ui/src/bindings";

fn file<T: TS + 'static>() -> (String, String) {
    let text = T::export_to_string().unwrap_or_else(|e| panic!("cannot render {}: {e}", T::name()));
    (format!("{}.ts", T::name()), text)
}

/// Every generated file: (file name, contents), sorted by name.
pub fn files() -> Vec<(String, String)> {
    let mut all = [vocabulary(), instance_and_intake(), views(), settings()].concat();
    all.sort();
    all
}

/// The closed vocabularies: what the UI's label tables are keyed by.
fn vocabulary() -> Vec<(String, String)> {
    vec![
        file::<MessageKind>(),
        file::<QueueStatus>(),
        file::<DeliveryState>(),
        file::<ExceptionKind>(),
        file::<ExceptionStatus>(),
        file::<AttemptOutcome>(),
        file::<ReceiptSource>(),
        file::<ReceiptKind>(),
        file::<IntakeChannel>(),
        file::<Correlation>(),
        file::<IdSource>(),
        file::<Flag>(),
        file::<EvidenceRole>(),
        file::<Rule>(),
        file::<WebhookField>(),
        file::<WebhookStatus>(),
        file::<Encoding>(),
        file::<TimelineKind>(),
        file::<ActivityWindow>(),
    ]
}

/// The instance, its keys and link, and what handing messages in takes and answers.
fn instance_and_intake() -> Vec<(String, String)> {
    vec![
        file::<AppInfo>(),
        file::<RunMode>(),
        file::<Health>(),
        file::<HealthStatus>(),
        file::<WriterHealth>(),
        file::<ApiError>(),
        file::<ApiKeyInfo>(),
        file::<CreatedApiKey>(),
        file::<NewApiKey>(),
        file::<ChangeEvent>(),
        file::<FieldError>(),
        file::<SubmitMessage>(),
        file::<SubmittedMessage>(),
        file::<CallbackAnswer>(),
        file::<ConnectionStatus>(),
        file::<Preview>(),
        file::<PreviewRow>(),
        file::<Plan>(),
        file::<LinkState>(),
        file::<MessageAction>(),
        file::<ResolveRequest>(),
        file::<SubmitBatch>(),
        file::<SubmittedBatch>(),
    ]
}

/// The read models the screens show.
fn views() -> Vec<(String, String)> {
    vec![
        file::<AttemptView>(),
        file::<AuditEntry>(),
        file::<AuditPage>(),
        file::<ExportProgress>(),
        file::<Dashboard>(),
        file::<Activity>(),
        file::<ActivityBucket>(),
        file::<DayOutcomes>(),
        file::<EvidenceItem>(),
        file::<ExceptionCount>(),
        file::<ExceptionDetail>(),
        file::<ExceptionFilter>(),
        file::<ExceptionPage>(),
        file::<ExceptionSummary>(),
        file::<MessageDetail>(),
        file::<MessageFilter>(),
        file::<MessagePage>(),
        file::<MessageRecord>(),
        file::<MessageSummary>(),
        file::<OperatorDecision>(),
        file::<PageRequest>(),
        file::<QueueCount>(),
        file::<QueueView>(),
        file::<ReceiptView>(),
        file::<StateCount>(),
        file::<StateFlags>(),
        file::<StateView>(),
        file::<PartStateView>(),
        file::<Candidate>(),
        file::<CandidateFact>(),
        file::<CandidateField>(),
        file::<TimelineEntry>(),
        file::<DeliveryAttemptView>(),
        file::<DeliveryView>(),
    ]
}

/// The Settings screen.
fn settings() -> Vec<(String, String)> {
    vec![
        file::<Applies>(),
        file::<ConnectionTest>(),
        file::<ConnectionTestResult>(),
        file::<GeneratedSecret>(),
        file::<ProviderEdit>(),
        file::<ProviderView>(),
        file::<SecretBackend>(),
        file::<SettingChange>(),
        file::<SettingField>(),
        file::<SettingKind>(),
        file::<SettingSource>(),
        file::<SettingsSaved>(),
        file::<SettingsUpdate>(),
        file::<SettingsView>(),
        file::<TestOutcome>(),
    ]
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    #[test]
    fn committed_typescript_bindings_match_the_rust_types() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(super::DIR);
        let mut problems = Vec::new();
        let expected = super::files();
        for (name, text) in &expected {
            match std::fs::read_to_string(dir.join(name)) {
                Ok(found) if &found == text => {}
                Ok(_) => problems.push(format!("{name} differs")),
                Err(_) => problems.push(format!("{name} is missing")),
            }
        }
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !expected.iter().any(|(n, _)| *n == name) {
                problems.push(format!("{name} is not generated from any Rust type"));
            }
        }
        assert!(
            problems.is_empty(),
            "ui/src/bindings has drifted from the Rust types ({}); run `cargo xtask bindings` and commit",
            problems.join("; ")
        );
    }
}
