//! `GET /api/v1/metrics` on a running server: the Prometheus text format as Prometheus' own
//! `promtool check metrics` reads it (Debian's `prometheus` package, installed by the test
//! command), figures that count what was sent over the sandbox SMSC, and only for a key with the
//! scope `metrics` (or an admin).

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::json;
use smsdesk_engine::api::RunMode;

use crate::support::Running;

impl Running {
    async fn scrape(&self, key: &str) -> (StatusCode, String, String) {
        let r = self
            .http
            .get(format!("{}/api/v1/metrics", self.url))
            .bearer_auth(key)
            .send()
            .await
            .unwrap();
        let status = r.status();
        let kind = r
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default();
        (status, kind, r.text().await.unwrap())
    }

    /// Sends `n` messages with `key` and waits until each has its final receipt applied.
    async fn sent_and_delivered(&self, key: &str, first: usize, n: usize) {
        let before = self.count_where("projection", "state = 'delivered'");
        for i in first..first + n {
            let r = self
                .http
                .post(format!("{}/api/v1/messages", self.url))
                .bearer_auth(key)
                .json(&json!({ "destination": format!("+336123456{:02}", 50 + i), "text": "Votre rendez-vous est confirmé" }))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), StatusCode::CREATED);
        }
        let end = Instant::now() + Duration::from_secs(20);
        while self.count_where("projection", "state = 'delivered'") < before + n as i64 {
            assert!(
                Instant::now() < end,
                "delivered within 20 s: {} delivered, {} accepted, {} queued",
                self.count_where("projection", "state = 'delivered'"),
                self.count_where("queue", "status = 'accepted'"),
                self.count_where("queue", "status = 'queued'")
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// What `promtool check metrics` says of `text`: Ok, or its complaints.
fn promtool(text: &str) -> Result<(), String> {
    let mut child = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool runs (Debian's prometheus package; `cargo xtask setup` installs it)");
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() && said.trim().is_empty() {
        Ok(())
    } else {
        Err(said)
    }
}

fn sample<'a>(text: &'a str, series: &str) -> Option<&'a str> {
    text.lines().find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metrics_pass_promtool_and_count_what_the_sandbox_took_and_reported() {
    let t = Running::launch(None, vec![], RunMode::Serve).await;
    let (_, website) = t.key_with("website", &["send", "read:own"]).await;
    t.sent_and_delivered(&website, 0, 3).await;
    let (_, monitoring) = t.key_with("monitoring", &["metrics"]).await;

    let (status, kind, text) = t.scrape(&monitoring).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    assert!(kind.starts_with("text/plain; version=0.0.4"), "{kind}");
    promtool(&text).unwrap_or_else(|e| panic!("promtool: {e}\n{text}"));
    assert_eq!(
        sample(&text, r#"smsdesk_submits_total{outcome="accepted"}"#),
        Some("3"),
        "{text}"
    );
    assert_eq!(
        sample(&text, r#"smsdesk_receipts_total{stat="DELIVRD"}"#),
        Some("3"),
        "{text}"
    );
    assert_eq!(
        sample(&text, r#"smsdesk_delivery_state_messages{state="delivered"}"#),
        Some("3")
    );
    assert_eq!(sample(&text, r#"smsdesk_queue_messages{status="accepted"}"#), Some("3"));
    assert_eq!(sample(&text, "smsdesk_receipt_latency_seconds_count"), Some("3"));
    assert_eq!(
        sample(
            &text,
            r#"smsdesk_link_up{connection="sandbox",bind="1",role="transceiver"}"#
        ),
        Some("1")
    );
    assert!(
        sample(
            &text,
            r#"smsdesk_submit_answers_total{connection="sandbox",command_status="0x00000000",outcome="accepted"}"#
        ) == Some("3"),
        "{text}"
    );

    // A second scrape counts only what came since, and adds it.
    t.sent_and_delivered(&website, 3, 2).await;
    let (_, _, again) = t.scrape(&monitoring).await;
    assert_eq!(sample(&again, r#"smsdesk_receipts_total{stat="DELIVRD"}"#), Some("5"));
    promtool(&again).unwrap();

    // Without the scope: refused, and without a credential: unauthenticated.
    let (_, reader) = t.key_with("backoffice", &["read:all", "act", "export"]).await;
    let (status, _, body) = t.scrape(&reader).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(body.contains("\"forbidden\"") && body.contains("metrics"), "{body}");
    let anonymous = t.http.get(format!("{}/api/v1/metrics", t.url)).send().await.unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    // The person at this computer (an admin) may read them.
    let (status, _, _) = t.scrape(&t.operator.clone()).await;
    assert_eq!(status, StatusCode::OK);
    t.stop().await;
}
