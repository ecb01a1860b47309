//! IPC commands: one-line adapters over the engine's [`Service`], the same functions the HTTP
//! routes call. The window is the operator (`Caller::window()`), and what it hands in was composed
//! by a person (`IntakeChannel::Compose`) or imported from a CSV file (`IntakeChannel::Csv`). Errors cross as the HTTP API's `ApiError`, with the
//! same codes.
//!
//! Each command is named for its operation in the engine's catalogue
//! (`smsdesk_engine::operations`), with the catalogue's argument names: the shell registers them
//! from the catalogue, and the build script grants the window exactly those (plus the export's
//! and the desktop's own, in capabilities/default.json).

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use smsdesk_engine::api::{ApiError, AppInfo};
use smsdesk_engine::apikeys::{ApiKeyInfo, Caller, CreatedApiKey, NewApiKey};
use smsdesk_engine::domain::IntakeChannel;
use smsdesk_engine::intake::{SubmitMessage, SubmittedMessage};
use smsdesk_engine::pace::Pace;
use smsdesk_engine::service::{
    CandidateComparison, CompareCandidates, ConnectionAction, ConnectionStatus, MessageAction, Preview, ResolveRequest,
    SubmitBatch, SubmittedBatch,
};
use smsdesk_engine::settings::{
    ConnectionTest, ConnectionTestResult, ConnectionsUpdate, ConnectionsView, SettingsSaved, SettingsUpdate,
    SettingsView,
};
use smsdesk_engine::smpp_server::{CreatedSmppAccount, NewSmppAccount, SmppAccountInfo, SmppServerStatus};
use smsdesk_engine::views::{
    Activity, ActivityWindow, AuditPage, Dashboard, DeliveryReport, ExceptionDetail, ExceptionFilter, ExceptionPage,
    MessageDetail, MessageFilter, MessagePage, PageRequest, ReportQuery,
};
use tauri::{AppHandle, Emitter, State};

use crate::state::{refused, EngineState, Reply};

// The commands about people live beside these, registered the same way.
pub use crate::alerts::*;
pub use crate::inbox::*;
pub use crate::people::*;
pub use crate::privacy::*;
pub use crate::templates::*;

#[tauri::command]
pub fn info(engine: State<'_, EngineState>) -> Reply<AppInfo> {
    engine.info()
}

#[tauri::command]
pub async fn submit_message(
    engine: State<'_, EngineState>,
    message: SubmitMessage,
    idempotency_key: Option<String>,
) -> Reply<SubmittedMessage> {
    Ok((engine.service()?)
        .submit(&Caller::window(), IntakeChannel::Compose, message, idempotency_key)
        .await
        .map_err(refused)?
        .value)
}

/// Hands in several messages at once, all or none: the window's CSV import
/// (`IntakeChannel::Csv`), one idempotency key per chunk so a retried import queues nothing twice.
#[tauri::command]
pub async fn submit_batch(
    engine: State<'_, EngineState>,
    batch: SubmitBatch,
    idempotency_key: Option<String>,
) -> Reply<SubmittedBatch> {
    Ok((engine.service()?)
        .submit_batch(&Caller::window(), IntakeChannel::Csv, batch, idempotency_key)
        .await
        .map_err(refused)?
        .value)
}

/// Checks messages as a submit would and writes nothing (the compose counter, the CSV preview).
/// Async so that a large preview does not hold up the window's main thread.
#[tauri::command]
pub async fn preview_messages(engine: State<'_, EngineState>, batch: SubmitBatch) -> Reply<Preview> {
    engine.service()?.preview(&batch).await.map_err(refused)
}

