//! A start on the database of an earlier version that kept webhook secrets (and a password in a
//! webhook URL) in clear seals them: afterwards the database's files do not hold them.

use smsdesk_engine::api::RunMode;
use smsdesk_engine::engine::Prepared;
use smsdesk_engine::{apikeys, Engine, EngineOptions};
use smsdesk_store::{Store, StoreError};

const SECRET: &str = "whsec_kept_in_clear_by_an_earlier_version";
const PASSWORD: &str = "pa55-in-the-url";

fn database_bytes(root: &std::path::Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(root).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap().to_string_lossy().starts_with("smsdesk.db") {
            bytes.extend(std::fs::read(&path).unwrap());
        }
    }
    bytes
}

fn holds(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_seals_the_webhook_secrets_and_url_passwords_an_earlier_version_kept_in_clear() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_owned();
    let db = root.join("smsdesk.db");
    tokio::task::spawn_blocking(move || {
        let store = Store::open(&db).unwrap();
        store
            .writer()
            .write_blocking(|tx| {
                tx.sql_for_tests().execute(
                    "INSERT INTO api_key (name, prefix, hash, created_at, created_by, webhook_url, webhook_secret)
                     VALUES ('crm', 'sdk_old', 'h', 0, 'test', ?1, ?2)",
                    [format!("https://crm:{PASSWORD}@crm.example/hook"), SECRET.to_owned()],
                )?;
                Ok::<_, StoreError>(())
            })
            .unwrap();
        store.shutdown();
    })
    .await
    .unwrap();
    assert!(
        holds(&database_bytes(&root), SECRET),
        "the scene: the secret is in clear"
    );

    let env = [("SMSDESK_HTTP_PORT".to_owned(), "0".to_owned())];
    let engine = Engine::start(
        Prepared::load(root.clone(), env).unwrap(),
        EngineOptions {
            mode: RunMode::Serve,
            http_port: None,
            door: None,
        },
    )
    .await
    .unwrap();
    let keys = engine.store().reader().read(apikeys::list).await.unwrap();
    assert_eq!(
        keys[0].webhook_url.as_deref(),
        Some("https://crm:***@crm.example/hook"),
        "the key list shows the URL without its password"
    );
    engine.shutdown().await;

    let bytes = database_bytes(&root);
    for clear in [SECRET, PASSWORD] {
        assert!(
            !holds(&bytes, clear),
            "{clear} must not be left in the database's files"
        );
    }
}
