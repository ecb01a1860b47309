//! Who may do what, over real HTTP on a real engine: each role (a person signed in with a
//! session cookie) and each scope of an API key, against each family of routes; what a key that
//! may read only its own messages sees in lists, details, exports and the event stream; sessions,
//! CSRF, the setup link and the sign-in slow-down.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use smsdesk_engine::api::RunMode;
use smsdesk_engine::audit::AuditAction;

use crate::support::Running;

/// A credential a test request carries.
#[derive(Clone)]
enum Who {
    Anonymous,
    Key(String),
    Session { cookie: String, csrf: String },
}

/// What these tests do with a running server (a trait of this module's own: the server type is
/// shared by every module of the binary).
trait AccessServer {
    async fn start() -> Running;
    fn call(&self, who: &Who, method: Method, path: &str) -> reqwest::RequestBuilder;
    async fn account(&self, name: &str, role: &str);
    async fn sign_in(&self, name: &str) -> Who;
    async fn send_as(&self, who: &Who, body: Value) -> i64;
    async fn status(&self, who: &Who, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value);
    fn audit_actor(&self, action: AuditAction) -> String;
}

impl AccessServer for Running {
    async fn start() -> Running {
        Running::launch(None, Vec::new(), RunMode::Serve).await
    }

    fn call(&self, who: &Who, method: Method, path: &str) -> reqwest::RequestBuilder {
        let r = self.http.request(method, format!("{}{path}", self.url));
        match who {
            Who::Anonymous => r,
            Who::Key(k) => r.bearer_auth(k),
            Who::Session { cookie, csrf } => r.header("cookie", cookie).header("x-csrf-token", csrf),
        }
    }

