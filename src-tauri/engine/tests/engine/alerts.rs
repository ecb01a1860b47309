//! Alerts over TCP, with real peers: an SMTP server (Debian's `python3-aiosmtpd`, started by the
//! test, writing what it receives to a Maildir) and a webhook receiver on localhost. The
//! provider's SMSC (the sandbox, as a provider on a port of its own) stops: after
//! `alerts.link_down_minutes` (1) one e-mail and one signed webhook say the link is down, nothing
//! comes between, and one of each says it is resolved once the SMSC is back and bound again. The
//! daily summary of the day before goes once, at its hour, in the office's language.

use std::net::TcpListener as StdListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::HeaderMap;
use smsdesk_engine::access::{Caller, Scope};
use smsdesk_engine::alerts::overview::TestAlert;
use smsdesk_engine::apikeys::NewApiKey;
use smsdesk_engine::sandbox::{Sandbox, SandboxConfig};
use smsdesk_engine::smpp::session::LinkState;
use smsdesk_engine::webhooks::verify;
use smsdesk_engine::Engine;

use crate::common::bound_engine;

/// A port nobody listens on now.
fn free_port() -> u16 {
    StdListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The Python that has aiosmtpd (the test command installs Debian's `python3-aiosmtpd`).
fn python_with_aiosmtpd() -> PathBuf {
    for p in ["/usr/bin/python3", "python3"] {
        let ok = Command::new(p)
            .args(["-c", "import aiosmtpd"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return p.into();
        }
    }
    panic!("no Python with aiosmtpd: install Debian's python3-aiosmtpd (`cargo xtask setup` does)");
}

/// aiosmtpd on 127.0.0.1, keeping each message it receives as a file of a Maildir.
struct SmtpServer {
    child: Child,
    maildir: tempfile::TempDir,
    port: u16,
}

impl SmtpServer {
    fn start() -> SmtpServer {
        let maildir = tempfile::tempdir().unwrap();
        let port = free_port();
        let child = Command::new(python_with_aiosmtpd())
            .args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}")])
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            // A folder that does not exist yet: the Maildir is made whole (tmp, new, cur).
            .arg(maildir.path().join("mail"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let until = Instant::now() + Duration::from_secs(15);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < until, "aiosmtpd listens within 15 s");
            std::thread::sleep(Duration::from_millis(100));
        }
        SmtpServer { child, maildir, port }
    }

    /// Every message received, oldest first.
    fn mails(&self) -> Vec<String> {
        let mut files: Vec<(std::time::SystemTime, PathBuf)> = ["new", "cur"]
            .iter()
            .filter_map(|d| std::fs::read_dir(self.maildir.path().join("mail").join(d)).ok())
            .flatten()
            .filter_map(|e| e.ok())
            .map(|e| (e.metadata().unwrap().modified().unwrap(), e.path()))
            .collect();
        files.sort();
        files
            .into_iter()
            .map(|(_, p)| std::fs::read_to_string(p).unwrap())
            .collect()
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The POSTs a webhook receiver got: (Smsdesk-Signature, Smsdesk-Delivery, body).
type Received = Arc<Mutex<Vec<(String, String, Vec<u8>)>>>;

async fn webhook_receiver() -> (String, Received) {
    let got: Received = Arc::default();
    let keep = got.clone();
    let app = axum::Router::new().route(
        "/alerts",
        axum::routing::post(move |headers: HeaderMap, body: Bytes| {
            let keep = keep.clone();
            async move {
                let h = |n: &str| headers.get(n).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
                keep.lock()
                    .unwrap()
                    .push((h("smsdesk-signature"), h("smsdesk-delivery"), body.to_vec()));
                "ok"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/alerts", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, got)
}

fn config(dir: &Path, smsc: u16, smtp: u16) {
    std::fs::write(
        dir.join("smsdesk.toml"),
        format!(
            r#"
[smpp]
sandbox = false
host = "127.0.0.1"
port = {smsc}

[alerts]
email_to = ["office@example.org"]
language = "en"
link_down_minutes = 1
check_seconds = 1
daily_summary = false

[smtp]
host = "127.0.0.1"
port = {smtp}
security = "none"
from = "smsdesk@example.org"
"#
        ),
    )
    .unwrap();
}

/// Waits up to `secs` for `f` to hold, looking every 200 ms.
async fn until(secs: u64, what: &str, mut f: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(secs);
    while !f() {
        assert!(Instant::now() < end, "{what} within {secs} s");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn subject(mail: &str) -> &str {
    mail.lines().find_map(|l| l.strip_prefix("Subject: ")).unwrap_or("")
}

async fn bound(engine: &Engine) -> bool {
    matches!(*engine.session().unwrap().state().borrow(), LinkState::Bound { .. })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_smsc_sends_one_link_down_email_and_webhook_then_one_resolved_when_it_is_back() {
    let smtp = SmtpServer::start();
    let smsc_port = free_port();
    let smsc = Sandbox::start(SandboxConfig {
        port: smsc_port,
        ..SandboxConfig::default()
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    config(dir.path(), smsc_port, smtp.port);
    let engine = bound_engine(dir.path()).await;
    let (url, posted) = webhook_receiver().await;
    let key = NewApiKey {
        name: "monitoring".into(),
        webhook_url: Some(url),
        scopes: Some(vec![Scope::Alerts]),
        ..NewApiKey::default()
    };
    let created = engine.service().create_key(&Caller::command_line(), key).await.unwrap();
    let secret = created.webhook_secret.unwrap();

    // The test alert first: both channels work.
    for channel in [
        smsdesk_engine::alerts::AlertChannel::Email,
        smsdesk_engine::alerts::AlertChannel::Webhook,
    ] {
        let r = engine
            .service()
            .test_alert(&Caller::command_line(), TestAlert { channel })
            .await
            .unwrap();
        assert!(r.sent, "{channel}: {}", r.detail);
    }
    until(10, "the test e-mail", || smtp.mails().len() == 1).await;
    assert_eq!(subject(&smtp.mails()[0]), "[smsdesk] Test alert");
    assert_eq!(posted.lock().unwrap().len(), 1);

    let stopped = Instant::now();
    smsc.stop();
    until(120, "the link-down e-mail", || smtp.mails().len() == 2).await;
    let after = stopped.elapsed();
    assert!(
        after >= Duration::from_secs(58),
        "not before link_down_minutes: after {after:?}"
    );
    let down = &smtp.mails()[1];
    assert_eq!(subject(down), "[smsdesk] ALERT: No connection to the SMS provider");
    assert!(down.contains("What to do:"), "{down}");
    until(10, "the link-down webhook", || posted.lock().unwrap().len() == 2).await;

    // Nothing more while it lasts (reminders every 60 minutes); then the SMSC comes back.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(smtp.mails().len(), 2, "one e-mail while it lasts");
    let smsc = Sandbox::start(SandboxConfig {
        port: smsc_port,
        ..SandboxConfig::default()
    })
    .await
    .unwrap();
    let end = Instant::now() + Duration::from_secs(120);
    while !bound(&engine).await {
        assert!(Instant::now() < end, "bound again within 120 s");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    until(30, "the resolved e-mail", || smtp.mails().len() == 3).await;
    assert_eq!(
        subject(&smtp.mails()[2]),
        "[smsdesk] Resolved: No connection to the SMS provider"
    );
    until(10, "the resolved webhook", || posted.lock().unwrap().len() == 3).await;

    let posts = posted.lock().unwrap().clone();
    let now_s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let events: Vec<String> = posts
        .iter()
        .map(|(signature, _, body)| {
            assert!(
                verify(&secret, signature, body, now_s, 300),
                "signed with the key's secret"
            );
            let v: serde_json::Value = serde_json::from_slice(body).unwrap();
            format!("{} {}", v["event"].as_str().unwrap(), v["rule"].as_str().unwrap_or("-"))
        })
        .collect();
    assert_eq!(events, ["test -", "fired all_links_down", "resolved all_links_down"]);
    assert_ne!(posts[1].1, posts[2].1, "each notice has its own delivery id");
    let overview = engine.service().alerts_overview().await.unwrap();
    assert_eq!(overview.alerts.len(), 1);
    assert!(overview.alerts[0].resolved_at_ms.is_some());
    engine.shutdown().await;
    smsc.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daily_summary_of_the_day_before_is_emailed_once_at_its_hour() {
    let smtp = SmtpServer::start();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("smsdesk.toml"),
        format!(
            r#"
[alerts]
email_to = ["office@example.org"]
language = "fr"
check_seconds = 1
summary_hour = 0

[smtp]
host = "127.0.0.1"
port = {}
security = "none"
from = "smsdesk@example.org"
"#,
            smtp.port
        ),
    )
    .unwrap();
    let started = jiff::Zoned::now();
    let engine = bound_engine(dir.path()).await;
    until(20, "the summary", || !smtp.mails().is_empty()).await;
    // Looked at every second: three more looks send nothing more.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mails = smtp.mails();
    assert_eq!(mails.len(), 1, "sent once");
    // The day before the one the summary was sent on (read before and after, should midnight pass).
    let days: Vec<String> = [started, jiff::Zoned::now()]
        .iter()
        .map(|z| format!("[smsdesk] Bilan du {}", z.date().yesterday().unwrap()))
        .collect();
    assert!(
        days.iter().any(|d| subject(&mails[0]) == d),
        "{:?} is not one of {days:?}",
        subject(&mails[0])
    );
    // The body in French (quoted-printable, as the mail carries it).
    assert!(mails[0].contains("Messages re=C3=A7us pour envoi : 0"), "{}", mails[0]);
    assert!(!mails[0].contains("Messages handed in"), "no English: {}", mails[0]);
    let overview = engine.service().alerts_overview().await.unwrap();
    let summary = &overview.other_notices[0];
    assert_eq!(summary.kind, smsdesk_engine::alerts::NoticeKind::Summary);
    assert_eq!(summary.outcome, smsdesk_engine::alerts::NoticeOutcome::Sent);
    assert_eq!(summary.detail.as_deref(), Some("office@example.org"));
    engine.shutdown().await;
}
