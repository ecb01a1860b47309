use std::collections::BTreeMap;
use std::path::PathBuf;

use super::*;
use crate::config::template;
use crate::sandbox::{Sandbox, SandboxConfig};

struct Fixture {
    dir: tempfile::TempDir,
    settings: Settings,
}

impl Fixture {
    fn new(text: &str, env: &[(&str, &str)]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(crate::config::FILE_NAME);
        std::fs::write(&file, text).unwrap();
        let env: Vec<(String, String)> = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let config = crate::config::load(&file, env.clone()).unwrap();
        let (settings, _) = Settings::with_store(SecretStore::encrypted_file(dir.path()), file, env, config);
        Fixture { dir, settings }
    }

    fn file(&self) -> PathBuf {
        self.dir.path().join(crate::config::FILE_NAME)
    }

    fn text(&self) -> String {
        std::fs::read_to_string(self.file()).unwrap()
    }

    fn field(&self, key: &str) -> SettingField {
        self.settings
            .view()
            .unwrap()
            .fields
            .into_iter()
            .find(|f| f.key == key)
            .unwrap()
    }
}

fn values(pairs: &[(&str, &str)]) -> SettingsUpdate {
    SettingsUpdate {
        values: pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
        ..SettingsUpdate::default()
    }
}

#[test]
fn each_setting_says_where_its_value_comes_from() {
    let f = Fixture::new("[smpp]\ntps = 25\n", &[("SMSDESK_SMPP_WINDOW", "4")]);
    let tps = f.field("smpp.tps");
    assert_eq!(
        (tps.value.as_str(), tps.source, tps.editable),
        ("25", SettingSource::File, true)
    );
    let window = f.field("smpp.window");
    assert_eq!(window.source, SettingSource::Env);
    assert_eq!(window.value, "4");
    assert!(
        !window.editable,
        "a setting an environment variable sets is read-only here"
    );
    assert_eq!(window.env_var, "SMSDESK_SMPP_WINDOW");
    let host = f.field("smpp.host");
    assert_eq!(
        (host.source, host.value.as_str()),
        (SettingSource::Default, "127.0.0.1")
    );
    assert_eq!(
        f.field("retry.throttled_codes").value,
        "0x58",
        "values read as they are typed"
    );
    assert!(
        !f.field("store.database").editable,
        "the database file is changed in the file only"
    );
    assert_eq!(f.field("http.bind").applies, Applies::Restart);
}

#[tokio::test]
async fn an_edit_is_written_into_the_file_keeping_its_comments_and_the_rest() {
    let f = Fixture::new(&template(), &[]);
    let before = f.text();
    let saved = f
        .settings
        .update(values(&[
            ("smpp.tps", "25"),
            ("receipts.transactional_deadline_minutes", "720"),
            ("smpp.window", "10"),
        ]))
        .await
        .unwrap();
    let after = f.text();
    assert!(
        after.contains("tps = 25") && after.contains("transactional_deadline_minutes = 720"),
        "{after}"
    );
    assert!(
        !after.contains("window = 10\n") || after.contains("# window = 10"),
        "an unchanged value is not written"
    );
    // Every line of the documented file is still there, in order.
    let mut rest = after.lines();
    for line in before.lines() {
        assert!(rest.any(|l| l == line), "the line `{line}` must survive the edit");
    }
    let keys: Vec<_> = saved.changes.iter().map(|c| c.key.as_str()).collect();
    assert_eq!(keys, ["receipts.transactional_deadline_minutes", "smpp.tps"]);
    assert_eq!(
        f.settings.running().smpp.tps.0,
        25,
        "a live setting is in effect at once"
    );
    assert_eq!(f.field("smpp.tps").source, SettingSource::File);
    // The loader reads the file back to the same values.
    assert_eq!(crate::config::load(&f.file(), []).unwrap().smpp.tps.0, 25);
}

