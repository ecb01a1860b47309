//! The desktop window: the engine runs in-process, the window talks to it over IPC.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use smsdesk_engine::api::{AppInfo, RunMode};
use smsdesk_engine::cli::{self, Cli, EXIT_CONFIG};
use smsdesk_engine::http::UiAssets;
use smsdesk_engine::{Engine, EngineOptions};
use tauri::{Context, Manager, RunEvent, Wry};

/// The engine, as the window's commands reach it. Emptied on exit.
pub struct EngineState(Mutex<Option<Engine>>);

impl EngineState {
    pub fn info(&self) -> Option<AppInfo> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(|e| e.info().clone())
    }
}

pub fn run(cli: &Cli, context: Context<Wry>, ui: Arc<dyn UiAssets>) -> ExitCode {
    let (prepared, _log) = match cli::prepare(cli) {
        Ok(p) => p,
        Err(code) => return code,
    };
    // Start the engine before the window, so a refused start (bad config, another instance on
    // this data directory) is reported instead of a window that cannot work.
    let options = EngineOptions {
        mode: RunMode::Window,
        http_port: None,
        ui: Some(ui),
    };
    let engine = match tauri::async_runtime::block_on(Engine::start(prepared, options)) {
        Ok(e) => e,
        Err(e) => {
            tracing::error!("{e}");
            eprintln!("smsdesk: {e}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    tracing::info!(url = ?engine.info().http_url, "engine started; opening the window");

    let app = tauri::Builder::default()
        .manage(EngineState(Mutex::new(Some(engine))))
        .invoke_handler(tauri::generate_handler![crate::commands::app_info])
        .setup(|app| {
            if let Err(e) = crate::tray::create(app) {
                // A desktop without a tray area still gets the window.
                tracing::warn!(error = %e, "no tray icon");
            }
            let handle = app.handle().clone();
            tauri::async_runtime::spawn(async move {
                let signal = cli::wait_for_stop_signal().await;
                tracing::info!(signal, "closing the window");
                handle.exit(0);
            });
            Ok(())
        })
        .build(context);
    let app = match app {
        Ok(app) => app,
        Err(e) => {
            eprintln!("smsdesk: cannot open the window: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = app.run_return(|handle, event| {
        if let RunEvent::Exit = event {
            let engine = handle
                .state::<EngineState>()
                .0
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take();
            if let Some(engine) = engine {
                tauri::async_runtime::block_on(engine.shutdown());
            }
        }
    });
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
