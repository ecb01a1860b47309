//! The tray icon: the link's state at a glance (tooltip and the menu's first line), open the
//! window, or quit. The words come from the UI (`desktop_status`), in the operator's language.

use tauri::menu::{Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{App, AppHandle, Manager, Runtime};

const TRAY: &str = "main";

/// The menu's status line, kept to change its text.
pub struct StatusLine<R: Runtime>(MenuItem<R>);

/// The menu's "open" and "quit" items, kept to word them in the operator's language.
pub struct Actions<R: Runtime> {
    open: MenuItem<R>,
    quit: MenuItem<R>,
}

pub fn create<R: Runtime>(app: &App<R>) -> tauri::Result<()> {
    let status = MenuItem::with_id(app, "status", "smsdesk", false, None::<&str>)?;
    let open = MenuItem::with_id(app, "open", "Open smsdesk", true, None::<&str>)?;
    let quit = MenuItem::with_id(app, "quit", "Quit", true, None::<&str>)?;
    let separator = PredefinedMenuItem::separator(app)?;
    let menu = Menu::with_items(app, &[&status, &separator, &open, &quit])?;
    let mut tray = TrayIconBuilder::with_id(TRAY)
        .tooltip("smsdesk")
        .menu(&menu)
        .on_menu_event(|app, event| match event.id.as_ref() {
            "open" => show_window(app),
            "quit" => app.exit(0),
            _ => {}
        });
    if let Some(icon) = app.default_window_icon() {
        tray = tray.icon(icon.clone());
    }
    tray.build(app)?;
    app.manage(StatusLine(status));
    app.manage(Actions { open, quit });
    Ok(())
}

/// Brings the window to the front: from the tray's menu, or when the app is started again.
pub fn show_window<R: Runtime>(app: &AppHandle<R>) {
    tracing::info!("bringing the window to the front");
    if let Some(w) = app.get_webview_window("main") {
        let _ = w.show();
        let _ = w.unminimize();
        let _ = w.set_focus();
    }
}

/// Words the menu's actions as the UI says them.
pub fn set_labels<R: Runtime>(app: &AppHandle<R>, open: &str, quit: &str) {
    if let Some(items) = app.try_state::<Actions<R>>() {
        for (item, text) in [(&items.open, open), (&items.quit, quit)] {
            if let Err(e) = item.set_text(text) {
                tracing::debug!(error = %e, "tray menu item not worded");
            }
        }
    }
}

/// Shows the link's state on the tray icon; a desktop without a tray only logs it.
pub fn set_status<R: Runtime>(app: &AppHandle<R>, tooltip: &str, summary: &str) {
    tracing::info!(summary, tooltip, "tray status");
    if let Some(tray) = app.tray_by_id(TRAY) {
        if let Err(e) = tray.set_tooltip(Some(tooltip)) {
            tracing::debug!(error = %e, "tray tooltip not set");
        }
    }
    if let Some(line) = app.try_state::<StatusLine<R>>() {
        if let Err(e) = line.0.set_text(summary) {
            tracing::debug!(error = %e, "tray status line not set");
        }
    }
}
