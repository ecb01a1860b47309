//! A real engine for the API tests: a fresh data directory, the sandbox SMSC over TCP, a real
//! SQLite file, and an HTTP server on a free loopback port. Each test file adds the requests it
//! needs as methods of its own (`impl Running` in that file).

#![allow(dead_code)] // each test binary uses its own part of this

use std::path::PathBuf;

use smsdesk_engine::api::RunMode;
use smsdesk_engine::engine::Prepared;
use smsdesk_engine::{Engine, EngineOptions};

pub mod people;
pub mod raw;

pub struct Running {
    pub dir: tempfile::TempDir,
    pub engine: Option<Engine>,
    pub url: String,
    /// The database file, to count rows on a connection of the test's own.
    pub db: PathBuf,
    /// The operator's token, as the engine wrote it in the data directory.
    pub operator: String,
    pub http: reqwest::Client,
}

impl Running {
    /// Starts an engine in `mode` with `env` as its environment (an HTTP port of 0 is added) and,
    /// when given, `toml` as its config file.
    pub async fn launch(toml: Option<&str>, env: Vec<(String, String)>, mode: RunMode) -> Running {
        Running::launch_with_ui(toml, env, mode, None).await
    }

    /// As [`Running::launch`], serving `ui` as the UI's files.
    pub async fn launch_with_ui(
        toml: Option<&str>,
        env: Vec<(String, String)>,
        mode: RunMode,
        ui: Option<std::sync::Arc<dyn smsdesk_http::UiAssets>>,
    ) -> Running {
        let dir = tempfile::tempdir().unwrap();
        if let Some(toml) = toml {
            std::fs::write(dir.path().join("smsdesk.toml"), toml).unwrap();
        }
        let mut all = vec![("SMSDESK_HTTP_PORT".to_owned(), "0".to_owned())];
        all.extend(env);
        let prepared = Prepared::load(dir.path().to_owned(), all).unwrap();
        let engine = Engine::start(
            prepared,
            EngineOptions {
                mode,
                http_port: None,
                door: Some(smsdesk_http::HttpDoor::new(ui)),
            },
        )
        .await
        .unwrap();
        let url = engine.info().http_url.clone().unwrap();
        let db = PathBuf::from(&engine.info().database_path);
        let operator = std::fs::read_to_string(dir.path().join("operator.token")).unwrap();
        Running {
            dir,
            engine: Some(engine),
            url,
            db,
            operator,
            http: reqwest::Client::new(),
        }
    }

    /// The server's address, for requests written byte by byte (see [`raw`]).
    pub fn addr(&self) -> std::net::SocketAddr {
        self.url.trim_start_matches("http://").parse().unwrap()
    }

    pub fn engine(&self) -> &Engine {
        self.engine.as_ref().unwrap()
    }

    pub async fn stop(mut self) {
        self.engine.take().unwrap().shutdown().await;
    }

    /// A new API key with every scope (`send read:all act export`), made by the operator: its
    /// id and the key.
    pub async fn key(&self, name: &str) -> (i64, String) {
        self.key_with(name, &["send", "read:all", "act", "export"]).await
    }

    /// A new API key with `scopes` (the default ones when empty), made by the operator: its id
    /// and the key.
    pub async fn key_with(&self, name: &str, scopes: &[&str]) -> (i64, String) {
        let scopes = (!scopes.is_empty()).then_some(scopes);
        let r = self
            .http
            .post(format!("{}/api/v1/keys", self.url))
            .bearer_auth(&self.operator)
            .json(&serde_json::json!({ "name": name, "scopes": scopes }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), reqwest::StatusCode::CREATED);
        let v: serde_json::Value = r.json().await.unwrap();
        (v["info"]["id"].as_i64().unwrap(), v["key"].as_str().unwrap().to_owned())
    }

    /// Counts rows on a connection of its own, as any other program reading the file would.
    pub fn count_where(&self, table: &str, condition: &str) -> i64 {
        let c = rusqlite::Connection::open_with_flags(&self.db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        c.query_row(&format!("SELECT count(*) FROM {table} WHERE {condition}"), [], |r| {
            r.get(0)
        })
        .unwrap()
    }
}
