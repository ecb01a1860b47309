//! IPC commands: one-line adapters over engine functions. Errors cross as `{code, message}`.

use std::sync::atomic::{AtomicBool, Ordering};

use smsdesk_engine::api::{ApiError, AppInfo};
use tauri::State;

use crate::window::EngineState;

static UI_CONNECTED: AtomicBool = AtomicBool::new(false);

#[tauri::command]
pub fn app_info(engine: State<'_, EngineState>) -> Result<AppInfo, ApiError> {
    if !UI_CONNECTED.swap(true, Ordering::Relaxed) {
        // The first call proves the window loaded the UI and reached the engine.
        tracing::info!("window UI connected");
    }
    engine
        .info()
        .ok_or_else(|| ApiError::new("stopped", "the engine has stopped"))
}
