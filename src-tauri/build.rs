fn main() {
    // Declaring the app's commands makes Tauri generate a permission per command
    // (allow-app-info, ...); capabilities/default.json grants the window only those it uses.
    let attributes =
        tauri_build::Attributes::new().app_manifest(tauri_build::AppManifest::new().commands(&["app_info"]));
    tauri_build::try_build(attributes).expect("tauri build step failed");
}