/// The opt-out words are edited as a line of words separated by commas, written to the file as a
/// TOML list, and read back the same; they apply at once.
#[tokio::test]
async fn opt_out_words_are_edited_as_a_list_and_apply_at_once() {
    let f = Fixture::new(&template(), &[]);
    assert_eq!(
        f.field("inbox.stop_words_fr").value,
        "ARRET, ARRÊT, STOP SMS, DESABONNER"
    );
    f.settings
        .update(values(&[("inbox.stop_words_fr", "ARRET, STOP SMS, NE PLUS RECEVOIR")]))
        .await
        .unwrap();
    assert!(
        f.text()
            .contains(r#"stop_words_fr = ["ARRET", "STOP SMS", "NE PLUS RECEVOIR"]"#),
        "{}",
        f.text()
    );
    assert_eq!(
        f.settings.running().inbox.stop_words_fr.0,
        ["ARRET", "STOP SMS", "NE PLUS RECEVOIR"]
    );
    assert_eq!(
        f.field("inbox.stop_words_fr").value,
        "ARRET, STOP SMS, NE PLUS RECEVOIR"
    );
    let loaded = crate::config::load(&f.file(), []).unwrap();
    assert_eq!(loaded.inbox.stop_words_fr, f.settings.running().inbox.stop_words_fr);
}

#[tokio::test]
async fn every_invalid_field_is_named_at_once_and_nothing_is_written() {
    let f = Fixture::new("[smpp]\ntps = 25\n", &[("SMSDESK_SMPP_WINDOW", "4")]);
    let err = f
        .settings
        .update(values(&[
            ("smpp.tps", "0"),
            ("smpp.port", "eighty"),
            ("retry.temporary_codes", "0x14, soon"),
            ("smpp.window", "9"),
            ("smpp.nothing", "1"),
            ("receipts.bulk_deadline_minutes", "360"),
        ]))
        .await
        .unwrap_err();
    let SettingsError::Invalid(errors) = err else {
        panic!("{err}")
    };
    let named: Vec<(&str, &str)> = errors.iter().map(|e| (e.field.as_str(), e.code.as_str())).collect();
    assert_eq!(
        named,
        [
            ("retry.temporary_codes", "invalid"),
            ("smpp.nothing", "unknown_setting"),
            ("smpp.port", "invalid"),
            ("smpp.tps", "invalid"),
            ("smpp.window", "locked_by_environment"),
        ]
    );
    assert!(errors[4].message.contains("SMSDESK_SMPP_WINDOW"));
    assert!(
        errors[3].message.contains("at least 1"),
        "the loader's own message: {}",
        errors[3].message
    );
    assert_eq!(
        f.text(),
        "[smpp]\ntps = 25\n",
        "nothing is written when any field is invalid"
    );
}

#[tokio::test]
async fn with_named_connections_the_smpp_section_is_shown_read_only_and_an_edit_of_it_refused() {
    let text = "[connections.primary]\nhost = \"smpp.example.com\"\n\n[routing]\nfailover_grace_seconds = 30\n";
    let f = Fixture::new(text, &[]);
    assert!(!f.field("smpp.host").editable, "[smpp] is not in force");
    assert!(f.field("routing.failover_grace_seconds").editable);
    assert_eq!(f.field("routing.failover_grace_seconds").applies, Applies::Reconnect);
    let err = f
        .settings
        .update(values(&[("smpp.host", "other.example.com")]))
        .await
        .unwrap_err();
    let SettingsError::Invalid(errors) = err else {
        panic!("{err}")
    };
    assert_eq!(
        (errors[0].field.as_str(), errors[0].code.as_str()),
        ("smpp.host", "read_only")
    );
    assert!(
        errors[0].message.contains("[connections.<name>]"),
        "{}",
        errors[0].message
    );
    assert_eq!(f.text(), text, "nothing written");
    assert!(
        Fixture::new("", &[]).field("smpp.host").editable,
        "without connections, [smpp] is edited here"
    );
}

#[tokio::test]
async fn a_network_bind_without_allow_network_is_refused_before_it_breaks_the_next_start() {
    let f = Fixture::new("", &[]);
    let err = f
        .settings
        .update(values(&[("http.bind", "0.0.0.0")]))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, SettingsError::Invalid(e) if e[0].code == "needs_allow_network"),
        "{err}"
    );
    let saved = f
        .settings
        .update(values(&[("http.bind", "0.0.0.0"), ("http.allow_network", "true")]))
        .await
        .unwrap();
    assert!(saved.changes.iter().all(|c| c.applies == Applies::Restart));
    let bind = f.field("http.bind");
    assert!(
        bind.pending_restart,
        "saved, but the listener keeps its address until the next start"
    );
    assert_eq!(f.settings.running().http.bind.to_string(), "127.0.0.1");
}

