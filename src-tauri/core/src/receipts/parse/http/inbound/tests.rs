//! Each provider's inbound webhook, from the examples in its public documentation (numbers and
//! ids made up in their style).

use super::*;

const FORM: Option<&str> = Some("application/x-www-form-urlencoded");
const JSON: Option<&str> = Some("application/json");

fn inbound(provider: &str, content_type: Option<&str>, query: &str, body: &str) -> Vec<Inbound> {
    parse_inbound(&HttpReport {
        provider,
        method: if body.is_empty() { "GET" } else { "POST" },
        content_type,
        query,
        body: body.as_bytes(),
    })
}

/// The one message of a request: sender, recipient, text, id.
fn only(v: &[Inbound]) -> (&str, &str, &str, &str) {
    assert_eq!(v.len(), 1, "{v:?}");
    let i = &v[0];
    assert_eq!(i.parsed.kind, ReceiptKindOut::Mo, "{:?}", i.parsed.parse_error);
    (
        i.from.as_deref().unwrap_or(""),
        i.to.as_deref().unwrap_or(""),
        i.decoded.as_ref().map_or("", |d| d.text.as_str()),
        i.parsed.message_id.as_deref().unwrap_or(""),
    )
}

#[test]
fn twilio_posts_form_fields() {
    let body = "ToCountry=FR&SmsMessageSid=SM1f0e8ae6ade43cb3c0ce4525424e404f&NumMedia=0&SmsSid=SM1f0e8ae6ade43cb3c0ce4525424e404f\
        &SmsStatus=received&Body=STOP&FromCountry=FR&To=%2B33757000000&NumSegments=1\
        &MessageSid=SM1f0e8ae6ade43cb3c0ce4525424e404f&AccountSid=ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX\
        &From=%2B33612345678&ApiVersion=2010-04-01";
    let v = inbound("twilio", FORM, "", body);
    assert_eq!(
        only(&v),
        (
            "+33612345678",
            "+33757000000",
            "STOP",
            "SM1f0e8ae6ade43cb3c0ce4525424e404f"
        )
    );
    let d = v[0].decoded.as_ref().unwrap();
    assert_eq!(d.alphabet, Alphabet::Text);
    assert_eq!(d.concat, None, "Twilio joins the parts itself");
    assert_eq!(v[0].parsed.id_source, Some(IdSource::Http));
    assert_eq!(v[0].parsed.raw, body);
}

#[test]
fn vonage_posts_json_or_a_query_string_and_long_messages_in_parts() {
    let json = r#"{"msisdn":"33612345678","to":"33757000000","messageId":"0A0000000123ABCD1",
        "text":"Bonjour, à demain","type":"unicode","keyword":"BONJOUR","api-key":"abcd1234",
        "message-timestamp":"2025-01-01 12:00:00"}"#;
    let v = inbound("vonage", JSON, "", json);
    assert_eq!(
        only(&v),
        ("33612345678", "33757000000", "Bonjour, à demain", "0A0000000123ABCD1")
    );

    let query = "msisdn=33612345678&to=33757000000&messageId=0A0000000123ABCD2&text=Je+ne+viendrai+pas&type=text\
        &concat=true&concat-ref=108&concat-total=2&concat-part=1&message-timestamp=2025-01-01+12%3A00%3A00";
    let v = inbound("nexmo", None, query, "");
    assert_eq!(only(&v).2, "Je ne viendrai pas");
    assert_eq!(
        v[0].decoded.as_ref().unwrap().concat,
        Some(Concat {
            reference: 108,
            total: 2,
            seq: 1
        })
    );
    assert_eq!(v[0].parsed.raw, query, "an empty body keeps the query as the raw text");
}

#[test]
fn a_vonage_part_that_does_not_add_up_is_a_message_of_its_own() {
    let query = "msisdn=33612345678&to=33757000000&messageId=X1&text=abc&concat-ref=ab&concat-total=2&concat-part=3";
    let v = inbound("vonage", None, query, "");
    assert_eq!(only(&v).2, "abc");
    assert_eq!(v[0].decoded.as_ref().unwrap().concat, None);
    assert!(v[0]
        .parsed
        .parse_error
        .as_deref()
        .unwrap()
        .contains("filed as a message of its own"));
}

#[test]
fn a_vonage_binary_message_is_shown_in_hex() {
    let json = r#"{"msisdn":"33612345678","to":"33757000000","messageId":"0A01","type":"binary","data":"0102ff","udh":"050003CC0201"}"#;
    let v = inbound("vonage", JSON, "", json);
    let d = v[0].decoded.as_ref().unwrap();
    assert_eq!((d.text.as_str(), d.alphabet), ("0102FF", Alphabet::Binary));
}

#[test]
fn plivo_posts_form_fields() {
    let body = "From=33612345678&To=33757000000&Type=sms&Text=Merci&MessageUUID=6b2b1a3e-5a8a-11e7-9c5c-02b3e3a1e2f1\
        &Units=1&TotalRate=0.00000&TotalAmount=0.00000&MessageIntent=";
    let v = inbound("plivo", FORM, "", body);
    assert_eq!(
        only(&v),
        (
            "33612345678",
            "33757000000",
            "Merci",
            "6b2b1a3e-5a8a-11e7-9c5c-02b3e3a1e2f1"
        )
    );
}

