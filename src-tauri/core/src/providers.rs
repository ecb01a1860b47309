//! The HTTP providers smsdesk knows by name, and the spellings each is known by. What reading one's
//! callbacks takes is `receipts::parse::http`'s; the settings check a name against this list.

/// The providers with a built-in mapping.
pub const BUILTIN_PROVIDERS: &[&str] = &[
    "vonage",
    "twilio",
    "twilio-eventstreams",
    "infobip",
    "plivo",
    "messagebird",
    "sinch",
    "kannel",
    "jasmin",
    "gatewayapi",
    "gatewayapi-legacy",
    "africastalking",
    "tencent",
];

/// The provider's canonical name (`Nexmo` → `vonage`, `africas_talking` → `africastalking`).
pub fn canonical(provider: &str) -> Option<&'static str> {
    let p: String = provider
        .trim()
        .chars()
        .filter(|c| !matches!(c, '-' | '_' | ' ' | '\'' | '.'))
        .map(|c| c.to_ascii_lowercase())
        .collect();
    Some(match p.as_str() {
        "vonage" | "nexmo" => "vonage",
        "twilio" => "twilio",
        "twilioeventstreams" | "twilioevents" => "twilio-eventstreams",
        "infobip" => "infobip",
        "plivo" => "plivo",
        "messagebird" | "bird" => "messagebird",
        "sinch" => "sinch",
        "kannel" => "kannel",
        "jasmin" => "jasmin",
        "gatewayapi" => "gatewayapi",
        "gatewayapilegacy" => "gatewayapi-legacy",
        "africastalking" | "at" => "africastalking",
        "tencent" | "tencentcloud" => "tencent",
        _ => return None,
    })
}
