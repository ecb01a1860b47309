//! Replies and opt-outs end to end: an SMSC (the sandbox, in its own task, over TCP) hands the
//! engine messages from handsets, and the API shows what became of them: the inbox, the opt-out
//! list with its evidence, intake refusing opted-out numbers, queued messages held, one-time
//! codes still sent, and START taking a number off the list.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};
use smsdesk_engine::api::RunMode;
use smsdesk_engine::sandbox::{Mo, MoStyle, Sandbox, SandboxConfig};

use crate::support::Running;

/// Far above what any step here takes: only a step that never happens reaches it.
const PATIENCE: Duration = Duration::from_secs(20);

struct World {
    t: Running,
    sandbox: Sandbox,
    key: String,
}

/// An engine bound to a sandbox SMSC of the test's own (not the embedded one), so the test can
/// make handsets reply.
async fn world() -> World {
    let sandbox = Sandbox::start(SandboxConfig {
        receipt_delay: Duration::from_millis(20),
        ..SandboxConfig::default()
    })
    .await
    .unwrap();
    let port = sandbox.addr().port().to_string();
    let env = [
        ("SMSDESK_SMPP_SANDBOX", "false"),
        ("SMSDESK_SMPP_HOST", "127.0.0.1"),
        ("SMSDESK_SMPP_PORT", port.as_str()),
        ("SMSDESK_SMPP_TPS", "200"),
        ("SMSDESK_INTAKE_DEFAULT_REGION", "FR"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let t = Running::launch(None, env, RunMode::Serve).await;
    let (_, key) = t.key("office").await;
    World { t, sandbox, key }
}

impl World {
    fn reply(&self, from: &str, text: &str, style: MoStyle) {
        let queued = self.sandbox.inject_mo(Mo {
            from: from.into(),
            to: "smsdesk".into(),
            text: text.into(),
            style,
        });
        assert!(queued >= 1);
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        let r = self
            .t
            .http
            .get(format!("{}/api/v1{path}", self.t.url))
            .bearer_auth(&self.key)
            .send()
            .await
            .unwrap();
        let status = r.status();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        let r = self
            .t
            .http
            .post(format!("{}/api/v1{path}", self.t.url))
            .bearer_auth(&self.key)
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = r.status();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    async fn send(&self, to: &str, text: &str, kind: &str) -> (StatusCode, Value) {
        self.post("/messages", json!({ "destination": to, "text": text, "kind": kind }))
            .await
    }

    /// The number's current opt-out entry, once it has one.
    async fn opted_out(&self, phone: &str) -> Value {
        self.until(|| async {
            let (_, page) = self
                .get(&format!("/opt-outs?q={}", phone.trim_start_matches('+')))
                .await;
            page["items"]
                .as_array()
                .and_then(|items| items.iter().find(|e| e["phone"] == phone).cloned())
        })
        .await
    }

    /// The thread's lines, once `done` holds of them.
    async fn thread_when(&self, thread: &str, done: impl Fn(&[Value]) -> bool) -> Value {
        self.until(|| async {
            let (status, v) = self.get(&format!("/inbox/thread?thread={}", urlencode(thread))).await;
            (status == StatusCode::OK && done(v["items"].as_array().unwrap())).then_some(v)
        })
        .await
    }

    async fn message(&self, id: i64) -> Value {
        self.get(&format!("/messages/{id}")).await.1
    }

    async fn until<T, F, Fut>(&self, mut f: F) -> T
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Option<T>>,
    {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            if let Some(v) = f().await {
                return v;
            }
            assert!(tokio::time::Instant::now() < deadline, "waited {PATIENCE:?} in vain");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn stop(self) {
        self.t.stop().await;
        self.sandbox.stop();
    }
}

fn urlencode(s: &str) -> String {
    s.replace('+', "%2B")
}

fn received_texts(items: &[Value]) -> Vec<String> {
    items
        .iter()
        .filter(|i| i["direction"] == "received")
        .map(|i| i["text"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arret_reply_opts_the_number_out_and_intake_refuses_it_but_not_an_otp() {
    let w = world().await;
    let phone = "+33612345001";
    // A bulk message scheduled for later waits in the queue when the reply comes.
    let later = smsdesk_engine::clock::format_rfc3339(smsdesk_engine::clock::Clock::system().now_ms() + 3_600_000);
    let (status, waiting) = w
        .post(
            "/messages",
            json!({ "destination": phone, "text": "Soldes demain", "kind": "bulk", "scheduled_at": later }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{waiting}");
    let waiting = waiting["id"].as_i64().unwrap();

    w.reply(phone, "Arrêt", MoStyle::Plain);
    let entry = w.opted_out(phone).await;
    assert_eq!(entry["reason"], "reply");
    assert_eq!(entry["reply_text"], "Arrêt", "the reply is the entry's evidence");
    assert_eq!(entry["kinds"], json!(["transactional", "bulk"]));
    assert_eq!(
        entry["created_by"], phone,
        "the handset that replied, by its number alone"
    );

    // The next message to the number is refused, naming why; a batch names the message.
    let (status, refused) = w.send("06 12 34 50 01", "Votre rendez-vous", "transactional").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(refused["code"], "destination_opted_out");
    assert_eq!(refused["errors"][0]["field"], "destination");
    let (status, refused) = w
        .post(
            "/messages/batch",
            json!({ "messages": [
                { "destination": "+33612345002", "text": "ok" },
                { "destination": phone, "text": "not this one", "kind": "bulk" },
            ]}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(refused["code"], "destination_opted_out");
    assert_eq!(refused["errors"][0]["field"], "messages[1].destination");
    assert_eq!(refused["errors"].as_array().unwrap().len(), 1);

    // The compose form's check says so before anything is sent; a one-time code would go.
    let (status, preview) = w
        .post(
            "/messages/preview",
            json!({ "messages": [
                { "destination": phone, "text": "Rappel" },
                { "destination": phone, "text": "Code 1", "kind": "otp" },
            ]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        preview["rows"][0]["errors"][0]["code"], "destination_opted_out",
        "{preview}"
    );
    assert_eq!(preview["rows"][1]["errors"], json!([]));

    // The queued bulk message is held with an exception, and never reached the SMSC.
    let held = w.message(waiting).await;
    assert_eq!(held["queue"]["status"], "held", "{held}");
    let exceptions = held["exceptions"].as_array().unwrap();
    assert!(
        exceptions
            .iter()
            .any(|e| e["kind"] == "opted_out" && e["status"] == "open"),
        "{exceptions:?}"
    );
    assert_eq!(w.sandbox.counts("33612345001", b"Soldes demain").submits, 0);

    // A one-time code still goes: the person asked for it.
    let (status, otp) = w.send(phone, "Code 123456", "otp").await;
    assert_eq!(status, StatusCode::CREATED, "{otp}");
    let otp = otp["id"].as_i64().unwrap();
    w.until(|| async { (w.message(otp).await["queue"]["status"] == "accepted").then_some(()) })
        .await;

    // Sending the held message is refused while the number is on the list; not sending it closes
    // its exception.
    let ex = exceptions.iter().find(|e| e["kind"] == "opted_out").unwrap()["id"]
        .as_i64()
        .unwrap();
    let (status, body) = w
        .post(
            &format!("/exceptions/{ex}/resolve"),
            json!({ "action": "resend", "note": "they asked again" }),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["code"], "destination_opted_out");
    let (status, body) = w
        .post(&format!("/messages/{waiting}/cancel"), json!({ "note": "opted out" }))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    let cancelled = w.message(waiting).await;
    assert_eq!(cancelled["queue"]["status"], "cancelled");
    assert!(cancelled["exceptions"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["status"] != "open"));

    // START takes the number off the list; the history keeps both steps, with their replies.
    w.reply(phone, "start", MoStyle::Plain);
    w.until(|| async {
        let (_, page) = w.get("/opt-outs?history=true&q=33612345001").await;
        let items = page["items"].as_array().unwrap().clone();
        (items.len() == 1 && items[0]["removed_reason"] == "reply").then_some(())
    })
    .await;
    let (status, _) = w.send(phone, "Bienvenue à nouveau", "transactional").await;
    assert_eq!(status, StatusCode::CREATED);
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keywords_match_whatever_their_case_accents_script_and_parts() {
    let w = world().await;
    let replies = [
        ("+33612345011", "ARRET", MoStyle::Plain),
        ("+33612345012", "  arrêt ! ", MoStyle::Plain),
        ("+33612345013", "Стоп", MoStyle::Plain),
        ("+33612345014", "stop sms", MoStyle::Plain),
        ("+33612345015", "Désabonner.", MoStyle::Sar),
        // Two UCS-2 parts, last first: only the whole text, put back together, is a keyword.
        (
            "+33612345016",
            &format!("ОТПИСАТЬСЯ{}", " ".repeat(70)),
            MoStyle::Reversed,
        ),
    ];
    for (from, text, style) in &replies {
        w.reply(from, text, style.clone());
    }
    for (from, _, _) in &replies {
        let entry = w.opted_out(from).await;
        assert_eq!(entry["reason"], "reply", "{from}");
    }
    // A keyword inside a sentence is a reply like any other.
    w.reply("+33612345017", "Merci, ne pas arrêter svp", MoStyle::Plain);
    let thread = w
        .thread_when("+33612345017", |items| !received_texts(items).is_empty())
        .await;
    assert!(thread["opt_out"].is_null());
    assert!(thread["items"][0]["intent"].is_null());
    let (status, _) = w.send("+33612345017", "Bien noté", "transactional").await;
    assert_eq!(status, StatusCode::CREATED);
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_replies_are_put_back_together_and_a_ticket_tlv_does_not_make_a_receipt() {
    let w = world().await;
    let long = "Спасибо за напоминание. К сожалению, я не смогу прийти завтра утром, перезвоните мне, \
                пожалуйста, после обеда.";
    w.reply("+79161234501", long, MoStyle::Reversed);
    w.reply("+79161234502", long, MoStyle::Sar);
    for from in ["+79161234501", "+79161234502"] {
        let thread = w.thread_when(from, |items| !received_texts(items).is_empty()).await;
        let reply = &thread["items"][0];
        assert_eq!(reply["text"], long, "{from}");
        assert_eq!(reply["alphabet"], "ucs2");
        assert_eq!(reply["parts"], 2);
        assert_eq!(reply["parts_received"], 2);
    }
    // An MO carrying a receipted_message_id TLV with esm_class 0 is a message, not a receipt: it
    // reaches the inbox, and no exception says a receipt matched nothing.
    w.reply(
        "+33612345021",
        "Je serai en retard",
        MoStyle::WithTicketTlv("4f2a".into()),
    );
    let thread = w
        .thread_when("+33612345021", |items| !received_texts(items).is_empty())
        .await;
    assert_eq!(
        received_texts(thread["items"].as_array().unwrap()),
        vec!["Je serai en retard"]
    );
    let (_, exceptions) = w.get("/exceptions?status=open").await;
    assert_eq!(exceptions["items"], json!([]), "{exceptions}");
    // Two long replies of two parts each, and the one with a ticket.
    assert_eq!(w.t.count_where("receipt", "kind = 'mo'"), 2 + 2 + 1);
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_shows_beside_the_message_it_answers_and_is_read_once_marked() {
    let w = world().await;
    // The sandbox's scenario 26: delivered, then the handset answers.
    let phone = "+33612345626";
    let (status, sent) = w
        .send(phone, "Rappel : rendez-vous demain à 9 h", "transactional")
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let sent = sent["id"].as_i64().unwrap();
    let thread = w.thread_when(phone, |items| items.len() == 2).await;
    let items = thread["items"].as_array().unwrap();
    assert_eq!(items[0]["direction"], "sent");
    assert_eq!(items[0]["id"], sent);
    assert_eq!(items[1]["direction"], "received");
    assert!(items[1]["text"]
        .as_str()
        .unwrap()
        .starts_with("Je ne pourrai pas venir"));
    // A reply never changes the state of what it answers.
    assert_eq!(w.message(sent).await["state"]["state"], "delivered");

    let (_, counts) = w.get("/inbox/unread").await;
    assert_eq!(counts["unread"], 1);
    let (_, threads) = w.get("/inbox?unread=true").await;
    assert_eq!(threads["items"][0]["thread"], phone);
    assert_eq!(threads["items"][0]["unread"], 1);
    let (status, counts) = w.post("/inbox/read", json!({ "thread": phone })).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(counts["unread"], 0);
    let (_, threads) = w.get("/inbox?unread=true").await;
    assert_eq!(threads["items"], json!([]));
    // Found by any part of its number, as people type it.
    let (_, found) = w.get("/inbox?q=06%2012%2034%2056").await;
    assert_eq!(found["items"][0]["thread"], phone);
    let (_, found) = w.get("/inbox?q=5626").await;
    assert_eq!(found["items"][0]["thread"], phone);
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operators_add_remove_import_and_export_numbers_and_keys_need_the_right_scopes() {
    let w = world().await;
    let (status, added) = w
        .post(
            "/opt-outs",
            json!({ "phone": "06 12 34 50 31", "note": "asked at the desk" }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{added}");
    assert_eq!(added["added"], true);
    assert_eq!(added["entry"]["phone"], "+33612345031");
    assert_eq!(added["entry"]["created_by"], "api key office");
    let (_, again) = w.post("/opt-outs", json!({ "phone": "+33612345031" })).await;
    assert_eq!(again["added"], false);

    // Removing needs a note; the audit log keeps both.
    let (status, body) = w
        .post("/opt-outs/remove", json!({ "phone": "+33612345031", "note": " " }))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let (status, _) = w
        .post(
            "/opt-outs/remove",
            json!({ "phone": "+33612345031", "note": "added by mistake" }),
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _) = w
        .post("/opt-outs/remove", json!({ "phone": "+33612345031", "note": "again" }))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        w.t.count_where("audit", "action IN ('opt_out.add', 'opt_out.remove')"),
        2
    );

    // An import with a bad line is refused whole, the line named; a good one is taken whole.
    let (status, body) = w
        .post(
            "/opt-outs/import",
            json!({ "csv": "phone,note\n+33612345041,paper form\nnot a number\n" }),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["errors"][0]["field"], "lines[3]");
    assert_eq!(w.t.count_where("opt_out", "1"), 1);
    let csv = "phone;note\n+33612345041;paper form\n0612345042;\"phone call; Monday\"\n+33612345041;twice\n";
    let (_, dry) = w.post("/opt-outs/import", json!({ "csv": csv, "dry_run": true })).await;
    assert_eq!((dry["added"].as_u64(), dry["dry_run"].as_bool()), (Some(2), Some(true)));
    assert_eq!(w.t.count_where("opt_out", "1"), 1, "a dry run writes nothing");
    let (status, done) = w.post("/opt-outs/import", json!({ "csv": csv })).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["added"], 2);
    let (_, export) = w.get("/opt-outs/export").await;
    let text = export["csv"].as_str().unwrap();
    assert!(text.starts_with("phone,kinds,reason,note,reply,since,by\n"), "{text}");
    assert!(
        text.contains("+33612345042,transactional bulk,import,phone call; Monday,,"),
        "{text}"
    );
    assert!(!text.contains("+33612345031"), "a number taken off is not on the list");

    // A key that may only send and read its own sees neither the inbox nor the list.
    let (_, narrow) = w.t.key_with("website", &["send", "read:own"]).await;
    for path in ["/inbox", "/opt-outs", "/inbox/unread"] {
        let r =
            w.t.http
                .get(format!("{}/api/v1{path}", w.t.url))
                .bearer_auth(&narrow)
                .send()
                .await
                .unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{path}");
    }
    // Nor may one that acts on and exports its own messages change or export the list it cannot
    // read.
    let (_, own) = w.t.key_with("crm", &["send", "read:own", "act", "export"]).await;
    let r =
        w.t.http
            .post(format!("{}/api/v1/opt-outs", w.t.url))
            .bearer_auth(&own)
            .json(&json!({ "phone": "+33612345051" }))
            .send()
            .await
            .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let r =
        w.t.http
            .get(format!("{}/api/v1/opt-outs/export", w.t.url))
            .bearer_auth(&own)
            .send()
            .await
            .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert_eq!(w.t.count_where("opt_out", "phone = '+33612345051'"), 0);
    w.stop().await;
}
