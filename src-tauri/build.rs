/// The window's IPC commands (src/commands.rs). Declaring them makes Tauri generate a permission
/// per command (allow-app-info, allow-submit-message, ...); capabilities/default.json grants the
/// window exactly these.
const COMMANDS: &[&str] = &[
    "app_info",
    "submit_message",
    "submit_batch",
    "preview_messages",
    "list_messages",
    "export_messages",
    "cancel_export",
    "message_detail",
    "retry_message",
    "cancel_message",
    "list_exceptions",
    "exception_detail",
    "resolve_exception",
    "dashboard",
    "dashboard_activity",
    "connection_status",
    "audit_log",
    "list_keys",
    "create_key",
    "revoke_key",
    "settings",
    "update_settings",
    "test_connection",
    // The desktop's own (src/desktop.rs): the tray's status line and notifications.
    "desktop_status",
    "notify",
];

fn main() {
    let attributes = tauri_build::Attributes::new().app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    tauri_build::try_build(attributes).expect("tauri build step failed");
}
