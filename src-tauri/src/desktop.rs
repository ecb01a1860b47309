//! What the window asks of the desktop: the tray's status line and desktop notifications. The UI
//! decides when and in which words (ui/src/desktop/desktop.ts); these commands only show them.
//! Listed in build.rs (`OWN_COMMANDS`) and granted in capabilities/default.json; the engine's operations
//! are granted from the catalogue, in capabilities/operations.json.

use tauri::{AppHandle, Runtime};
use tauri_plugin_notification::NotificationExt;

/// Longer texts are cut: a tooltip or a notification is one glance, not a report.
const MAX_TITLE: usize = 120;
const MAX_BODY: usize = 400;

fn cut(text: &str, max: usize) -> String {
    let line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if line.chars().count() <= max {
        return line;
    }
    let mut short: String = line.chars().take(max - 1).collect();
    short.push('…');
    short
}

#[tauri::command]
pub fn desktop_status<R: Runtime>(
    app: AppHandle<R>,
    tooltip: String,
    summary: String,
    open: Option<String>,
    quit: Option<String>,
) {
    crate::tray::set_status(&app, &cut(&tooltip, MAX_BODY), &cut(&summary, MAX_TITLE));
    // The menu's own words, in the operator's language (English until the UI has said them).
    if let (Some(open), Some(quit)) = (open, quit) {
        crate::tray::set_labels(&app, &cut(&open, MAX_TITLE), &cut(&quit, MAX_TITLE));
    }
}

/// Shows a desktop notification. A desktop without a notification service still gets the line in
/// the log, which is where an operator looks afterwards anyway.
#[tauri::command]
pub fn notify<R: Runtime>(app: AppHandle<R>, title: String, body: String) {
    let (title, body) = (cut(&title, MAX_TITLE), cut(&body, MAX_BODY));
    tracing::info!(%title, %body, "desktop notification");
    if let Err(e) = app.notification().builder().title(&title).body(&body).show() {
        tracing::warn!(error = %e, %title, "the desktop did not show the notification");
    }
}

#[cfg(test)]
mod tests {
    use super::cut;

    #[test]
    fn texts_are_kept_to_one_line_and_cut_with_an_ellipsis() {
        assert_eq!(cut("Link lost\nreset by peer", 50), "Link lost reset by peer");
        assert_eq!(cut("abcdef", 6), "abcdef");
        assert_eq!(cut("abcdefg", 6), "abcde…");
        assert_eq!(
            cut("связь потеряна", 7),
            "связь …",
            "cut by characters, never inside one"
        );
    }
}
