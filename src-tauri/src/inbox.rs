//! IPC commands of the inbox and the opt-out list: one-line adapters over the engine's
//! [`Service`](smsdesk_engine::service::Service), registered from the catalogue like the others.
//! The window is the local admin (`Caller::window()`).

use smsdesk_engine::api::{ApiError, ErrorCode};
use smsdesk_engine::apikeys::Caller;
use smsdesk_engine::service::{
    MarkRead, NewOptOut, OptOutAdded, OptOutCsv, OptOutImport, OptOutImported, RemoveOptOut, SandboxReply,
};
use smsdesk_engine::views::{
    InboxCounts, InboxFilter, OptOutFilter, OptOutPage, ThreadPage, ThreadRequest, ThreadView,
};
use tauri::State;

use crate::state::{refused, EngineState, Reply};

#[tauri::command]
pub async fn list_threads(engine: State<'_, EngineState>, filter: InboxFilter) -> Reply<ThreadPage> {
    engine.service()?.list_threads(filter).await.map_err(refused)
}

#[tauri::command]
pub async fn thread(engine: State<'_, EngineState>, request: ThreadRequest) -> Reply<ThreadView> {
    engine.service()?.thread(request).await.map_err(refused)
}

#[tauri::command]
pub async fn inbox_counts(engine: State<'_, EngineState>) -> Reply<InboxCounts> {
    engine.service()?.inbox_counts().await.map_err(refused)
}

#[tauri::command]
pub async fn mark_read(engine: State<'_, EngineState>, read: MarkRead) -> Reply<InboxCounts> {
    engine
        .service()?
        .mark_read(&Caller::window(), read)
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn list_opt_outs(engine: State<'_, EngineState>, filter: OptOutFilter) -> Reply<OptOutPage> {
    engine.service()?.list_opt_outs(filter).await.map_err(refused)
}

#[tauri::command]
pub async fn add_opt_out(engine: State<'_, EngineState>, opt_out: NewOptOut) -> Reply<OptOutAdded> {
    engine
        .service()?
        .add_opt_out(&Caller::window(), opt_out)
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn remove_opt_out(engine: State<'_, EngineState>, removal: RemoveOptOut) -> Reply<()> {
    engine
        .service()?
        .remove_opt_out(&Caller::window(), removal)
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn import_opt_outs(engine: State<'_, EngineState>, file: OptOutImport) -> Reply<OptOutImported> {
    engine
        .service()?
        .import_opt_outs(&Caller::window(), file)
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn export_opt_outs(engine: State<'_, EngineState>) -> Reply<OptOutCsv> {
    engine.service()?.export_opt_outs().await.map_err(refused)
}

#[tauri::command]
pub fn sandbox_reply(engine: State<'_, EngineState>, reply: SandboxReply) -> Reply<()> {
    engine
        .service()?
        .sandbox_reply(&Caller::window(), reply)
        .map_err(refused)
}

/// Writes the opt-out list, as `export_opt_outs` makes it, to `path` (chosen in the save dialog).
/// Returns how many numbers it holds.
#[tauri::command]
pub async fn save_opt_outs(engine: State<'_, EngineState>, path: std::path::PathBuf) -> Reply<u32> {
    let file = engine.service()?.export_opt_outs().await.map_err(refused)?;
    tokio::fs::write(&path, file.csv.as_bytes())
        .await
        .map_err(|e| ApiError::new(ErrorCode::WriteFailed, format!("cannot write {}: {e}", path.display())))?;
    Ok(file.numbers)
}
