//! The HTTP providers allowed to post delivery reports (`[callbacks] providers`): each one's
//! secret, the built-in mapping that reads its reports and the connection its ids belong to.

use super::value::SettingValue;

/// One HTTP provider allowed to post delivery reports.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallbackProvider {
    /// The secret it must present.
    pub secret: String,
    /// The built-in mapping that reads its reports; the provider's name when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    /// The connection whose message ids its reports carry; the SMPP connection's when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection: Option<String>,
}

/// The providers allowed to post reports, by the name in their callback URL.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallbackProviders(pub std::collections::BTreeMap<String, CallbackProvider>);

impl CallbackProviders {
    fn check(self) -> Result<Self, String> {
        for (name, p) in &self.0 {
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
                return Err(format!("provider name `{name}` may hold only letters, digits, - and _"));
            }
            if p.secret.trim().len() < 16 {
                return Err(format!("provider `{name}`: secret must be at least 16 characters"));
            }
            let preset = p.preset.as_deref().unwrap_or(name);
            if crate::providers::canonical(preset).is_none() {
                return Err(format!(
                    "provider `{name}`: no built-in mapping `{preset}` (known: {})",
                    crate::providers::BUILTIN_PROVIDERS.join(", ")
                ));
            }
        }
        Ok(self)
    }
}

impl SettingValue for CallbackProviders {
    const KIND: &'static str = "table of providers";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        let map = value
            .clone()
            .try_into::<std::collections::BTreeMap<String, CallbackProvider>>()
            .map_err(|e| format!("expected a table such as {{ vonage = {{ secret = \"...\" }} }}: {e}"))?;
        CallbackProviders(map).check()
    }
    /// From the environment, as JSON: {"vonage": {"secret": "..."}}.
    fn from_env(text: &str) -> Result<Self, String> {
        let map = serde_json::from_str(text)
            .map_err(|e| format!("expected JSON such as {{\"vonage\": {{\"secret\": \"...\"}}}}: {e}"))?;
        CallbackProviders(map).check()
    }
    fn to_toml(&self) -> String {
        let mut out = String::from("{");
        for (i, (name, p)) in self.0.iter().enumerate() {
            out.push_str(if i == 0 { " " } else { ", " });
            let mut fields = vec![format!("secret = {}", toml::Value::String(p.secret.clone()))];
            if let Some(v) = &p.preset {
                fields.push(format!("preset = {}", toml::Value::String(v.clone())));
            }
            if let Some(v) = &p.connection {
                fields.push(format!("connection = {}", toml::Value::String(v.clone())));
            }
            out.push_str(&format!("{name} = {{ {} }}", fields.join(", ")));
        }
        out.push_str(if self.0.is_empty() { "}" } else { " }" });
        out
    }
}