#[test]
fn messagebird_calls_with_a_query_string() {
    let query = "id=e8077d803532c0b5937c639b60216938&recipient=33757000000&originator=33612345678\
        &body=This+is+an+incoming+message&createdDatetime=2016-05-03T14%3A26%3A57%2B00%3A00";
    let v = inbound("messagebird", None, query, "");
    assert_eq!(
        only(&v),
        (
            "33612345678",
            "33757000000",
            "This is an incoming message",
            "e8077d803532c0b5937c639b60216938"
        )
    );
    let v = inbound("bird", None, "originator=33612345678&payload=Hi&id=1", "");
    assert_eq!(only(&v).2, "Hi");
}

#[test]
fn infobip_posts_several_messages_at_once() {
    let json = r#"{"results":[
        {"messageId":"817790313235066447","from":"385916242493","to":"385921004026","text":"QUIZ Correct answer is Paris",
         "cleanText":"Correct answer is Paris","keyword":"QUIZ","receivedAt":"2016-10-06T09:28:39.220+0000","smsCount":1,
         "price":{"pricePerMessage":0,"currency":"EUR"},"callbackData":"callbackData"},
        {"messageId":"817790313235066448","from":"385916242494","to":"385921004026","text":"STOP",
         "cleanText":"","keyword":"STOP","receivedAt":"2016-10-06T09:28:40.220+0000","smsCount":1}
      ],"messageCount":2,"pendingMessageCount":0}"#;
    let v = inbound("infobip", JSON, "", json);
    assert_eq!(v.len(), 2);
    assert_eq!(
        only(&v[..1]).2,
        "QUIZ Correct answer is Paris",
        "the whole text, keyword and all"
    );
    assert_eq!(
        only(&v[1..]),
        ("385916242494", "385921004026", "STOP", "817790313235066448")
    );
    assert_eq!(v[0].parsed.batch_count, Some(2));
}

#[test]
fn kannel_calls_its_get_url() {
    let query = "token=REDACTED&from=%2B33612345678&to=36180&text=Arr%EAt+svp&charset=ISO-8859-1&id=0f6ba7b8-9dad-11d1-80b4-00c04fd430c8";
    let v = inbound("kannel", None, query, "");
    assert_eq!(
        only(&v),
        (
            "+33612345678",
            "36180",
            "Arrêt svp",
            "0f6ba7b8-9dad-11d1-80b4-00c04fd430c8"
        )
    );
    // A text Kannel could not recode from unicode comes as UTF-16BE octets.
    let query = "from=33612345678&to=36180&text=%04%21%04%42%04%3E%04%3F&charset=UTF-16BE&id=1";
    let v = inbound("kannel", None, query, "");
    let d = v[0].decoded.as_ref().unwrap();
    assert_eq!((d.text.as_str(), d.alphabet), ("Стоп", Alphabet::Ucs2));
}

#[test]
fn jasmin_posts_content_and_its_octets_by_coding() {
    let body = "id=16fd2706-8baf-433b-82eb-8c7fada847da&from=%2B21620203060&to=20203050&origin-connector=smppcc\
        &priority=1&coding=0&validity=none&content=Hello+world+%21&binary=48656c6c6f20776f726c642021";
    let v = inbound("jasmin", FORM, "", body);
    assert_eq!(
        only(&v),
        (
            "+21620203060",
            "20203050",
            "Hello world !",
            "16fd2706-8baf-433b-82eb-8c7fada847da"
        )
    );
    let body = "id=1&from=21620203060&to=20203050&coding=8&content=%06E%061&binary=06450631062d06280627";
    let v = inbound("jasmin", FORM, "", body);
    let d = v[0].decoded.as_ref().unwrap();
    assert_eq!((d.text.as_str(), d.alphabet), ("مرحبا", Alphabet::Ucs2));
}

#[test]
fn a_request_without_a_message_is_unparseable_and_says_why() {
    let v = inbound("twilio", FORM, "", "MessageSid=SM1&MessageStatus=delivered");
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].parsed.kind, ReceiptKindOut::Unparseable);
    assert!(v[0].parsed.parse_error.as_deref().unwrap().contains("no sender"));
    let v = inbound("plivo", FORM, "", "From=33612345678");
    assert!(v[0]
        .parsed
        .parse_error
        .as_deref()
        .unwrap()
        .contains("no text and no message id"));
    // An empty text with an id is a message all the same (a picture message, say).
    let v = inbound(
        "twilio",
        FORM,
        "",
        "From=%2B33612345678&Body=&MessageSid=SM2&NumMedia=1",
    );
    assert_eq!(only(&v).2, "");
}

#[test]
fn a_provider_without_an_inbound_mapping_is_unparseable_and_named() {
    let v = inbound("sinch", JSON, "", r#"{"from":"33612345678","body":"hi"}"#);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].parsed.kind, ReceiptKindOut::Unparseable);
    let why = v[0].parsed.parse_error.as_deref().unwrap();
    assert!(why.contains("`sinch`") && why.contains("twilio"), "{why}");
    assert_eq!(v[0].parsed.raw, r#"{"from":"33612345678","body":"hi"}"#);
}

#[test]
fn providers_that_read_the_answer_get_one_they_understand() {
    assert_eq!(inbound_ack("jasmin"), Some(("text/plain", "ACK/Jasmin")));
    assert_eq!(inbound_ack("kannel").map(|a| a.1), Some(""));
    assert_eq!(inbound_ack("Twilio").map(|a| a.1), Some("<Response></Response>"));
    assert_eq!(inbound_ack("vonage"), None);
    assert_eq!(inbound_ack("nobody"), None);
    for p in INBOUND_PROVIDERS {
        assert!(mapping(p).is_some(), "{p}");
    }
}
