//! People and keys a test request is made as, over real HTTP: an API key, or an account with a
//! role, signed in with its session cookie and CSRF token.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use super::Running;

/// A credential a test request carries.
pub enum Who {
    Key(String),
    Session { cookie: String, csrf: String },
}

/// The password a test gives the account named `name`.
pub fn password(name: &str) -> String {
    format!("{name}-long-enough-password")
}

impl Running {
    /// `method path` as `who`, with a JSON body if any: the status and the JSON answer (null if none).
    pub async fn call_as(&self, who: &Who, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut r = self.http.request(method, format!("{}{path}", self.url));
        r = match who {
            Who::Key(k) => r.bearer_auth(k),
            Who::Session { cookie, csrf } => r.header("cookie", cookie).header("x-csrf-token", csrf),
        };
        if let Some(b) = body {
            r = r.json(&b);
        }
        let r = r.send().await.unwrap();
        let status = r.status();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    /// An account with `role`, made by the operator's key, and signed in.
    pub async fn signed_in(&self, name: &str, role: &str) -> Who {
        let admin = Who::Key(self.operator.clone());
        let body = json!({ "name": name, "role": role, "password": password(name) });
        let (status, _) = self.call_as(&admin, Method::POST, "/api/v1/accounts", Some(body)).await;
        assert_eq!(status, StatusCode::CREATED);
        let r = self
            .http
            .post(format!("{}/api/v1/session", self.url))
            .json(&json!({ "name": name, "password": password(name) }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        let cookie = r.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .to_owned();
        let me: Value = r.json().await.unwrap();
        Who::Session {
            cookie,
            csrf: me["csrf_token"].as_str().unwrap().to_owned(),
        }
    }
}
