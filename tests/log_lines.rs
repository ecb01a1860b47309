//! The log files of the built binary: a sign-in name holding a newline, a forged log line and
//! terminal escapes is written on the one line of the refused sign-in, escaped; no line of the
//! log file or of standard error is the name's own, and none of its control characters is there.

use std::time::Duration;

use serde_json::json;

use crate::support::{post_json_anonymous, start};

/// A name that would end the line, write one that reads like smsdesk's, conceal what follows on a
/// terminal (ESC [8m) and reverse it (U+202E).
const NAME: &str = "mallory\n2026-03-01T08:00:00.000000Z  INFO smsdesk: operator admin signed in\u{1b}[8m\r\u{202e}";

#[test]
fn a_sign_in_name_cannot_forge_a_log_line_or_an_escape() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let serve = start(&data, &["serve", "--http-port", "0"], &[]);
    let r = post_json_anonymous(
        &serve.url,
        "/api/v1/session",
        &json!({ "name": NAME, "password": "not the password" }),
    );
    assert_eq!(r.status, 401, "{}", r.body);
    serve.signal("TERM");
    let mut serve = serve;
    assert!(serve.wait(Duration::from_secs(20)).success());

    let mut logs = serve.stderr();
    for entry in std::fs::read_dir(data.join("logs")).unwrap() {
        logs.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap());
    }
    let refused: Vec<&str> = logs.lines().filter(|l| l.contains("a sign-in was refused")).collect();
    assert!(!refused.is_empty(), "the refused sign-in is logged:\n{logs}");
    for line in &refused {
        assert!(
            line.contains(r"mallory\u{a}2026-03-01") && line.contains(r"\u{1b}[8m"),
            "the name is on the refusal's own line, escaped: {line}"
        );
    }
    assert!(
        !logs
            .lines()
            .any(|l| l.contains("operator admin signed in") && !l.contains("a sign-in was refused")),
        "no line of the log is the name's own:\n{logs}"
    );
    assert!(
        !logs.contains('\r') && !logs.contains("\u{1b}[8m") && !logs.contains('\u{202e}'),
        "no control character of the name reaches the log"
    );
}
