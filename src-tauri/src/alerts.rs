//! IPC commands of the Alerts screen: one-line adapters over the engine's
//! [`Service`](smsdesk_engine::service::Service), registered from the catalogue like the others.
//! The window is the local admin (`Caller::window()`).

use smsdesk_engine::alerts::overview::{AcknowledgeAlert, AlertsOverview, TestAlert, TestAlertResult};
use smsdesk_engine::apikeys::Caller;
use tauri::State;

use crate::state::{refused, EngineState, Reply};

#[tauri::command]
pub async fn alerts(engine: State<'_, EngineState>) -> Reply<AlertsOverview> {
    engine.service()?.alerts_overview().await.map_err(refused)
}

#[tauri::command]
pub async fn acknowledge_alert(engine: State<'_, EngineState>, id: i64, request: AcknowledgeAlert) -> Reply<()> {
    engine
        .service()?
        .acknowledge_alert(&Caller::window(), id, request)
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn test_alert(engine: State<'_, EngineState>, request: TestAlert) -> Reply<TestAlertResult> {
    engine
        .service()?
        .test_alert(&Caller::window(), request)
        .await
        .map_err(refused)
}
