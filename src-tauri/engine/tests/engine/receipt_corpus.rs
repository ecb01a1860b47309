//! The receipt corpus (`tests/fixtures/receipts/*.jsonl`) scored the way
//! `shared/fixtures/receipts/check.py` scores a parser command: the input fields of every item
//! go through `parse::jsonl::run` as JSON lines, and every key of the item's `expect` must equal
//! the output (strict JSON equality, an absent key counting as null; `keep` is compared with
//! `raw`). The failure message lists each mismatch.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use serde_json::{Map, Value};
use smsdesk_engine::receipts::parse::jsonl;

const INPUT_KEYS: [&str; 9] = [
    "id",
    "transport",
    "pdu",
    "esm_class",
    "data_coding",
    "text",
    "text_hex",
    "tlvs",
    "http",
];

const EXPECT_KEYS: [&str; 17] = [
    "message_id",
    "text_id",
    "event_id",
    "stat",
    "stat_raw",
    "err",
    "sub",
    "dlvrd",
    "submit_date",
    "done_date",
    "submit_ts",
    "done_ts",
    "kind",
    "batch_count",
    "keep",
    "raw",
    "parse_error",
];

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/receipts")
}

/// Every item of every `*.jsonl` file, with its file and line for messages.
fn load() -> Vec<(String, Map<String, Value>)> {
    let mut files: Vec<_> = std::fs::read_dir(corpus_dir())
        .expect("tests/fixtures/receipts exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no *.jsonl corpus in {}", corpus_dir().display());
    let mut items = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let where_ = format!("{}:{}", path.file_name().unwrap().to_string_lossy(), n + 1);
            match serde_json::from_str::<Value>(line) {
                Ok(Value::Object(item)) => items.push((where_, item)),
                other => panic!("{where_}: not a JSON object: {other:?}"),
            }
        }
    }
    items
}

fn short(v: Option<&Value>) -> String {
    let s = v.map_or_else(|| "<absent>".to_owned(), Value::to_string);
    if s.chars().count() > 90 {
        format!("{}...", s.chars().take(87).collect::<String>())
    } else {
        s
    }
}

#[test]
fn the_parser_meets_every_corpus_expectation() {
    let items = load();
    let mut input = String::new();
    for (_, item) in &items {
        let only_inputs: Map<String, Value> = INPUT_KEYS
            .iter()
            .filter_map(|k| item.get(*k).map(|v| ((*k).to_owned(), v.clone())))
            .collect();
        input.push_str(&Value::Object(only_inputs).to_string());
        input.push('\n');
    }
    let mut output = Vec::new();
    jsonl::run(input.as_bytes(), &mut output).expect("run never fails on in-memory I/O");
    let outs: Vec<Map<String, Value>> = String::from_utf8(output)
        .expect("output is UTF-8")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| match serde_json::from_str(l) {
            Ok(Value::Object(o)) => o,
            other => panic!("output line is not an object: {other:?}"),
        })
        .collect();
    let by_id: HashMap<&str, &Map<String, Value>> = outs
        .iter()
        .filter_map(|o| o.get("id").and_then(Value::as_str).map(|id| (id, o)))
        .collect();
    let use_ids = by_id.len() == outs.len() && !outs.is_empty();

    let mut failures = Vec::new();
    let mut per_key: HashMap<String, usize> = HashMap::new();
    for (idx, (where_, item)) in items.iter().enumerate() {
        let id = item.get("id").and_then(Value::as_str).unwrap_or("?");
        let out = if use_ids { by_id.get(id).copied() } else { outs.get(idx) };
        let Some(out) = out else {
            failures.push(format!("FAIL {id} ({where_}): no output line"));
            continue;
        };
        let Some(Value::Object(expect)) = item.get("expect") else {
            failures.push(format!("FAIL {id} ({where_}): no expect object"));
            continue;
        };
        let mut problems = Vec::new();
        for (key, want) in expect {
            let got = if key == "keep" {
                out.get("raw").or_else(|| out.get("keep"))
            } else {
                out.get(key)
            };
            if got.unwrap_or(&Value::Null) != want {
                problems.push(format!("{key}: expected {} got {}", short(Some(want)), short(got)));
                *per_key.entry(key.clone()).or_default() += 1;
            }
        }
        if !problems.is_empty() {
            failures.push(format!("FAIL {id} ({where_}): {}", problems.join("; ")));
        }
    }
    let mut keys: Vec<_> = per_key.into_iter().collect();
    keys.sort();
    assert!(
        failures.is_empty(),
        "{}\nmismatches by field: {}\n{} passed, {} failed",
        failures.join("\n"),
        keys.iter()
            .map(|(k, n)| format!("{k}={n}"))
            .collect::<Vec<_>>()
            .join(", "),
        items.len() - failures.len(),
        failures.len()
    );
}

