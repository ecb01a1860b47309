//! The desktop window: the engine runs in-process, the window talks to it over IPC.

use std::process::ExitCode;
use std::sync::Arc;

use smsdesk_cli::{self as cli, Cli, EXIT_CONFIG};
use smsdesk_engine::api::RunMode;

use smsdesk_engine::engine::{EngineError, Prepared};
use smsdesk_engine::instance::InstanceError;
use smsdesk_engine::{Engine, EngineOptions};
use smsdesk_http::UiAssets;
use tauri::{Context, Manager, RunEvent, Wry};

use crate::commands;
use crate::state::EngineState;

/// The window's commands: one per operation of the catalogue it has, named as the operation
/// (a missing one does not compile), then the export's and the desktop's own.
macro_rules! window_commands {
    ($($name:ident)+) => {
        tauri::generate_handler![
            $(commands::$name,)+
            commands::export_messages,
            commands::cancel_export,
            commands::save_opt_outs,
            commands::save_csv,
            commands::save_json,
            crate::desktop::desktop_status,
            crate::desktop::notify,
        ]
    };
}

pub fn run(cli: &Cli, context: Context<Wry>, ui: Arc<dyn UiAssets>) -> ExitCode {
    let (prepared, _log) = match cli::prepare(cli) {
        Ok(p) => p,
        Err(code) => return code,
    };
    // Start the engine before the window, so a refused start (bad config, another instance on
    // this data directory) is reported instead of a window that cannot work.
    let engine = match start_engine(prepared, ui) {
        Ok(e) => e,
        Err(code) => return code,
    };
    tracing::info!(url = ?engine.info().http_url, "engine started; opening the window");
    // Subscribed before the window exists, so no change committed from now on is missed.
    let changes = engine.service().subscribe();
    let show_requests = engine.window_requests();

    let data_dir = std::path::PathBuf::from(&engine.info().data_dir);
    let app = tauri::Builder::default()
        .manage(EngineState::new(engine))
        .manage(commands::Exports::default())
        .plugin(tauri_plugin_dialog::init())
        .invoke_handler(smsdesk_engine::with_window_operations!(window_commands))
        .setup(move |app| {
            set_up(app, &data_dir, changes, show_requests);
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
            if let Some(engine) = handle.state::<EngineState>().take() {
                tauri::async_runtime::block_on(engine.shutdown());
            }
        }
    });
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// The engine, started for the window. When one already runs on this data directory, its
/// window is brought to the front instead, and the exit code says how that went.
fn start_engine(prepared: Prepared, ui: Arc<dyn UiAssets>) -> Result<Engine, ExitCode> {
    let options = EngineOptions {
        mode: RunMode::Window,
        http_port: None,
        door: Some(smsdesk_http::HttpDoor::new(Some(ui))),
    };
    let root = prepared.dir.root().to_owned();
    match tauri::async_runtime::block_on(Engine::start(prepared, options)) {
        Ok(e) => Ok(e),
        Err(e @ EngineError::Instance(InstanceError::AlreadyRunning { .. })) => {
            // One window per data directory: bring the running one to the front instead.
            Err(match tauri::async_runtime::block_on(cli::show_running_window(&root)) {
                Ok(()) => {
                    tracing::info!("smsdesk already runs on this data directory; its window was brought to the front");
                    eprintln!(
                        "smsdesk is already running on this data directory; its window was brought to the front."
                    );
                    ExitCode::SUCCESS
                }
                Err(why) => {
                    tracing::error!("{e} (and its window could not be shown: {why})");
                    eprintln!("smsdesk: {e}\nsmsdesk: its window could not be brought to the front: {why}");
                    ExitCode::from(EXIT_CONFIG)
                }
            })
        }
        Err(e) => {
            tracing::error!("{e}");
            eprintln!("smsdesk: {e}");
            Err(ExitCode::from(EXIT_CONFIG))
        }
    }
}

/// Once the window exists: the tray, the window's remembered place, committed changes forwarded
/// to it, requests to show it (from a second start), and a stop signal closing it.
fn set_up(
    app: &mut tauri::App,
    data_dir: &std::path::Path,
    changes: tokio::sync::broadcast::Receiver<smsdesk_engine::changes::Change>,
    mut show_requests: tokio::sync::broadcast::Receiver<()>,
) {
    if let Err(e) = crate::tray::create(app) {
        // A desktop without a tray area still gets the window.
        tracing::warn!(error = %e, "no tray icon");
    }
    if let Some(window) = app.get_webview_window("main") {
        crate::geometry::keep(&window, data_dir);
    }
    tauri::async_runtime::spawn(crate::events::forward(app.handle().clone(), changes));
    let shown = app.handle().clone();
    tauri::async_runtime::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            match show_requests.recv().await {
                Ok(()) | Err(RecvError::Lagged(_)) => crate::tray::show_window(&shown),
                Err(RecvError::Closed) => return,
            }
        }
    });
    let handle = app.handle().clone();
    // Caught from now on, not from the task's first turn.
    let stop = {
        let runtime = tauri::async_runtime::handle();
        let _inside = runtime.inner().enter();
        cli::stop_signals()
    };
    tauri::async_runtime::spawn(async move {
        let signal = stop.await;
        tracing::info!(signal, "closing the window");
        handle.exit(0);
    });
}