#[tokio::test]
async fn a_password_set_here_is_kept_encrypted_never_in_the_file_nor_any_answer() {
    let f = Fixture::new("[smpp]\nsystem_id = \"acme\"\npassword = \"old-pw\"\n", &[]);
    assert_eq!(
        f.field("smpp.password").source,
        SettingSource::File,
        "a password in the file still works"
    );
    let saved = f
        .settings
        .update(SettingsUpdate {
            password: Some("n3w-pw".into()),
            ..SettingsUpdate::default()
        })
        .await
        .unwrap();
    let text = f.text();
    assert!(
        !text.contains("old-pw") && !text.contains("n3w-pw"),
        "no password in clear: {text}"
    );
    assert!(text.contains("system_id = \"acme\""));
    assert!(f.dir.path().join(secret::PASSWORD_FILE).exists());
    let answer = serde_json::to_string(&saved).unwrap();
    assert!(!answer.contains("n3w-pw"), "the answer never carries the password");
    assert_eq!(saved.changes[0].key, "smpp.password");
    assert!(saved.changes[0].secret && saved.changes[0].to.is_none());
    assert!(saved.settings.password_set);
    assert_eq!(f.field("smpp.password").source, SettingSource::EncryptedFile);
    assert_eq!(
        f.settings.running().smpp.password,
        "n3w-pw",
        "the session binds with it"
    );

    // The next start reads it back from the secret store.
    let config = crate::config::load(&f.file(), []).unwrap();
    assert_eq!(config.smpp.password, "", "the file no longer holds it");
    let (_, running) = Settings::with_store(SecretStore::encrypted_file(f.dir.path()), f.file(), vec![], config);
    assert_eq!(running.smpp.password, "n3w-pw");

    let err = f
        .settings
        .update(SettingsUpdate {
            password: Some("much-too-long".into()),
            ..SettingsUpdate::default()
        })
        .await
        .unwrap_err();
    assert!(
        matches!(&err, SettingsError::Invalid(e) if e[0].field == "smpp.password"),
        "{err}"
    );
}

#[tokio::test]
async fn a_password_from_the_environment_wins_and_cannot_be_set_here() {
    let f = Fixture::new("", &[("SMSDESK_SMPP_PASSWORD", "envpw")]);
    let field = f.field("smpp.password");
    assert_eq!(
        (field.source, field.editable, field.value.as_str()),
        (SettingSource::Env, false, "")
    );
    let err = f
        .settings
        .update(SettingsUpdate {
            password: Some("x".into()),
            ..SettingsUpdate::default()
        })
        .await
        .unwrap_err();
    assert!(matches!(&err, SettingsError::Invalid(e) if e[0].code == "locked_by_environment"));
}

