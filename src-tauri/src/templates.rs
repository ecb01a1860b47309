//! IPC commands of the office's message templates: one-line adapters over the engine's
//! [`Service`](smsdesk_engine::service::Service), registered from the catalogue like the others.
//! The window is the local admin (`Caller::window()`).

use smsdesk_engine::apikeys::Caller;
use smsdesk_engine::service::{NewTemplate, Template};
use tauri::State;

use crate::state::{refused, EngineState, Reply};

#[tauri::command]
pub async fn list_templates(engine: State<'_, EngineState>) -> Reply<Vec<Template>> {
    engine.service()?.list_templates().await.map_err(refused)
}

#[tauri::command]
pub async fn create_template(engine: State<'_, EngineState>, template: NewTemplate) -> Reply<Template> {
    engine
        .service()?
        .create_template(&Caller::window(), template)
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn delete_template(engine: State<'_, EngineState>, id: i64) -> Reply<()> {
    engine
        .service()?
        .delete_template(&Caller::window(), id)
        .await
        .map_err(refused)
}