    /// Makes an account as the command line (the local admin) would.
    async fn account(&self, name: &str, role: &str) {
        let r = self
            .call(&Who::Key(self.operator.clone()), Method::POST, "/api/v1/accounts")
            .json(&json!({ "name": name, "role": role, "password": password(name) }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::CREATED, "{}", r.text().await.unwrap());
    }

    /// Signs `name` in; the session's cookie and CSRF token.
    async fn sign_in(&self, name: &str) -> Who {
        let r = self
            .call(&Who::Anonymous, Method::POST, "/api/v1/session")
            .json(&json!({ "name": name, "password": password(name) }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        let set = r.headers()["set-cookie"].to_str().unwrap().to_owned();
        for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] {
            assert!(set.contains(attribute), "the session cookie is {attribute}: {set}");
        }
        let me: Value = r.json().await.unwrap();
        Who::Session {
            cookie: set.split(';').next().unwrap().to_owned(),
            csrf: me["csrf_token"].as_str().unwrap().to_owned(),
        }
    }

    /// Hands in a message as `who`; its id.
    async fn send_as(&self, who: &Who, body: Value) -> i64 {
        let r = self
            .call(who, Method::POST, "/api/v1/messages")
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::CREATED, "{}", r.text().await.unwrap());
        r.json::<Value>().await.unwrap()["id"].as_i64().unwrap()
    }

    async fn status(&self, who: &Who, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut r = self.call(who, method, path);
        if let Some(b) = body {
            r = r.json(&b);
        }
        let r = r.send().await.unwrap();
        let status = r.status();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    fn audit_actor(&self, action: AuditAction) -> String {
        let c = rusqlite::Connection::open_with_flags(&self.db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        c.query_row(
            "SELECT actor FROM audit WHERE action = ?1 ORDER BY id DESC LIMIT 1",
            [action.as_str()],
            |r| r.get(0),
        )
        .unwrap()
    }
}

fn password(name: &str) -> String {
    format!("{name}-long-enough-password")
}

/// A message scheduled a month ahead: it waits in the queue, where it may be cancelled.
fn later(text: &str) -> Value {
    let month_ahead = smsdesk_engine::clock::Clock::system().now_ms() + 30 * 86_400_000;
    json!({ "destination": "+33612345678", "text": text,
            "scheduled_at": smsdesk_engine::clock::format_rfc3339(month_ahead) })
}

/// What one caller is expected to be allowed, by route family: written out here, not derived
/// from the code under test.
struct Expect {
    who: &'static str,
    send: bool,
    read_all: bool,
    act: bool,
    resolve: bool,
    export: bool,
    admin: bool,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_role_and_each_scope_may_exactly_its_route_families() {
    let t = Running::start().await;
    for (name, role) in [("Ada", "admin"), ("Olga", "operator"), ("Vik", "viewer")] {
        t.account(name, role).await;
    }
    let mut callers = vec![
        ("Ada", t.sign_in("Ada").await),
        ("Olga", t.sign_in("Olga").await),
        ("Vik", t.sign_in("Vik").await),
    ];
    for (label, scopes) in [
        ("website", vec!["send", "read:own"]),
        ("reader", vec!["read:all"]),
        ("actor", vec!["read:own", "act"]),
        ("resolver", vec!["read:all", "act"]),
        ("exporter", vec!["read:own", "export"]),
    ] {
        callers.push((label, Who::Key(t.key_with(label, &scopes).await.1)));
    }
    let expectations = [
        Expect {
            who: "Ada",
            send: true,
            read_all: true,
            act: true,
            resolve: true,
            export: true,
            admin: true,
        },
        Expect {
            who: "Olga",
            send: true,
            read_all: true,
            act: true,
            resolve: true,
            export: true,
            admin: false,
        },
        Expect {
            who: "Vik",
            send: false,
            read_all: true,
            act: false,
            resolve: false,
            export: false,
            admin: false,
        },
        Expect {
            who: "website",
            send: true,
            read_all: false,
            act: false,
            resolve: false,
            export: false,
            admin: false,
        },
        Expect {
            who: "reader",
            send: false,
            read_all: true,
            act: false,
            resolve: false,
            export: false,
            admin: false,
        },
        Expect {
            who: "actor",
            send: false,
            read_all: false,
            act: true,
            resolve: false,
            export: false,
            admin: false,
        },
        Expect {
            who: "resolver",
            send: false,
            read_all: true,
            act: true,
            resolve: true,
            export: false,
            admin: false,
        },
        Expect {
            who: "exporter",
            send: false,
            read_all: false,
            act: false,
            resolve: false,
            export: true,
            admin: false,
        },
    ];
    let operator = Who::Key(t.operator.clone());
    for e in expectations {
        let who = &callers.iter().find(|(l, _)| *l == e.who).unwrap().1;
        // A message of nobody's key: only those who read everything may see or act on it.
        let theirs = t.send_as(&operator, later("the office's own")).await;
        let families: Vec<(&str, bool, Method, String, Option<Value>)> = vec![
            (
                "send",
                e.send,
                Method::POST,
                "/api/v1/messages".into(),
                Some(later("hello")),
            ),
            (
                "preview",
                e.send,
                Method::POST,
                "/api/v1/messages/preview".into(),
                Some(json!({"messages": [later("x")]})),
            ),
            (
                "read another's message",
                e.read_all,
                Method::GET,
                format!("/api/v1/messages/{theirs}"),
                None,
            ),
            ("exceptions", e.read_all, Method::GET, "/api/v1/exceptions".into(), None),
            ("dashboard", e.read_all, Method::GET, "/api/v1/dashboard".into(), None),
            ("pace", e.read_all, Method::GET, "/api/v1/dashboard/pace".into(), None),
            ("nodes", e.read_all, Method::GET, "/api/v1/nodes".into(), None),
            (
                "report",
                e.read_all,
                Method::GET,
                "/api/v1/reports/delivery?from_ms=0&to_ms=3600000".into(),
                None,
            ),
            ("audit", e.read_all, Method::GET, "/api/v1/audit".into(), None),
            (
                "resolve",
                e.resolve,
                Method::POST,
                "/api/v1/exceptions/999999/resolve".into(),
                Some(json!({"action": "dismiss", "note": "n"})),
            ),
            ("export", e.export, Method::GET, "/api/v1/messages/export".into(), None),
            ("settings", e.admin, Method::GET, "/api/v1/settings".into(), None),
            ("keys", e.admin, Method::GET, "/api/v1/keys".into(), None),
            ("accounts", e.admin, Method::GET, "/api/v1/accounts".into(), None),
            ("sessions", e.admin, Method::GET, "/api/v1/sessions".into(), None),
            ("personal data", e.admin, Method::GET, "/api/v1/privacy".into(), None),
            (
                "access by number",
                e.admin,
                Method::POST,
                "/api/v1/privacy/subject".into(),
                Some(json!({"number": "+33612345678"})),
            ),
            (
                "erasure",
                e.admin,
                Method::POST,
                "/api/v1/privacy/erase".into(),
                Some(json!({"number": "+33699999999", "note": "access test"})),
            ),
            (
                "retention",
                e.admin,
                Method::POST,
                "/api/v1/privacy/retention/run".into(),
                None,
            ),
        ];
        for (family, allowed, method, path, body) in families {
            let (status, answer) = t.status(who, method, &path, body).await;
            if allowed {
                assert!(
                    ![StatusCode::UNAUTHORIZED, StatusCode::FORBIDDEN].contains(&status)
                        && (status.is_success() || status == StatusCode::NOT_FOUND && family == "resolve"),
                    "{}: `{family}` is allowed: {status} {answer}",
                    e.who
                );
            } else if family == "read another's message" && matches!(who, Who::Key(_)) {
                // Each of these keys reads its own: another's message does not exist for it.
                assert_eq!(status, StatusCode::NOT_FOUND, "{}: `{family}`: {answer}", e.who);
            } else {
                assert_eq!(
                    status,
                    StatusCode::FORBIDDEN,
                    "{}: `{family}` is refused: {answer}",
                    e.who
                );
                assert_eq!(answer["code"], "forbidden", "{}: {answer}", e.who);
            }
        }
        // Acting on a message it may read.
        let own = if e.send {
            t.send_as(who, later("mine")).await
        } else {
            theirs
        };
        let (status, answer) = t
            .status(
                who,
                Method::POST,
                &format!("/api/v1/messages/{own}/cancel"),
                Some(json!({"note": "n"})),
            )
            .await;
        let may_act_here = e.act && (e.read_all || e.send);
        if may_act_here {
            assert_eq!(status, StatusCode::NO_CONTENT, "{}: cancels: {answer}", e.who);
            let actor = t.audit_actor(AuditAction::MessageCancel);
            let named = if matches!(who, Who::Key(_)) {
                format!("api key {}", e.who)
            } else {
                e.who.to_owned()
            };
            assert_eq!(actor, named, "the audit names who cancelled");
        } else if e.act {
            assert_eq!(
                status,
                StatusCode::NOT_FOUND,
                "{}: cannot act on what it cannot read: {answer}",
                e.who
            );
        } else {
            assert_eq!(status, StatusCode::FORBIDDEN, "{}: may not act: {answer}", e.who);
        }
    }
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_website_keys_default_scopes_cannot_read_another_keys_code_in_any_route() {
    let t = Running::start().await;
    let (_, website) = t.key_with("website", &[]).await;
    let (_, clinic) = t.key_with("clinic", &[]).await;
    let (website, clinic) = (Who::Key(website), Who::Key(clinic));
    let code = t
        .send_as(
            &clinic,
            json!({"destination": "+33612345678", "text": "Your code is 771204", "kind": "otp"}),
        )
        .await;
    let mine = t.send_as(&website, later("Your table is booked")).await;

    let (status, _) = t
        .status(&website, Method::GET, &format!("/api/v1/messages/{code}"), None)
        .await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "another key's message does not exist for it"
    );
    let (status, _) = t
        .status(&website, Method::GET, &format!("/api/v1/messages/{mine}"), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, page) = t.status(&website, Method::GET, "/api/v1/messages", None).await;
    let ids: Vec<i64> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![mine], "its list holds its own messages only");
    assert!(
        !page.to_string().contains("771204"),
        "the code is nowhere in its answers"
    );
    let (status, _) = t.status(&website, Method::GET, "/api/v1/messages/export", None).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "no export scope by default");
    let (status, _) = t.status(&website, Method::GET, "/api/v1/exceptions", None).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "exceptions hold everyone's evidence");

    // With `export`, a key that reads its own exports its own rows only.
    let (_, exporter) = t.key_with("exporter", &["send", "read:own", "export"]).await;
    let exporter = Who::Key(exporter);
    let exported_own = t.send_as(&exporter, later("exported")).await;
    let csv = t
        .call(&exporter, Method::GET, "/api/v1/messages/export")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(csv.lines().count(), 2, "a header and its one message: {csv}");
    assert!(csv.contains("exported") && !csv.contains("771204"), "{csv}");
    let _ = exported_own;
    t.stop().await;
}

/// The `change` events a stream of `who` announces within `within`, as (entity, id).
async fn events_heard(
    t: &Running,
    who: &Who,
    within: Duration,
    while_doing: impl std::future::Future<Output = ()>,
) -> String {
    let mut stream = t.call(who, Method::GET, "/api/v1/events").send().await.unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    while_doing.await;
    let mut heard = String::new();
    let deadline = tokio::time::Instant::now() + within;
    while let Ok(Ok(Some(chunk))) = tokio::time::timeout_at(deadline, stream.chunk()).await {
        heard.push_str(&String::from_utf8_lossy(&chunk));
    }
    heard
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_reading_only_its_own_hears_only_of_its_own_messages_on_the_event_stream() {
    let t = Running::start().await;
    let website = Who::Key(t.key_with("website", &[]).await.1);
    let clinic = Who::Key(t.key_with("clinic", &[]).await.1);
    let (tx, rx) = tokio::sync::oneshot::channel();
    let heard = events_heard(&t, &website, Duration::from_secs(3), async {
        let theirs = t.send_as(&clinic, later("clinic's")).await;
        let mine = t.send_as(&website, later("website's")).await;
        tx.send((theirs, mine)).unwrap();
    })
    .await;
    let (theirs, mine) = rx.await.unwrap();
    assert!(
        heard.contains(&format!("\"id\":{mine}")),
        "it hears of its own message: {heard}"
    );
    assert!(
        !heard.contains(&format!("\"id\":{theirs}")) && !heard.contains("\"entity\":\"audit\""),
        "nothing of another key's message, nor of the audit log: {heard}"
    );
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_needs_its_csrf_token_to_change_anything_and_ends_at_sign_out() {
    let t = Running::start().await;
    t.account("Olga", "operator").await;
    let Who::Session { cookie, csrf } = t.sign_in("Olga").await else {
        unreachable!()
    };
    let no_csrf = Who::Session {
        cookie: cookie.clone(),
        csrf: String::new(),
    };
    let (status, body) = t
        .status(&no_csrf, Method::POST, "/api/v1/messages", Some(later("x")))
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("csrf_token_missing"))
    );
    assert_eq!(
        t.count_where("message", "1"),
        0,
        "nothing was written without the token"
    );
    let (status, me) = t.status(&no_csrf, Method::GET, "/api/v1/me", None).await;
    assert_eq!(status, StatusCode::OK, "reading needs no CSRF token");
    assert_eq!(
        (me["actor"].as_str(), me["role"].as_str()),
        (Some("Olga"), Some("operator"))
    );
    assert_eq!(me["csrf_token"].as_str(), Some(csrf.as_str()));

    let session = Who::Session { cookie, csrf };
    t.send_as(&session, later("from Olga's browser")).await;
    let (status, _) = t.status(&session, Method::DELETE, "/api/v1/session", None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _) = t.status(&session, Method::GET, "/api/v1/me", None).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "the cookie is worth nothing after sign-out"
    );
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_sign_ins_are_answered_alike_and_slowed_down() {
    let t = Running::start().await;
    t.account("Olga", "operator").await;
    let attempt = |name: &'static str, pw: &'static str| {
        let t = &t;
        async move {
            t.status(
                &Who::Anonymous,
                Method::POST,
                "/api/v1/session",
                Some(json!({"name": name, "password": pw})),
            )
            .await
        }
    };
    let (s1, unknown) = attempt("Nobody", "whatever-password").await;
    let (s2, wrong) = attempt("Olga", "wrong-password-1").await;
    assert_eq!((s1, s2), (StatusCode::UNAUTHORIZED, StatusCode::UNAUTHORIZED));
    assert_eq!(
        unknown, wrong,
        "an unknown name and a wrong password get the same answer"
    );
    for _ in 0..4 {
        attempt("Olga", "wrong-password-1").await;
    }
    let r = t
        .call(&Who::Anonymous, Method::POST, "/api/v1/session")
        .json(&json!({"name": "Olga", "password": password("Olga")}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::TOO_MANY_REQUESTS,
        "even the right password waits after five failures for the account from this address"
    );
    assert!(r.headers().contains_key("retry-after"));
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_setup_link_makes_the_first_admin_once() {
    let t = Running::start().await;
    let (_, state) = t.status(&Who::Anonymous, Method::GET, "/api/v1/setup", None).await;
    assert_eq!(state["open"], true);
    let token = t.engine().service().issue_setup_token().await.unwrap().unwrap();
    let body = |token: &str| json!({"token": token, "name": "Ada", "password": password("Ada")});
    let (status, refused) = t
        .status(
            &Who::Anonymous,
            Method::POST,
            "/api/v1/setup",
            Some(body("setup_wrong")),
        )
        .await;
    assert_eq!(
        (status, refused["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("setup_token_invalid"))
    );
    let (status, me) = t
        .status(&Who::Anonymous, Method::POST, "/api/v1/setup", Some(body(&token)))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{me}");
    assert_eq!((me["actor"].as_str(), me["admin"].as_bool()), (Some("Ada"), Some(true)));
    let (status, _) = t
        .status(&Who::Anonymous, Method::POST, "/api/v1/setup", Some(body(&token)))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "single use");
    let (_, state) = t.status(&Who::Anonymous, Method::GET, "/api/v1/setup", None).await;
    assert_eq!(state["open"], false);
    assert_eq!(
        t.engine().service().issue_setup_token().await.unwrap(),
        None,
        "no link once an account exists"
    );
    // The actor is the new admin by name alone; how the account came (the setup link) is a fact
    // in the entry's details, which the screens word.
    assert_eq!(t.audit_actor(AuditAction::AccountCreate), "Ada");
    let c = rusqlite::Connection::open_with_flags(&t.db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let (note, details): (Option<String>, String) = c
        .query_row(
            "SELECT note, details_json FROM audit WHERE action = 'account.create' ORDER BY id DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let details: Value = serde_json::from_str(&details).unwrap();
    assert_eq!(
        (note, details["via"].as_str(), details["role"].as_str()),
        (None, Some("setup_link"), Some("admin"))
    );
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keys_limits_refuse_what_is_beyond_them_with_their_own_codes() {
    let t = Running::start().await;
    let r = t
        .call(&Who::Key(t.operator.clone()), Method::POST, "/api/v1/keys")
        .json(&json!({"name": "shop", "limits": {"per_minute": 2, "destination_prefixes": ["+33"]}}))
        .send()
        .await
        .unwrap();
    let shop = Who::Key(r.json::<Value>().await.unwrap()["key"].as_str().unwrap().to_owned());
    let (status, body) = t
        .status(
            &shop,
            Method::POST,
            "/api/v1/messages",
            Some(json!({"destination": "+447911123456", "text": "hi"})),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("destination_not_allowed")),
        "{body}"
    );
    t.send_as(&shop, later("one")).await;
    t.send_as(&shop, later("two")).await;
    let r = t
        .call(&shop, Method::POST, "/api/v1/messages")
        .json(&later("three"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    let wait: u64 = r.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "rate_limited");
    assert_eq!(
        t.count_where("message", "1"),
        2,
        "the refused messages were not written"
    );
    t.stop().await;
}

/// Waits until message `id` is accepted by the sandbox SMSC.
async fn accepted(t: &Running, who: &Who, id: i64) {
    for _ in 0..200 {
        let (_, m) = t
            .status(who, Method::GET, &format!("/api/v1/messages/{id}"), None)
            .await;
        if m["queue"]["status"] == "accepted" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("message {id} was never accepted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_manual_retry_obeys_the_kinds_tries_and_only_an_admin_overrides_with_a_note() {
    let t = Running::start().await;
    t.account("Ada", "admin").await;
    t.account("Olga", "operator").await;
    let (ada, olga) = (t.sign_in("Ada").await, t.sign_in("Olga").await);
    let code = t
        .send_as(
            &olga,
            json!({"destination": "+33612345678", "text": "Your code is 4821", "kind": "otp"}),
        )
        .await;
    accepted(&t, &olga, code).await;
    let path = format!("/api/v1/messages/{code}/retry");
    let retry = |who: &Who, body: Value| {
        let (who, path) = (who.clone(), path.clone());
        let t = &t;
        async move { t.status(&who, Method::POST, &path, Some(body)).await }
    };
    let (status, body) = retry(&olga, json!({"note": "customer asked", "confirm_duplicate": true})).await;
    assert_eq!(
        status,
        StatusCode::NO_CONTENT,
        "an OTP's second try is within its two: {body}"
    );
    accepted(&t, &olga, code).await;
    let (status, body) = retry(&olga, json!({"note": "again", "confirm_duplicate": true})).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::CONFLICT, Some("attempts_exhausted")),
        "{body}"
    );
    assert!(
        body["message"].as_str().unwrap().contains("retry.otp_max_attempts"),
        "{body}"
    );

    let overriding = |note: &str| json!({"note": note, "confirm_duplicate": true, "override_limits": true});
    let (status, _) = retry(&olga, overriding("please")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "an operator may not override");
    let (status, body) = retry(&ada, overriding(" ")).await;
    assert_eq!(
        (status, body["errors"][0]["field"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("note"))
    );
    let (status, body) = retry(&ada, overriding("the customer's phone was off; sending once more")).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    assert_eq!(
        t.audit_actor(AuditAction::MessageRetryOverride),
        "Ada",
        "the override is audited with who did it"
    );
    assert_eq!(
        t.count_where(
            "audit",
            "action = 'message.retry_override' AND note LIKE 'the customer%'"
        ),
        1
    );
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_sees_who_is_signed_in_from_where_and_ends_a_session_at_once() {
    let t = Running::start().await;
    t.account("Ada", "admin").await;
    t.account("Olga", "operator").await;
    let (ada, olga) = (t.sign_in("Ada").await, t.sign_in("Olga").await);
    let (status, sessions) = t.status(&ada, Method::GET, "/api/v1/sessions", None).await;
    assert_eq!(status, StatusCode::OK);
    let theirs = sessions
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["account_name"] == "Olga")
        .expect("Olga's session is listed");
    assert_eq!(theirs["address"], "127.0.0.1", "with the address it signed in from");
    let id = theirs["id"].as_i64().unwrap();
    let (status, _) = t
        .status(&ada, Method::POST, &format!("/api/v1/sessions/{id}/revoke"), None)
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _) = t.status(&olga, Method::GET, "/api/v1/me", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "an ended session is refused at once");
    assert_eq!(t.audit_actor(AuditAction::SessionRevoke), "Ada");

    // Disabling an account ends its sessions too, and the last admin stays one.
    let olga = t.sign_in("Olga").await;
    let (_, accounts) = t.status(&ada, Method::GET, "/api/v1/accounts", None).await;
    let id_of = |name: &str| {
        accounts.as_array().unwrap().iter().find(|a| a["name"] == name).unwrap()["id"]
            .as_i64()
            .unwrap()
    };
    let (status, _) = t
        .status(
            &ada,
            Method::PATCH,
            &format!("/api/v1/accounts/{}", id_of("Olga")),
            Some(json!({"disabled": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = t.status(&olga, Method::GET, "/api/v1/me", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a disabled account's session ends");
    let (status, body) = t
        .status(
            &ada,
            Method::PATCH,
            &format!("/api/v1/accounts/{}", id_of("Ada")),
            Some(json!({"role": "viewer"})),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::CONFLICT, Some("last_admin"))
    );
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_password_ends_the_persons_other_sessions_and_keeps_this_one() {
    let t = Running::start().await;
    t.account("Olga", "operator").await;
    let (here, elsewhere) = (t.sign_in("Olga").await, t.sign_in("Olga").await);
    let change = |current: &str| json!({"current": current, "new": "a brand new password"});
    let (status, body) = t
        .status(
            &here,
            Method::POST,
            "/api/v1/me/password",
            Some(change("not it at all")),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        (body["errors"][0]["field"].as_str(), body["errors"][0]["code"].as_str()),
        (Some("current"), Some("wrong_password"))
    );
    let (status, _) = t
        .status(
            &here,
            Method::POST,
            "/api/v1/me/password",
            Some(change(&password("Olga"))),
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(
        t.status(&here, Method::GET, "/api/v1/me", None).await.0,
        StatusCode::OK,
        "this session goes on"
    );
    assert_eq!(
        t.status(&elsewhere, Method::GET, "/api/v1/me", None).await.0,
        StatusCode::UNAUTHORIZED,
        "the others end"
    );
    let key = Who::Key(t.operator.clone());
    let (status, _) = t
        .status(&key, Method::POST, "/api/v1/me/password", Some(change("x")))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "only a person has a password to change");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_is_not_a_json_object_is_refused_and_changes_nothing() {
    let t = Running::start().await;
    t.account("Olga", "operator").await;
    let admin = Who::Key(t.operator.clone());
    // serde would read a struct from an array of its fields: `[null, null]` is no change at all,
    // `["Olga", "viewer"]` would not even name its fields.
    for (path, method, body) in [
        ("/api/v1/accounts/1", Method::PATCH, json!([null, "viewer"])),
        ("/api/v1/messages", Method::POST, json!(["+33612345678", "hello"])),
        ("/api/v1/accounts", Method::POST, json!("Olga")),
    ] {
        let (status, answer) = t.status(&admin, method, path, Some(body)).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{path}: {answer}");
        assert_eq!(answer["errors"][0]["field"], "body", "{answer}");
    }
    assert_eq!(t.count_where("message", "1"), 0);
    assert_eq!(
        t.count_where("account", "role = 'operator'"),
        1,
        "Olga is still an operator"
    );
    t.stop().await;
}