#[test]
fn corpus_items_follow_the_fixture_format() {
    let items = load();
    assert!(items.len() >= 60, "the corpus should hold at least 60 items");
    let mut ids = HashSet::new();
    let mut problems = Vec::new();
    let mut providers = HashSet::new();
    for (where_, item) in &items {
        let id = item.get("id").and_then(Value::as_str).unwrap_or("");
        let mut bad = |msg: String| problems.push(format!("{where_} {id}: {msg}"));
        if id.is_empty() || !ids.insert(id.to_owned()) {
            bad("id missing or not unique".into());
        }
        let source = item.get("source").and_then(Value::as_str).unwrap_or("");
        let synthetic = item.get("synthetic") == Some(&Value::Bool(true));
        if synthetic != source.starts_with("synthetic") {
            bad("`synthetic: true` exactly when the source starts with `synthetic`".into());
        }
        let cited = source.starts_with("github:") || source.starts_with("page:");
        if !(synthetic || cited) {
            bad("source must be `github:owner/repo path`, `page:<address>` or `synthetic (...)`".into());
        }
        for key in ["expect", "notes", "tags", "text"] {
            if !item.contains_key(key) {
                bad(format!("no `{key}`"));
            }
        }
        if item.get("tags").and_then(Value::as_array).is_none_or(Vec::is_empty) {
            bad("tags must be a non-empty list".into());
        }
        if let Some(Value::Object(expect)) = item.get("expect") {
            for key in expect.keys() {
                if !EXPECT_KEYS.contains(&key.as_str()) {
                    bad(format!("unknown expect key `{key}`"));
                }
            }
            if expect.contains_key("keep") && expect.get("kind") != Some(&Value::from("unparseable")) {
                bad("`keep` is only for unparseable items".into());
            }
        }
        match item.get("transport").and_then(Value::as_str) {
            Some("smpp") => {
                if !matches!(item.get("pdu").and_then(Value::as_str), Some("deliver_sm" | "data_sm")) {
                    bad("smpp items need pdu deliver_sm or data_sm".into());
                }
                if !item.get("tlvs").is_some_and(Value::is_object) {
                    bad("smpp items need a tlvs object".into());
                }
                let text = item.get("text").and_then(Value::as_str).unwrap_or("");
                let printable = text.chars().all(|c| (' '..='~').contains(&c));
                if !printable && !item.contains_key("text_hex") {
                    bad("text with octets outside printable ASCII needs text_hex".into());
                }
            }
            Some("http") => {
                match item.get("http").and_then(|h| h.get("provider")).and_then(Value::as_str) {
                    Some(p) => {
                        providers.insert(p.to_owned());
                    }
                    None => bad("http items need http.provider".into()),
                }
                if item.get("text") != Some(&Value::Null) {
                    bad("http items have `text: null`".into());
                }
            }
            _ => bad("transport must be smpp or http".into()),
        }
    }
    for p in smsdesk_engine::receipts::parse::BUILTIN_PROVIDERS {
        if !providers.contains(*p) {
            problems.push(format!("no corpus item for provider `{p}`"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
