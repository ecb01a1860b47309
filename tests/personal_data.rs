//! Personal data on the built binary: a one-time code handed in to `smsdesk serve` is in no file
//! of the data directory (the database, its WAL, the logs) nor in the answers; `smsdesk export
//! --number` gives everything of one number and nothing of another; `smsdesk erase --number`
//! leaves none of the number's bytes anywhere, and its opt-out still refuses a new message.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::{files_under, post_json, run, start, stderr_file};

const NUMBER: &str = "+33612345600";
const OTHER: &str = "+33698765400";
const CODE: &str = "482913";

/// Every byte under `dir`, and the captured standard error beside it.
fn all_bytes(dir: &std::path::Path) -> Vec<u8> {
    let mut out = std::fs::read(stderr_file(dir)).unwrap_or_default();
    for file in files_under(dir) {
        out.extend(std::fs::read(&file).unwrap_or_default());
    }
    out
}

fn holds(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn codes_never_at_rest_and_a_number_erased_or_given_from_the_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let serve = start(&data, &["serve", "--http-port", "0"], &[]);
    let token = std::fs::read_to_string(data.join("operator.token")).unwrap();
    let token = token.trim();
    let send = |to: &str, text: &str, kind: &str| -> i64 {
        let r = post_json(
            &serve.url,
            "/api/v1/messages",
            token,
            &json!({ "destination": to, "text": text, "kind": kind }),
        );
        assert_eq!(r.status, 201, "{}", r.body);
        assert!(!r.body.contains(CODE), "the answer does not repeat the code");
        r.json()["id"].as_i64().unwrap()
    };
    let code = send(NUMBER, &format!("Votre code : {CODE}"), "otp");
    let mine: Vec<i64> = (0..3)
        .map(|i| send(NUMBER, &format!("canaryzq rendez-vous {i}"), "transactional"))
        .collect();
    let other = send(OTHER, "for another number", "transactional");
    let started = Instant::now();
    for id in mine.iter().chain([&code, &other]) {
        loop {
            let d = serve.get_as_operator(&format!("/api/v1/messages/{id}")).json();
            if d["queue"]["status"] == "accepted" && d["state"]["state"] == "delivered" {
                assert!(!d.to_string().contains(CODE), "the detail never shows the code");
                break;
            }
            assert!(started.elapsed() < Duration::from_secs(30), "{id} not delivered: {d}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    let r = post_json(
        &serve.url,
        "/api/v1/opt-outs",
        token,
        &json!({ "phone": NUMBER, "note": "asked by phone" }),
    );
    assert!(r.status < 300, "{}", r.body);

    let (status, out, err) = run(&data, &["export", "--number", NUMBER]);
    assert_eq!(status, 0, "{err}");
    let record: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ids: Vec<i64> = record["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [vec![code], mine.clone()].concat(), "every message of the number");
    assert_eq!(record["opt_outs"].as_array().unwrap().len(), 1);
    assert!(
        !out.contains("698765400") && !out.contains(CODE),
        "nothing of another number, no code"
    );
    let (status, csv, _) = run(&data, &["export", "--number", NUMBER, "--csv"]);
    assert_eq!(status, 0);
    assert!(
        csv.starts_with("what,id,at_ms,") && csv.lines().count() == 1 + 4 + 1,
        "{csv}"
    );

    let (status, out, err) = run(
        &data,
        &["erase", "--number", NUMBER, "--note", "request by letter of 3 May"],
    );
    assert_eq!(status, 0, "{err}");
    assert!(out.contains("Erased: 4 messages"), "{out}");
    let r = post_json(
        &serve.url,
        "/api/v1/messages",
        token,
        &json!({ "destination": NUMBER, "text": "again" }),
    );
    assert_eq!(r.status, 422, "still opted out: {}", r.body);
    assert!(r.body.contains("opted_out"), "{}", r.body);

    serve.signal("TERM");
    let mut serve = serve;
    assert!(serve.wait(Duration::from_secs(20)).success());
    let bytes = all_bytes(&data);
    assert!(!holds(&bytes, CODE), "the code is in no file, log line included");
    assert!(!holds(&bytes, "612345600"), "the erased number is in no file");
    assert!(!holds(&bytes, "canaryzq"), "nor its texts");
    assert!(holds(&bytes, "698765400"), "another number's messages stay");
}