#[tauri::command]
pub async fn list_messages(engine: State<'_, EngineState>, filter: MessageFilter) -> Reply<MessagePage> {
    engine
        .service()?
        .list_messages(&Caller::window(), filter)
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn message(engine: State<'_, EngineState>, id: i64) -> Reply<MessageDetail> {
    engine.service()?.message(&Caller::window(), id).await.map_err(refused)
}

#[tauri::command]
pub async fn retry(engine: State<'_, EngineState>, id: i64, action: MessageAction) -> Reply<()> {
    engine
        .service()?
        .retry(&Caller::window(), id, action)
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn cancel(engine: State<'_, EngineState>, id: i64, action: MessageAction) -> Reply<()> {
    engine
        .service()?
        .cancel(&Caller::window(), id, action)
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn list_exceptions(engine: State<'_, EngineState>, filter: ExceptionFilter) -> Reply<ExceptionPage> {
    engine.service()?.list_exceptions(filter).await.map_err(refused)
}

#[tauri::command]
pub async fn exception(engine: State<'_, EngineState>, id: i64) -> Reply<ExceptionDetail> {
    engine.service()?.exception(id).await.map_err(refused)
}

#[tauri::command]
pub async fn compare_candidates(
    engine: State<'_, EngineState>,
    id: i64,
    candidates: CompareCandidates,
) -> Reply<CandidateComparison> {
    engine
        .service()?
        .compare_candidates(id, candidates)
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn resolve(engine: State<'_, EngineState>, id: i64, request: ResolveRequest) -> Reply<()> {
    engine
        .service()?
        .resolve(&Caller::window(), id, request)
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn dashboard(engine: State<'_, EngineState>) -> Reply<Dashboard> {
    engine.service()?.dashboard().await.map_err(refused)
}

#[tauri::command]
pub async fn activity(engine: State<'_, EngineState>, window: ActivityWindow) -> Reply<Activity> {
    engine.service()?.activity(window).await.map_err(refused)
}

#[tauri::command]
pub async fn delivery_report(engine: State<'_, EngineState>, query: ReportQuery) -> Reply<DeliveryReport> {
    engine.service()?.delivery_report(query).await.map_err(refused)
}

#[tauri::command]
pub async fn guardrails(engine: State<'_, EngineState>) -> Reply<smsdesk_engine::service::GuardrailsOverview> {
    engine.service()?.guardrails_overview().await.map_err(refused)
}

#[tauri::command]
pub async fn spend_report(
    engine: State<'_, EngineState>,
    query: smsdesk_engine::service::SpendQuery,
) -> Reply<smsdesk_engine::service::SpendReport> {
    engine.service()?.spend_report(query).await.map_err(refused)
}

#[tauri::command]
pub async fn nodes(engine: State<'_, EngineState>) -> Reply<Vec<smsdesk_engine::nodes::NodeView>> {
    engine.service()?.nodes().await.map_err(refused)
}

#[tauri::command]
pub async fn pace(engine: State<'_, EngineState>) -> Reply<Pace> {
    engine.service()?.pace().await.map_err(refused)
}

#[tauri::command]
pub async fn connection(engine: State<'_, EngineState>) -> Reply<ConnectionStatus> {
    engine.service()?.connection_status().await.map_err(refused)
}

#[tauri::command]
pub async fn connections(engine: State<'_, EngineState>) -> Reply<Vec<ConnectionStatus>> {
    engine.service()?.connections_status().await.map_err(refused)
}

/// Drains, disables or enables a connection (the window is the local admin).
#[tauri::command]
pub async fn command_connection(engine: State<'_, EngineState>, action: ConnectionAction) -> Reply<()> {
    engine
        .service()?
        .command_connection(&Caller::window(), action)
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn audit_log(engine: State<'_, EngineState>, page: PageRequest) -> Reply<AuditPage> {
    engine
        .service()?
        .audit_log(page.cursor, page.limit)
        .await
        .map_err(refused)
}

/// The export under way, if any: `cancel_export` stops it. The window runs one at a time; a new
/// one replaces the flag, so cancelling never reaches an export that already ended.
#[derive(Default)]
pub struct Exports(Mutex<Arc<AtomicBool>>);

impl Exports {
    fn start(&self) -> Arc<AtomicBool> {
        let flag = Arc::new(AtomicBool::new(false));
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = flag.clone();
        flag
    }

    fn cancel(&self) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .store(true, Ordering::Relaxed);
    }
}

/// Writes the messages `filter` selects as CSV to `path` (chosen in the save dialog) with the
/// engine's export, telling the window how far it has come with `export-progress` events
/// (`{done, total}`). Returns how many messages were written.
#[tauri::command]
pub async fn export_messages(
    app: AppHandle,
    engine: State<'_, EngineState>,
    exports: State<'_, Exports>,
    filter: MessageFilter,
    path: PathBuf,
) -> Reply<u64> {
    let cancelled = exports.start();
    engine
        .service()?
        .export_csv_file(&Caller::window(), filter, path, move |progress| {
            if let Err(e) = app.emit_to(crate::events::WINDOW, "export-progress", progress) {
                tracing::debug!(error = %e, "export progress not delivered to the window");
            }
            if cancelled.load(Ordering::Relaxed) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .await
        .map_err(refused)
}

/// Stops the export under way (it then fails with `cancelled` and leaves no file).
#[tauri::command]
pub fn cancel_export(exports: State<'_, Exports>) {
    exports.cancel();
}

/// Writes a CSV text the window made (the rows an import left out) to `path`, chosen in the save
/// dialog. Only a `.csv` file is written.
#[tauri::command]
pub async fn save_csv(path: PathBuf, text: String) -> Reply<()> {
    save_text(path, text, "csv").await
}

/// Writes a JSON text the UI made (a number's record, for its owner) at the path the person
/// chose in the save dialog: an absolute path of a `.json` file, nothing else.
#[tauri::command]
pub async fn save_json(path: PathBuf, text: String) -> Reply<()> {
    save_text(path, text, "json").await
}

async fn save_text(path: PathBuf, text: String, extension: &str) -> Reply<()> {
    use smsdesk_engine::api::ErrorCode;
    let fits = path.extension().is_some_and(|e| e.eq_ignore_ascii_case(extension));
    if !path.is_absolute() || !fits {
        return Err(ApiError::new(
            ErrorCode::Invalid,
            format!("{} is not the path of a .{extension} file", path.display()),
        ));
    }
    tokio::fs::write(&path, text.as_bytes())
        .await
        .map_err(|e| ApiError::new(ErrorCode::WriteFailed, format!("cannot write {}: {e}", path.display())))
}

#[tauri::command]
pub async fn smpp_server(engine: State<'_, EngineState>) -> Reply<SmppServerStatus> {
    engine.service()?.smpp_server().await.map_err(refused)
}

#[tauri::command]
pub async fn list_smpp_accounts(engine: State<'_, EngineState>) -> Reply<Vec<SmppAccountInfo>> {
    engine.service()?.smpp_accounts().await.map_err(refused)
}

#[tauri::command]
pub async fn create_smpp_account(engine: State<'_, EngineState>, account: NewSmppAccount) -> Reply<CreatedSmppAccount> {
    engine
        .service()?
        .create_smpp_account(&Caller::window(), account)
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn reset_smpp_password(engine: State<'_, EngineState>, id: i64) -> Reply<CreatedSmppAccount> {
    engine
        .service()?
        .reset_smpp_password(&Caller::window(), id)
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn list_keys(engine: State<'_, EngineState>) -> Reply<Vec<ApiKeyInfo>> {
    engine.service()?.list_keys().await.map_err(refused)
}

#[tauri::command]
pub async fn create_key(engine: State<'_, EngineState>, key: NewApiKey) -> Reply<CreatedApiKey> {
    engine
        .service()?
        .create_key(&Caller::window(), key)
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn revoke_key(engine: State<'_, EngineState>, id: i64) -> Reply<()> {
    engine
        .service()?
        .revoke_key(&Caller::window(), id)
        .await
        .map_err(refused)
}

/// Every setting, where it comes from and when a change applies (the window is the operator).
#[tauri::command]
pub async fn settings(engine: State<'_, EngineState>) -> Reply<SettingsView> {
    engine.service()?.settings(&Caller::window()).map_err(refused)
}

#[tauri::command]
pub async fn update_settings(engine: State<'_, EngineState>, update: SettingsUpdate) -> Reply<SettingsSaved> {
    engine
        .service()?
        .update_settings(&Caller::window(), update)
        .await
        .map_err(refused)
}

/// The connections and routes as saved.
#[tauri::command]
pub fn connection_settings(engine: State<'_, EngineState>) -> Reply<ConnectionsView> {
    engine
        .service()?
        .connection_settings(&Caller::window())
        .map_err(refused)
}

/// Saves the connections and routes, and binds with them.
#[tauri::command]
pub async fn update_connection_settings(
    engine: State<'_, EngineState>,
    update: ConnectionsUpdate,
) -> Reply<SettingsSaved> {
    engine
        .service()?
        .update_connection_settings(&Caller::window(), update)
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn test_connection(engine: State<'_, EngineState>, test: ConnectionTest) -> Reply<ConnectionTestResult> {
    engine
        .service()?
        .test_connection(&Caller::window(), test)
        .await
        .map_err(refused)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_csv_writes_only_a_csv_file_at_an_absolute_path() {
        let dir = tempfile::tempdir().unwrap();
        let run = |path: PathBuf| {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on(save_csv(path, "line,reason\r\n".into()))
        };
        let file = dir.path().join("contacts-rejected.CSV");
        run(file.clone()).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "line,reason\r\n");
        for refused in [dir.path().join(".bashrc"), PathBuf::from("rejected.csv")] {
            let e = run(refused.clone()).unwrap_err();
            assert_eq!(e.code.as_str(), "invalid", "{}", refused.display());
            assert!(!refused.exists(), "nothing is written at {}", refused.display());
        }
    }
}