#[tokio::test]
async fn a_new_callback_provider_gets_a_secret_shown_once_and_masked_after() {
    let f = Fixture::new(
        "[callbacks]\nproviders = { vonage = { secret = \"vonage-secret-0123456789\" } }\n",
        &[],
    );
    let saved = f
        .settings
        .update(SettingsUpdate {
            callback_providers: Some(vec![
                ProviderEdit {
                    name: "vonage".into(),
                    ..ProviderEdit::default()
                },
                ProviderEdit {
                    name: "twilio".into(),
                    ..ProviderEdit::default()
                },
            ]),
            ..SettingsUpdate::default()
        })
        .await
        .unwrap();
    assert_eq!(saved.generated_secrets.len(), 1);
    let made = &saved.generated_secrets[0];
    assert_eq!(made.provider, "twilio");
    let running = f.settings.running();
    assert_eq!(running.callbacks.providers.0["twilio"].secret, made.secret);
    assert_eq!(
        running.callbacks.providers.0["vonage"].secret, "vonage-secret-0123456789",
        "a provider sent without a secret keeps its own"
    );
    let view = f.settings.view().unwrap();
    let shown = serde_json::to_string(&view).unwrap();
    assert!(!shown.contains(&made.secret) && !shown.contains("vonage-secret-0123456789"));
    assert_eq!(view.providers[1].secret_hint, "…6789");

    let err = f
        .settings
        .update(SettingsUpdate {
            callback_providers: Some(vec![
                ProviderEdit {
                    name: "bad name".into(),
                    ..ProviderEdit::default()
                },
                ProviderEdit {
                    name: "acme".into(),
                    secret: Some("short".into()),
                    ..ProviderEdit::default()
                },
            ]),
            ..SettingsUpdate::default()
        })
        .await
        .unwrap_err();
    let SettingsError::Invalid(errors) = err else { panic!() };
    let named: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(
        named,
        [
            "callbacks.providers[0].name",
            "callbacks.providers[1].secret",
            "callbacks.providers[1].name"
        ]
    );
}

async fn sandbox_with_password() -> Sandbox {
    Sandbox::start(SandboxConfig {
        password: Some("right".into()),
        ..SandboxConfig::default()
    })
    .await
    .unwrap()
}

fn trial(port: u16, password: &str) -> ConnectionTest {
    ConnectionTest {
        sandbox: Some(false),
        host: Some("127.0.0.1".into()),
        port: Some(port),
        system_id: Some("acme".into()),
        password: Some(password.into()),
        ..ConnectionTest::default()
    }
}

#[tokio::test]
async fn test_connection_binds_over_tcp_and_names_a_refusal() {
    let f = Fixture::new("", &[]);
    let smsc = sandbox_with_password().await;
    let port = smsc.addr().port();

    let ok = f.settings.test_connection(trial(port, "right")).await.unwrap();
    assert_eq!(ok.outcome, TestOutcome::Bound, "{}", ok.message);
    assert_eq!(ok.target, format!("127.0.0.1:{port}"));

    let refused = f.settings.test_connection(trial(port, "wrong")).await.unwrap();
    assert_eq!(refused.outcome, TestOutcome::Refused);
    assert_eq!(refused.status, Some(0x0E));
    assert_eq!(refused.status_name.as_deref(), Some("ESME_RINVPASWD"));
    assert_eq!(smsc.binds(), 2, "each test is one bind on the wire");
    assert_eq!(f.text(), "", "a test saves nothing");
}

#[tokio::test]
async fn test_connection_tells_unreachable_from_no_answer() {
    let f = Fixture::new("", &[]);
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let unreachable = f.settings.test_connection(trial(closed, "x")).await.unwrap();
    assert_eq!(unreachable.outcome, TestOutcome::Unreachable, "{}", unreachable.message);

    // A server that accepts and never answers.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = silent.local_addr().unwrap().port();
    let held = tokio::spawn(async move {
        let (socket, _) = silent.accept().await.unwrap();
        tokio::time::sleep(std::time::Duration::from_secs(30)).await;
        drop(socket);
    });
    let started = std::time::Instant::now();
    let timeout = f.settings.test_connection(trial(port, "x")).await.unwrap();
    assert_eq!(timeout.outcome, TestOutcome::Timeout, "{}", timeout.message);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(8),
        "a test answers within seconds"
    );
    held.abort();

    let invalid = f
        .settings
        .test_connection(ConnectionTest {
            interface_version: Some("4".into()),
            ..trial(port, "x")
        })
        .await
        .unwrap_err();
    assert!(matches!(invalid, SettingsError::Invalid(_)));
}

