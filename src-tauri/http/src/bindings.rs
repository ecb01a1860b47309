//! The TypeScript bindings the UI imports, generated from the Rust types. `cargo xtask bindings`
//! writes them to `ui/src/bindings/`; the test below fails when the committed files drift.

use ts_rs::TS;

use crate::ChangeEvent;
use smsdesk_engine::api::{ApiError, AppInfo, ErrorCode, Health, HealthStatus, RunMode, WriterHealth};
use smsdesk_engine::apikeys::{ApiKeyInfo, CreatedApiKey, NewApiKey};
use smsdesk_engine::domain::{
    AttemptOutcome, Correlation, DeliveryState, EvidenceRole, ExceptionKind, ExceptionStatus, Flag, IdSource,
    IntakeChannel, MessageKind, QueueStatus, ReceiptKind, ReceiptSource,
};
use smsdesk_engine::intake::{FieldError, SubmitMessage, SubmittedMessage};
use smsdesk_engine::operations::{Place, Spec, OPERATIONS};
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
    Activity, ActivityBucket, ActivityWindow, AttemptView, AuditEntry, AuditPage, BackupStatus, Candidate,
    CandidateFact, CandidateField, Dashboard, DayOutcomes, EvidenceItem, ExceptionCount, ExceptionDetail,
    ExceptionFilter, ExceptionPage, ExceptionSummary, ExportProgress, MessageDetail, MessageFilter, MessagePage,
    MessageRecord, MessageSummary, MessageTotal, OperatorDecision, PageRequest, PartStateView, QueueCount, QueueView,
    ReceiptView, StateCount, StateFlags, StateView, TimelineEntry, TimelineKind, TotalBound,
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
    all.push(file::<ErrorCode>());
    all.push(file::<smsdesk_engine::idempotency::IdempotencyKey>());
    all.push(operations());
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
        file::<smsdesk_engine::receipts::parse::Stat>(),
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
        file::<smsdesk_engine::access::Role>(),
        file::<smsdesk_engine::access::Scope>(),
        file::<smsdesk_engine::access::KeyLimits>(),
        file::<smsdesk_engine::access::AccountInfo>(),
        file::<smsdesk_engine::access::SessionInfo>(),
        file::<smsdesk_engine::access::Me>(),
        file::<smsdesk_engine::access::CallerKind>(),
        file::<smsdesk_engine::accounts::NewAccount>(),
        file::<smsdesk_engine::accounts::AccountChange>(),
        file::<smsdesk_engine::accounts::PasswordChange>(),
        file::<smsdesk_engine::accounts::SignIn>(),
        file::<smsdesk_engine::accounts::FirstAdmin>(),
        file::<smsdesk_engine::accounts::SetupState>(),
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
        file::<BackupStatus>(),
        file::<Activity>(),
        file::<ActivityBucket>(),
        file::<DayOutcomes>(),
        file::<smsdesk_engine::pace::Pace>(),
        file::<smsdesk_engine::pace::PaceConnection>(),
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
        file::<MessageTotal>(),
        file::<TotalBound>(),
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
        file::<smsdesk_engine::views::InboxCounts>(),
        file::<smsdesk_engine::views::InboxFilter>(),
        file::<smsdesk_engine::views::InboxMessage>(),
        file::<smsdesk_engine::views::OptOutEntry>(),
        file::<smsdesk_engine::views::OptOutFilter>(),
        file::<smsdesk_engine::views::OptOutPage>(),
        file::<smsdesk_engine::views::SentInThread>(),
        file::<smsdesk_engine::views::ThreadItem>(),
        file::<smsdesk_engine::views::ThreadPage>(),
        file::<smsdesk_engine::views::ThreadRequest>(),
        file::<smsdesk_engine::views::ThreadSummary>(),
        file::<smsdesk_engine::views::ThreadView>(),
        file::<smsdesk_engine::service::MarkRead>(),
        file::<smsdesk_engine::service::NewOptOut>(),
        file::<smsdesk_engine::service::OptOutAdded>(),
        file::<smsdesk_engine::service::OptOutCsv>(),
        file::<smsdesk_engine::service::OptOutImport>(),
        file::<smsdesk_engine::service::OptOutImported>(),
        file::<smsdesk_engine::service::RemoveOptOut>(),
        file::<smsdesk_engine::service::SandboxReply>(),
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

