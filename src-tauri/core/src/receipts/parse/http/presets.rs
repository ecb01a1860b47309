//! The built-in mappings: one function per provider, from its public callback documentation
//! (the table in the parent module sums them up).

use super::HttpMapping;
use crate::providers::canonical;
pub use crate::providers::BUILTIN_PROVIDERS;
use crate::receipts::parse::Stat;

/// The built-in mapping of a provider, `None` when there is none.
pub fn builtin_mapping(provider: &str) -> Option<HttpMapping> {
    builtin(provider).cloned()
}

/// The built-in mappings, made once: a callback is read with one of them, not with a copy.
pub(super) fn builtin(provider: &str) -> Option<&'static HttpMapping> {
    static ALL: std::sync::LazyLock<Vec<(&'static str, HttpMapping)>> = std::sync::LazyLock::new(|| {
        BUILTIN_PROVIDERS
            .iter()
            .filter_map(|&p| Some((p, make_builtin(p)?)))
            .collect()
    });
    let name = canonical(provider)?;
    ALL.iter().find(|(p, _)| *p == name).map(|(_, m)| m)
}

/// Builds the mapping of a provider (any spelling [`canonical`] knows).
fn make_builtin(provider: &str) -> Option<HttpMapping> {
    Some(match canonical(provider)? {
        "vonage" => vonage(),
        "twilio" => twilio(),
        "twilio-eventstreams" => twilio_eventstreams(),
        "infobip" => infobip(),
        "plivo" => plivo(),
        "messagebird" => messagebird(),
        "sinch" => sinch(),
        "kannel" => kannel(),
        "jasmin" => jasmin(),
        "gatewayapi" => gatewayapi(),
        "gatewayapi-legacy" => gatewayapi_legacy(),
        "africastalking" => africastalking(),
        "tencent" => tencent(),
        _ => return None,
    })
}