#[tokio::test]
async fn test_connection_tries_the_sandbox_even_when_it_is_not_the_connection() {
    let f = Fixture::new("[smpp]\nsandbox = false\n", &[]);
    let r = f
        .settings
        .test_connection(ConnectionTest {
            sandbox: Some(true),
            ..ConnectionTest::default()
        })
        .await
        .unwrap();
    assert_eq!(r.outcome, TestOutcome::Bound, "{}", r.message);
}

#[tokio::test]
async fn test_connection_tries_the_typed_server_even_while_the_sandbox_is_the_connection() {
    use std::sync::atomic::Ordering;
    let f = Fixture::new("[smpp]\nsandbox = true\n", &[]);
    let provider = listening().await;
    let r = f
        .settings
        .test_connection(ConnectionTest {
            sandbox: Some(false),
            ..trial(provider.port, "theirs")
        })
        .await
        .unwrap();
    assert_eq!(
        r.target,
        format!("127.0.0.1:{}", provider.port),
        "the typed server is the one tried"
    );
    assert_ne!(
        r.outcome,
        TestOutcome::Bound,
        "a server that hangs up binds nobody: {}",
        r.message
    );
    assert_eq!(provider.connections.load(Ordering::SeqCst), 1);
    let heard = provider.heard.lock().unwrap().clone();
    assert!(
        heard.windows(4).any(|w| w == b"acme"),
        "the bind went to the typed server"
    );
}

/// A server that records every byte sent to it, then hangs up: what a stranger would learn.
struct Listening {
    port: u16,
    heard: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    connections: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

async fn listening() -> Listening {
    use std::sync::atomic::Ordering;
    use tokio::io::AsyncReadExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let heard = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let connections = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (h, c) = (heard.clone(), connections.clone());
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            c.fetch_add(1, Ordering::SeqCst);
            let mut buf = [0u8; 512];
            // The bind PDU comes first; then the stranger hangs up.
            if let Ok(Ok(n)) = tokio::time::timeout(std::time::Duration::from_millis(500), socket.read(&mut buf)).await
            {
                h.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        }
    });
    Listening {
        port,
        heard,
        connections,
    }
}

