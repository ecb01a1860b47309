//! Webhook secrets and URL credentials at rest: sealed in the database, never shown, and still
//! what signs and reaches the receiver.

use super::*;
use crate::apikeys::{self, NewApiKey};

/// Every byte of the database's files (the database, and its -wal and -shm if any are left),
/// once the store is closed (as when smsdesk stops).
async fn database_bytes(e: Env) -> Vec<u8> {
    let Env { dir, store, .. } = e;
    tokio::task::spawn_blocking(move || {
        store.shutdown();
        drop(Arc::into_inner(store).expect("nothing else holds the store"));
    })
    .await
    .unwrap();
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap().to_string_lossy().starts_with("w.db") {
            bytes.extend(std::fs::read(&path).unwrap());
        }
    }
    bytes
}

/// The same data directory, its store shut and opened again (as a next start would).
async fn reopened(e: Env) -> Env {
    let Env { dir, store, rx, sealer } = e;
    tokio::task::spawn_blocking(move || {
        store.shutdown();
        drop(store);
    })
    .await
    .unwrap();
    let store = Store::open_with_clock(&dir.path().join("w.db"), crate::clock::following_tokio()).unwrap();
    Env {
        dir,
        store: Arc::new(store),
        rx,
        sealer,
    }
}

fn holds(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[tokio::test]
async fn a_new_keys_webhook_secret_and_url_credentials_stay_out_of_the_database_and_every_view_yet_sign_and_deliver() {
    let e = env().await;
    // The receiver's URL, with a password and a token as an integration may give them.
    let url =
        e.rx.url
            .replacen("http://", "http://crm:hunter2-pass@", 1)
            .replace("/hook", "/hook?token=t0k3n-value&order=1");
    let new = NewApiKey {
        name: "crm".into(),
        webhook_url: Some(url.clone()),
        ..NewApiKey::default()
    };
    let sealer = e.sealer.clone();
    let created = e
        .store
        .writer()
        .write(move |tx| apikeys::create(tx, &new, "operator", &sealer))
        .await
        .unwrap();
    let secret = created.webhook_secret.clone().expect("shown once, at creation");
    let shown =
        e.rx.url
            .replacen("http://", "http://crm:***@", 1)
            .replace("/hook", "/hook?token=***&order=1");
    assert_eq!(created.info.webhook_url.as_deref(), Some(shown.as_str()));

    let m = e.message(Some(created.info.id)).await;
    let w = e.start(config()).await;
    e.cancel(m).await;
    let d = e
        .wait_for(m, "the notification is delivered", all(WebhookStatus::Delivered))
        .await;
    w.stop().await;

    let seen = e.rx.seen();
    assert_eq!(seen.len(), 1);
    let signature = seen[0].headers["smsdesk-signature"].to_str().unwrap();
    assert!(
        verify(&secret, signature, &seen[0].body, now_s(), 300),
        "the secret shown at creation verifies the webhook"
    );
    assert_eq!(
        seen[0].query.as_deref(),
        Some("token=t0k3n-value&order=1"),
        "the full URL is delivered to"
    );
    let basic = seen[0].headers["authorization"].to_str().unwrap();
    assert_eq!(
        basic, "Basic Y3JtOmh1bnRlcjItcGFzcw==",
        "crm:hunter2-pass, from the URL"
    );

    assert_eq!(d[0].tries[0].url, shown, "the recorded try shows no credentials");
    let listed = e.store.reader().read(apikeys::list).await.unwrap();
    assert_eq!(
        listed[0].webhook_url.as_deref(),
        Some(shown.as_str()),
        "nor does the key list"
    );
    let audit = e
        .store
        .reader()
        .read(|c| crate::views::audit_log(c, None, None))
        .await
        .unwrap();
    let entry = audit
        .items
        .iter()
        .find(|a| a.action == crate::audit::AuditAction::ApiKeyCreate)
        .unwrap();
    let details = entry.details.as_ref().unwrap().to_string();
    assert!(
        details.contains(&shown) && !details.contains("hunter2") && !details.contains("t0k3n"),
        "nor does the audit: {details}"
    );

    let bytes = database_bytes(e).await;
    for clear in [secret.as_str(), "hunter2-pass", "t0k3n-value"] {
        assert!(
            !holds(&bytes, clear),
            "{clear} must not be in the database's files in clear"
        );
    }
}

#[tokio::test]
async fn a_failed_seal_fails_the_delivery_and_says_so_instead_of_sending_unsigned() {
    let e = env().await;
    let key = e.key(true).await;
    // As if secret.key had been replaced: the stored secret no longer opens.
    let other = tempfile::tempdir().unwrap();
    let stranger = Sealer::for_data_dir(other.path()).unwrap().seal("{\"secret\":\"x\"}");
    e.sql(
        "UPDATE api_key SET webhook_secret = ?2 WHERE id = ?1",
        vec![key.into(), stranger.into()],
    )
    .await;
    let m = e.message(Some(key)).await;
    let w = e.start(config()).await;
    e.cancel(m).await;
    let d = e.wait_for(m, "the delivery fails", all(WebhookStatus::Failed)).await;
    w.stop().await;
    assert!(e.rx.seen().is_empty(), "nothing is posted without its secret");
    let error = d[0].last_error.as_deref().unwrap();
    assert!(error.contains("secret cannot be opened"), "{error}");
    assert_eq!(d[0].attempts, 1, "trying again cannot help");
}

#[tokio::test]
async fn secrets_and_credentials_an_earlier_version_stored_in_clear_are_sealed_at_start_and_still_sign() {
    let e = env().await;
    let legacy_secret = "whsec_stored_in_clear_by_v0";
    let url = e.rx.url.replacen("http://", "http://crm:old-pa55word@", 1);
    let key = {
        let url = url.clone();
        e.store
            .writer()
            .write(move |tx| {
                tx.sql_for_tests().execute(
                    "INSERT INTO api_key (name, prefix, hash, created_at, created_by, webhook_url, webhook_secret)
                     VALUES ('crm', 'sdk_old', 'h', 0, 'test', ?1, ?2)",
                    params![url, legacy_secret],
                )?;
                Ok::<_, StoreError>(tx.sql_for_tests().last_insert_rowid())
            })
            .await
            .unwrap()
    };
    let m = e.message(Some(key)).await;
    e.cancel(m).await;
    // A try an earlier version recorded with the URL as given.
    e.sql(
        "INSERT INTO webhook_attempt (delivery_id, at, url, http_status, error, duration_ms)
         SELECT id, 0, ?1, 500, 'answered 500', 1 FROM webhook_delivery",
        vec![url.clone().into()],
    )
    .await;

    // That version stopped; this one starts on its database.
    let e = reopened(e).await;
    let done = target::seal_at_rest(&e.store, &e.sealer).await.unwrap();
    assert_eq!(done, target::SealedAtRest { keys: 1, tries: 1 });
    assert_eq!(
        target::seal_at_rest(&e.store, &e.sealer).await.unwrap(),
        target::SealedAtRest::default(),
        "a second start finds nothing to do"
    );

    let w = e.start(config()).await;
    let d = e
        .wait_for(m, "the notification is delivered", all(WebhookStatus::Delivered))
        .await;
    w.stop().await;
    let seen = e.rx.seen();
    let signature = seen[0].headers["smsdesk-signature"].to_str().unwrap();
    assert!(
        verify(legacy_secret, signature, &seen[0].body, now_s(), 300),
        "the receiver's secret did not change"
    );
    assert!(
        seen[0].headers.contains_key("authorization"),
        "the URL's credentials still go"
    );
    let shown = e.rx.url.replacen("http://", "http://crm:***@", 1);
    assert!(
        d[0].tries.iter().all(|t| t.url == shown),
        "old and new tries show no password: {:?}",
        d[0].tries
    );

    let bytes = database_bytes(e).await;
    for clear in [legacy_secret, "old-pa55word"] {
        assert!(
            !holds(&bytes, clear),
            "{clear} must be overwritten, not merely replaced"
        );
    }
}
