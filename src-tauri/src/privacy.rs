//! IPC commands of personal data (retention, erasure and access by number): one-line adapters
//! over the engine's [`Service`](smsdesk_engine::service::Service), registered from the catalogue
//! like the others. The window is the local admin (`Caller::window()`).

use smsdesk_engine::apikeys::Caller;
use smsdesk_engine::privacy::{Erased, RetentionRun};
use smsdesk_engine::service::privacy::{EraseNumber, PrivacyOverview, SubjectAccess, SubjectRequest};
use tauri::State;

use crate::state::{refused, EngineState, Reply};

#[tauri::command]
pub async fn privacy_overview(engine: State<'_, EngineState>) -> Reply<PrivacyOverview> {
    engine
        .service()?
        .privacy_overview(&Caller::window())
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn run_retention(engine: State<'_, EngineState>) -> Reply<RetentionRun> {
    engine
        .service()?
        .run_retention(&Caller::window())
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn erase_number(engine: State<'_, EngineState>, request: EraseNumber) -> Reply<Erased> {
    engine
        .service()?
        .erase_number(&Caller::window(), request)
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn subject_access(engine: State<'_, EngineState>, request: SubjectRequest) -> Reply<SubjectAccess> {
    engine
        .service()?
        .subject_access(&Caller::window(), request)
        .await
        .map_err(refused)
}