/// `operations.ts`: the UI's client interface, one method per operation the window has, and how
/// each travels (its window command, its HTTP method, path and arguments).
fn operations() -> (String, String) {
    let ops: Vec<&Spec> = OPERATIONS.iter().copied().filter(|s| s.window).collect();
    let mut imports: Vec<String> = ops
        .iter()
        .flat_map(|s| s.args.iter().map(|a| a.ty).chain(s.output))
        .flat_map(|ty| (ty.imports)())
        .collect();
    imports.sort();
    imports.dedup();
    let mut out = String::from(
        "// This file was generated from the engine's operation catalogue \
         (src-tauri/engine/src/operations/catalogue.rs). Do not edit this file manually.\n",
    );
    for name in &imports {
        out += &format!("import type {{ {name} }} from \"./{name}\";\n");
    }
    out += &interface(&ops);
    out += ROUTE_TYPES;
    out += "export const OPERATIONS: { readonly [K in keyof Operations]: OperationRoute } = {\n";
    for spec in &ops {
        out += &route(spec);
    }
    out += "};\n";
    ("operations.ts".into(), out)
}

/// The `Operations` interface: each operation as a method, with its doc.
fn interface(ops: &[&Spec]) -> String {
    let mut out =
        String::from("\n/** Every operation the UI can ask of the engine, over either transport. */\nexport interface Operations {\n");
    for spec in ops {
        let params: Vec<String> = spec
            .args
            .iter()
            .map(|a| {
                let optional = if a.optional() { "?" } else { "" };
                format!("{}{optional}: {}", camel(a.name), (a.ty.ts)())
            })
            .collect();
        let answer = spec.output.map_or_else(|| "void".to_owned(), |ty| (ty.ts)());
        out += &format!(
            "  /** {} */\n  {}({}): Promise<{answer}>;\n",
            one_line(spec.doc),
            camel(spec.name),
            params.join(", ")
        );
    }
    out + "}\n\n"
}

/// The types a route is described with.
const ROUTE_TYPES: &str = "/** Where an argument travels over HTTP (over IPC each is a named field). */\n\
    export type ArgPlace = \"path\" | \"query\" | \"param\" | \"body\" | \"header\";\n\n\
    export interface OperationArg {\n  readonly name: string;\n  readonly place: ArgPlace;\n  \
    readonly header?: string;\n}\n\n\
    /** How an operation travels: the window's command, or the HTTP method and path. */\n\
    export interface OperationRoute {\n  readonly command: string;\n  \
    readonly method: \"GET\" | \"POST\" | \"PATCH\";\n  readonly path: string;\n  \
    readonly args: readonly OperationArg[];\n  readonly answers: boolean;\n}\n\n";

/// One operation's entry in `OPERATIONS`.
fn route(spec: &Spec) -> String {
    let args: Vec<String> = spec
        .args
        .iter()
        .map(|a| {
            let (place, header) = match a.place {
                Place::Path => ("path", None),
                Place::Query => ("query", None),
                Place::Param => ("param", None),
                Place::Body => ("body", None),
                Place::Header(h) => ("header", Some(h)),
            };
            let header = header.map(|h| format!(", header: \"{h}\"")).unwrap_or_default();
            format!("{{ name: \"{}\", place: \"{place}\"{header} }}", camel(a.name))
        })
        .collect();
    format!(
        "  {}: {{ command: \"{}\", method: \"{}\", path: \"{}\", args: [{}], answers: {} }},\n",
        camel(spec.name),
        spec.name,
        spec.method.as_str(),
        spec.path,
        args.join(", "),
        spec.output.is_some()
    )
}

/// `snake_case` as `camelCase`.
fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// A doc comment as one line.
fn one_line(doc: &str) -> String {
    doc.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
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