#[tokio::test]
async fn the_saved_password_is_sent_only_to_the_saved_server_never_to_another() {
    use std::sync::atomic::Ordering;
    let saved = sandbox_with_password().await;
    let port = saved.addr().port();
    let other = listening().await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(crate::config::FILE_NAME);
    std::fs::write(
        &file,
        format!("[smpp]\nsandbox = false\nhost = \"127.0.0.1\"\nport = {port}\nsystem_id = \"acme\"\n"),
    )
    .unwrap();
    let secrets = SecretStore::encrypted_file(dir.path());
    secrets.set_password("right").unwrap();
    let config = crate::config::load(&file, []).unwrap();
    let (settings, running) = Settings::with_store(secrets, file, Vec::new(), config);
    assert_eq!(running.smpp.password, "right", "the scene: a password is saved");
    let to = |host: &str, port: u16, system_id: Option<&str>, password: Option<&str>| ConnectionTest {
        sandbox: Some(false),
        host: Some(host.into()),
        port: Some(port),
        system_id: system_id.map(Into::into),
        password: password.map(Into::into),
        ..ConnectionTest::default()
    };

    let same = settings
        .test_connection(to("127.0.0.1", port, Some("acme"), None))
        .await
        .unwrap();
    assert_eq!(
        same.outcome,
        TestOutcome::Bound,
        "the saved server gets the saved password: {}",
        same.message
    );

    for (host, p, system_id) in [
        ("127.0.0.1", other.port, Some("acme")),
        ("127.0.0.1", other.port, None),
        ("localhost", port, Some("acme")),
        ("127.0.0.1", port, Some("someone-else")),
    ] {
        let refused = settings
            .test_connection(to(host, p, system_id, None))
            .await
            .unwrap_err();
        let SettingsError::Invalid(errors) = refused else {
            panic!("{refused:?}")
        };
        assert_eq!(
            (errors[0].field.as_str(), errors[0].code.as_str()),
            ("smpp.password", "required"),
            "{host}:{p} as {system_id:?}"
        );
        assert!(
            errors[0].message.starts_with("type the password for this server"),
            "{}",
            errors[0].message
        );
    }
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert_eq!(
        other.connections.load(Ordering::SeqCst),
        0,
        "another server is not even contacted"
    );
    assert_eq!(saved.binds(), 1, "nor is the saved one bound as someone else");

    let typed = settings
        .test_connection(to("127.0.0.1", other.port, Some("acme"), Some("theirs")))
        .await
        .unwrap();
    assert_ne!(typed.outcome, TestOutcome::Bound);
    let heard = other.heard.lock().unwrap().clone();
    let has = |s: &str| heard.windows(s.len()).any(|w| w == s.as_bytes());
    assert!(
        has("acme") && has("theirs"),
        "a typed password goes where it was typed for"
    );
    assert!(!has("right"), "the saved password never reaches another server");
}

#[tokio::test]
async fn a_password_saved_for_tls_is_never_sent_in_clear_and_a_certificate_problem_is_its_own_outcome() {
    let cert = crate::sandbox::SandboxTls::self_signed(&["smsc.internal"]).unwrap();
    let pin = hex::encode(crate::smpp::session::pin_of(&cert.leaf_der().unwrap()));
    let smsc = Sandbox::start(SandboxConfig {
        password: Some("right".into()),
        tls: Some(cert),
        ..SandboxConfig::default()
    })
    .await
    .unwrap();
    let port = smsc.tls_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(crate::config::FILE_NAME);
    std::fs::write(
        &file,
        format!(
            "[smpp]\nsandbox = false\nhost = \"127.0.0.1\"\nport = {port}\nsystem_id = \"acme\"\n\
             tls = true\ntls_pin_sha256 = \"{pin}\"\n"
        ),
    )
    .unwrap();
    let secrets = SecretStore::encrypted_file(dir.path());
    secrets.set_password("right").unwrap();
    let config = crate::config::load(&file, []).unwrap();
    let (settings, _) = Settings::with_store(secrets, file, Vec::new(), config);

    let saved = settings.test_connection(ConnectionTest::default()).await.unwrap();
    assert_eq!(saved.outcome, TestOutcome::Bound, "{}", saved.message);

    let in_clear = ConnectionTest {
        tls: Some(false),
        ..ConnectionTest::default()
    };
    let SettingsError::Invalid(errors) = settings.test_connection(in_clear).await.unwrap_err() else {
        panic!("the saved password is not sent in clear")
    };
    assert_eq!(errors[0].field, "smpp.password");
    assert!(errors[0].message.ends_with("over TLS"), "{}", errors[0].message);

    let wrong_pin = ConnectionTest {
        tls_pin_sha256: Some("00".repeat(32)),
        ..ConnectionTest::default()
    };
    let refused = settings.test_connection(wrong_pin).await.unwrap();
    assert_eq!(refused.outcome, TestOutcome::Tls);
    assert!(refused.message.contains("not the pinned one"), "{}", refused.message);
    assert_eq!(smsc.binds(), 1, "only the first test bound");
    assert_eq!(smsc.connections().0, 0, "nothing in clear");
}
