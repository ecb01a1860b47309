//! Re-reading the config file while running (`systemctl reload`, SIGHUP).

use super::*;

fn settings_from(text: &str) -> (tempfile::TempDir, PathBuf, Settings) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(crate::config::FILE_NAME);
    std::fs::write(&file, text).unwrap();
    let config = crate::config::load(&file, Vec::new()).unwrap();
    let (settings, _) = Settings::with_store(
        SecretStore::encrypted_file(dir.path()),
        file.clone(),
        Vec::new(),
        config,
    );
    (dir, file, settings)
}

#[tokio::test]
async fn a_reload_puts_live_settings_into_effect_and_leaves_the_rest_for_the_next_start() {
    let (_dir, file, settings) = settings_from("[smpp]\ntps = 25\n");
    let port = settings.running().http.port;
    std::fs::write(&file, "[smpp]\ntps = 40\n\n[http]\nport = 9999\n").unwrap();

    let reloaded = settings.reload().await.unwrap();

    assert!(reloaded.changed, "the rate applies while running: {reloaded:?}");
    assert!(
        reloaded.at_next_start,
        "the port waits for the next start: {reloaded:?}"
    );
    assert_eq!(settings.running().smpp.tps.0, 40);
    assert_eq!(
        settings.running().http.port,
        port,
        "the listener keeps its port until a restart"
    );
}

#[tokio::test]
async fn a_reload_of_an_unchanged_file_changes_nothing() {
    let (_dir, _file, settings) = settings_from("[smpp]\ntps = 25\n");
    let before = settings.running();

    let reloaded = settings.reload().await.unwrap();

    assert!(!reloaded.changed && !reloaded.at_next_start, "{reloaded:?}");
    assert_eq!(*settings.running(), *before);
}

#[tokio::test]
async fn a_file_that_no_longer_loads_is_refused_and_the_running_settings_stay() {
    let (_dir, file, settings) = settings_from("[smpp]\ntps = 25\n");
    std::fs::write(&file, "[smpp]\ntps = \"fast\"\n").unwrap();

    let error = settings.reload().await.unwrap_err();

    assert!(
        error.to_string().contains("smpp.tps"),
        "the error names the key: {error}"
    );
    assert_eq!(settings.running().smpp.tps.0, 25, "the engine runs on as it was");
}
