//! The Settings screen's connections and routes: saved into the file's tables, passwords kept
//! out of it, `[smpp]` moved into a named connection with its password and its other keys, and
//! nothing written when a field or the loader refuses.

use super::*;

fn settings(text: &str) -> (tempfile::TempDir, Settings) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(crate::config::FILE_NAME);
    std::fs::write(&file, text).unwrap();
    let config = crate::config::load(&file, Vec::new()).unwrap();
    let (settings, _) = Settings::with_store(SecretStore::encrypted_file(dir.path()), file, Vec::new(), config);
    (dir, settings)
}

fn connection(name: &str, host: &str, password: Option<&str>) -> ConnectionEdit {
    ConnectionEdit {
        name: name.into(),
        sandbox: false,
        host: host.into(),
        port: 2775,
        system_id: format!("{name}-id"),
        system_type: String::new(),
        bind_mode: "transceiver".into(),
        binds: 1,
        window: 10,
        tps: 20,
        source_addr: String::new(),
        enabled: true,
        password: password.map(str::to_owned),
        password_set: false,
        tls: false,
        tls_ca_file: String::new(),
        tls_server_name: String::new(),
        tls_pin_sha256: String::new(),
        tls_client_cert_file: String::new(),
        tls_client_key_file: String::new(),
    }
}

fn route(name: &str, prefixes: &[&str], connections: &[&str]) -> RouteEdit {
    RouteEdit {
        name: name.into(),
        prefixes: prefixes.iter().map(|s| s.to_string()).collect(),
        countries: Vec::new(),
        kinds: Vec::new(),
        api_keys: Vec::new(),
        connections: connections.iter().map(|s| s.to_string()).collect(),
    }
}

#[tokio::test]
async fn the_first_save_moves_smpp_into_a_named_connection_with_its_password_and_keys_and_no_password_reaches_the_file()
{
    let (dir, s) = settings(
        "# mine\n[smpp]\nsandbox = false\nhost = \"a.example\"\nsystem_id = \"office\"\nenquire_link_seconds = 15\n",
    );
    s.secrets.set_password("old-pw").unwrap();
    let view = s.connections_view().unwrap();
    assert!(!view.named);
    assert_eq!(view.connections.len(), 1);
    assert_eq!(
        (view.connections[0].name.as_str(), view.connections[0].password_set),
        ("smpp", true)
    );

    let mut smpp = view.connections[0].clone();
    smpp.tps = 30;
    let update = ConnectionsUpdate {
        connections: vec![smpp, connection("backup", "b.example", Some("new-pw"))],
        routes: vec![
            route("russia", &["+7"], &["backup"]),
            route("main", &[], &["smpp", "backup"]),
        ],
    };
    s.update_connections(update).await.unwrap();
    let text = std::fs::read_to_string(dir.path().join(crate::config::FILE_NAME)).unwrap();
    assert!(text.starts_with("# mine\n"), "{text}");
    assert!(!text.contains("[smpp]"), "{text}");
    assert!(
        text.contains("[connections.smpp]") && text.contains("[connections.backup]"),
        "{text}"
    );
    assert!(
        text.contains("enquire_link_seconds = 15"),
        "a key the screen does not edit stays: {text}"
    );
    assert!(!text.contains("pw"), "no password in the file: {text}");
    let running = s.running();
    let names: Vec<(String, String, u32)> = running
        .connection_list()
        .into_iter()
        .map(|c| (c.name, c.smpp.password, c.smpp.tps.0))
        .collect();
    assert_eq!(
        names,
        vec![
            ("smpp".into(), "old-pw".into(), 30),
            ("backup".into(), "new-pw".into(), 20)
        ],
        "each connection runs with its own kept password"
    );
    assert_eq!(
        running.route_list().iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        ["russia", "main"]
    );

    // Read again at the next start, the passwords come from the store.
    let file = dir.path().join(crate::config::FILE_NAME);
    let config = crate::config::load(&file, Vec::new()).unwrap();
    let (again, config) = Settings::with_store(SecretStore::encrypted_file(dir.path()), file, Vec::new(), config);
    assert_eq!(config.for_connection("backup").unwrap().smpp.password, "new-pw");
    let view = again.connections_view().unwrap();
    assert!(view.named);
    assert!(view.connections.iter().all(|c| c.password_set && c.password.is_none()));
    assert!(view.unrouted.is_empty());
}