/// Owned copies of field names.
fn list(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// Owned copies of provider status words.
fn words(items: &[(&str, Stat)]) -> Vec<(String, Stat)> {
    items.iter().map(|(w, s)| ((*w).to_owned(), *s)).collect()
}

// ----------------------------------------------------------------------------- SMS APIs

/// Vonage (Nexmo): the SMS API's delivery receipt, or the Messages API's status webhook.
fn vonage() -> HttpMapping {
    HttpMapping {
        message_id: list(&["messageId", "message-id", "message_uuid"]),
        status: list(&["status"]),
        err: list(&["err-code", "error.type"]),
        done_date: list(&["scts", "timestamp"]),
        ..HttpMapping::default()
    }
}

/// Twilio's status callback: form fields.
fn twilio() -> HttpMapping {
    HttpMapping {
        message_id: list(&["MessageSid", "SmsSid"]),
        status: list(&["MessageStatus", "SmsStatus"]),
        err: list(&["ErrorCode"]),
        done_date: list(&["RawDlrDoneDate"]),
        // `failed` never left Twilio: a refusal, not a network failure.
        status_words: words(&[("failed", Stat::Rejectd), ("canceled", Stat::Deleted)]),
        ..HttpMapping::default()
    }
}

/// Twilio Event Streams: a JSON array of CloudEvents.
fn twilio_eventstreams() -> HttpMapping {
    HttpMapping {
        message_id: list(&["data.messageSid", "data.MessageSid"]),
        // The event's type says what happened; `data.messageStatus` is a snapshot that may
        // lag behind it (Twilio's own delivered event carries QUEUED there).
        status: list(&["type", "data.messageStatus"]),
        err: list(&["data.errorCode"]),
        event_id: list(&["id"]),
        done_date: list(&["data.rawDlrDoneDate", "data.timestamp"]),
        records: list(&["$"]),
        status_words: words(&[("failed", Stat::Rejectd), ("canceled", Stat::Deleted)]),
        ..HttpMapping::default()
    }
}

/// Infobip: several reports under `results`.
fn infobip() -> HttpMapping {
    HttpMapping {
        message_id: list(&["messageId"]),
        status: list(&["status.groupName", "status.name"]),
        err: list(&["error.id", "error.name"]),
        done_date: list(&["doneAt"]),
        submit_date: list(&["sentAt"]),
        records: list(&["results"]),
        ..HttpMapping::default()
    }
}

/// Plivo's message status callback.
fn plivo() -> HttpMapping {
    HttpMapping {
        message_id: list(&["MessageUUID"]),
        status: list(&["Status"]),
        err: list(&["ErrorCode"]),
        done_date: list(&["DeliveryReportTime"]),
        ..HttpMapping::default()
    }
}

/// MessageBird (Bird): flat fields, or the same ones under `message`.
fn messagebird() -> HttpMapping {
    HttpMapping {
        message_id: list(&["id", "message.id"]),
        status: list(&["status", "message.status"]),
        err: list(&["statusErrorCode", "message.statusErrorCode"]),
        done_date: list(&["statusDatetime", "message.statusDatetime"]),
        ..HttpMapping::default()
    }
}

/// Sinch: a delivery report of a batch, per recipient or summarised in `statuses`.
fn sinch() -> HttpMapping {
    HttpMapping {
        message_id: list(&["batch_id"]),
        status: list(&["status", "statuses.0.status"]),
        err: list(&["code", "statuses.0.code"]),
        done_date: list(&["operator_status_at", "at"]),
        ..HttpMapping::default()
    }
}

/// GatewayAPI: a status notification, or a JSON array of them; `time` is epoch seconds.
fn gatewayapi() -> HttpMapping {
    HttpMapping {
        message_id: list(&["id"]),
        status: list(&["status"]),
        err: list(&["code", "error"]),
        done_date: list(&["time"]),
        records: list(&["$"]),
        ..HttpMapping::default()
    }
}

/// GatewayAPI's legacy callback: numeric status codes.
fn gatewayapi_legacy() -> HttpMapping {
    HttpMapping {
        message_id: list(&["sessionid"]),
        status: list(&["statuscode"]),
        status_words: words(&[
            ("1", Stat::Delivrd),
            ("2", Stat::Undeliv),
            ("3", Stat::Rejectd),
            ("4", Stat::Undeliv),
            ("5", Stat::Unknown),
            ("6", Stat::Expired),
            ("7", Stat::Undeliv),
            ("8", Stat::Deleted),
        ]),
        ..HttpMapping::default()
    }
}

/// Africa's Talking's delivery report.
fn africastalking() -> HttpMapping {
    HttpMapping {
        message_id: list(&["id"]),
        status: list(&["status"]),
        err: list(&["failureReason"]),
        ..HttpMapping::default()
    }
}

/// Tencent Cloud SMS: a JSON array of reports, its fields in snake_case or in PascalCase.
fn tencent() -> HttpMapping {
    HttpMapping {
        message_id: list(&["sid", "SerialNo"]),
        status: list(&["report_status", "ReportStatus"]),
        err: list(&["errmsg", "ErrMsg"]),
        done_date: list(&["user_receive_time", "UserReceiveTime"]),
        records: list(&["$"]),
        status_words: words(&[("SUCCESS", Stat::Delivrd), ("FAIL", Stat::Undeliv)]),
        ..HttpMapping::default()
    }
}

// ----------------------------------------------------------------------------- SMPP gateways

/// The names a Kannel dlr-url may give the caller's own id.
const KANNEL_ID_FIELDS: &[&str] = &[
    "id",
    "uuid",
    "guid",
    "msg_uuid",
    "message_uuid",
    "msgid",
    "msg_id",
    "message_id",
    "messageid",
    "smsid",
    "sms_id",
    "myid",
    "dlrid",
    "dlr_id",
    "smslog_id",
    "ref",
    "reference",
];

/// The names a Kannel dlr-url may give `%d`, the report type.
const KANNEL_STATUS_FIELDS: &[&str] = &[
    "type",
    "status",
    "dlr",
    "dlr-type",
    "dlr_type",
    "dlrtype",
    "dlrstatus",
    "dlr_status",
    "state",
    "d",
];

/// The names a Kannel dlr-url may give `%A`, the SMSC's answer (an Appendix B receipt text).
const KANNEL_RECEIPT_TEXT_FIELDS: &[&str] = &["answer", "reply", "smsc_reply", "smscreply", "report", "a"];

/// The rest of what a dlr-url may carry besides the id: Kannel's other escapes
/// (%p %P %q %Q %t %T %i %I %n %F %B %o %O %a %b %k %c %m %M %s %S %u %U).
const KANNEL_OTHER_FIELDS: &[&str] = &[
    "to",
    "from",
    "phone",
    "sender",
    "receiver",
    "recipient",
    "msisdn",
    "p",
    "q",
    "time",
    "ts",
    "timestamp",
    "date",
    "t",
    "smsc",
    "smsc_id",
    "smscid",
    "i",
    "service",
    "n",
    "binfo",
    "b",
    "account",
    "o",
    "c",
    "coding",
    "charset",
    "m",
    "mclass",
    "u",
    "udh",
    "k",
    "keyword",
    "text",
    "msg",
    "meta",
    "meta_data",
    "token",
    "secret",
    "key",
    "api_key",
    "apikey",
];

/// Kannel: the query string of the dlr-url the sender gave, with Kannel's escapes filled in.
fn kannel() -> HttpMapping {
    HttpMapping {
        message_id: list(KANNEL_ID_FIELDS),
        status: list(KANNEL_STATUS_FIELDS),
        receipt_text: list(KANNEL_RECEIPT_TEXT_FIELDS),
        other: list(KANNEL_OTHER_FIELDS),
        // The id is the caller's own, baked into the dlr-url under a name of its choosing:
        // when none of the usual names is there, the one field no list names is it.
        id_is_the_unnamed_field: true,
        // Kannel's %d: DLR_SUCCESS 1, DLR_FAIL 2, DLR_BUFFERED 4, DLR_SMSC_SUCCESS 8,
        // DLR_SMSC_FAIL 16, DLR_EXPIRED 0x22, DLR_UNKNOWN 0x42.
        status_words: words(&[
            ("1", Stat::Delivrd),
            ("2", Stat::Undeliv),
            ("4", Stat::Enroute),
            ("8", Stat::Acceptd),
            ("16", Stat::Rejectd),
            ("34", Stat::Expired),
            ("66", Stat::Unknown),
        ]),
        ..HttpMapping::default()
    }
}

/// Jasmin: the receipt's Appendix B fields, one form field each.
fn jasmin() -> HttpMapping {
    HttpMapping {
        message_id: list(&["id"]),
        status: list(&["message_status"]),
        err: list(&["err"]),
        done_date: list(&["donedate"]),
        submit_date: list(&["subdate"]),
        sub: list(&["sub"]),
        dlvrd: list(&["dlvrd"]),
        text: list(&["text"]),
        ..HttpMapping::default()
    }
}