#[tokio::test]
async fn an_invalid_list_names_each_problem_and_writes_nothing() {
    let text = "[connections.a]\nhost = \"a.example\"\n";
    let (dir, s) = settings(text);
    let file = dir.path().join(crate::config::FILE_NAME);
    let bad = ConnectionsUpdate {
        connections: vec![
            connection("a", "a.example", None),
            connection("a", "b.example", Some("far-too-long")),
        ],
        routes: vec![route("main", &[], &["a", "gone"]), route("none", &[], &[])],
    };
    let Err(SettingsError::Invalid(errors)) = s.update_connections(bad).await else {
        panic!("refused")
    };
    let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "connections[1].name",
            "connections[1].password",
            "routes[0].connections",
            "routes[1].connections"
        ]
    );
    // What only the loader knows (a bad prefix here) is refused too, naming the key.
    let loader = ConnectionsUpdate {
        connections: vec![connection("a", "a.example", None)],
        routes: vec![route("main", &["33"], &["a"])],
    };
    let Err(SettingsError::Invalid(errors)) = s.update_connections(loader).await else {
        panic!("refused by the loader")
    };
    assert!(errors[0].message.contains("prefixes"), "{:?}", errors[0].message);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text, "nothing written");
}

#[tokio::test]
async fn a_named_connection_is_tested_with_its_own_saved_settings_and_password() {
    let smsc = crate::sandbox::Sandbox::start(crate::sandbox::SandboxConfig {
        password: Some("right".into()),
        ..crate::sandbox::SandboxConfig::default()
    })
    .await
    .unwrap();
    let port = smsc.addr().port();
    let text = format!(
        "[connections.first]\nhost = \"192.0.2.1\"\n\n[connections.second]\nhost = \"127.0.0.1\"\nport = {port}\nsystem_id = \"second\"\n"
    );
    let (dir, first) = settings(&text);
    first.secrets.for_connection("second").set_password("right").unwrap();
    // Read as the next start reads it: the kept password completes the connection.
    let file = dir.path().join(crate::config::FILE_NAME);
    let config = crate::config::load(&file, Vec::new()).unwrap();
    let (s, _) = Settings::with_store(SecretStore::encrypted_file(dir.path()), file, Vec::new(), config);
    let only = |name: Option<&str>| ConnectionTest {
        connection: name.map(str::to_owned),
        ..ConnectionTest::default()
    };
    let answer = s.test_connection(only(Some("second"))).await.unwrap();
    assert_eq!(answer.outcome, TestOutcome::Bound, "{answer:?}");
    assert_eq!(answer.target, format!("127.0.0.1:{port}"));
    let Err(SettingsError::Invalid(errors)) = s.test_connection(only(Some("third"))).await else {
        panic!("an unknown connection is refused")
    };
    assert_eq!(errors[0].field, "connection");
    smsc.stop();
}

#[tokio::test]
async fn a_connections_tls_is_saved_from_the_screen_read_back_and_a_bad_pin_refused_by_field() {
    let (dir, s) = settings("[smpp]\nsandbox = false\nhost = \"a.example\"\nsystem_id = \"office\"\n");
    let mut acme = connection("acme", "10.0.0.5", Some("pw"));
    acme.tls = true;
    acme.tls_server_name = "smpp.acme.example".into();
    acme.tls_pin_sha256 = vec!["AB"; 32].join(":");
    let update = |c: ConnectionEdit| ConnectionsUpdate {
        connections: vec![c],
        routes: Vec::new(),
    };
    s.update_connections(update(acme.clone())).await.unwrap();
    let text = std::fs::read_to_string(dir.path().join(crate::config::FILE_NAME)).unwrap();
    assert!(
        text.contains("tls = true") && text.contains("tls_server_name = \"smpp.acme.example\""),
        "{text}"
    );
    let running = s.running().for_connection("acme").unwrap();
    assert!(running.smpp.tls);
    assert_eq!(running.smpp.tls_pin_sha256.0, Some([0xab; 32]));
    let shown = &s.connections_view().unwrap().connections[0];
    assert_eq!(
        (shown.tls, shown.tls_pin_sha256.as_str()),
        (true, "ab".repeat(32).as_str())
    );

    // Switched off from the screen, every TLS key leaves the file.
    let mut clear = shown.clone();
    clear.tls = false;
    s.update_connections(update(clear)).await.unwrap();
    let text = std::fs::read_to_string(dir.path().join(crate::config::FILE_NAME)).unwrap();
    assert!(!text.contains("tls"), "{text}");

    acme.tls_pin_sha256 = "not a pin".into();
    let refused = s.update_connections(update(acme)).await.unwrap_err();
    let SettingsError::Invalid(errors) = refused else {
        panic!("{refused:?}")
    };
    assert_eq!(errors[0].field, "connections[0].tls_pin_sha256", "{errors:?}");
}
