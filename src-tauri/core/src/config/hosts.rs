//! `http.allowed_hosts`: the host names the HTTP server answers to besides IP addresses and
//! `localhost`, written like "smsdesk.office.lan, desk.example.com".

use super::value::SettingValue;

/// Host names, lowercase, without a trailing dot or a port.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HostNames(pub Vec<String>);

impl HostNames {
    fn name(text: &str) -> Result<String, String> {
        let name = text.trim().trim_end_matches('.').to_ascii_lowercase();
        let label_ok =
            |l: &str| !l.is_empty() && !l.starts_with('-') && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if name.is_empty() || name.len() > 253 || !name.split('.').all(label_ok) {
            return Err(format!(
                "`{}` is not a host name (letters, digits, - and dots, without a port or a scheme, such as smsdesk.office.lan)",
                text.trim()
            ));
        }
        Ok(name)
    }
}

impl SettingValue for HostNames {
    const KIND: &'static str = "list of host names such as \"smsdesk.office.lan, desk.example.com\"";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        match value {
            toml::Value::String(s) => Self::from_env(s),
            toml::Value::Array(items) => {
                let mut names = Vec::new();
                for item in items {
                    let text = item
                        .as_str()
                        .ok_or_else(|| format!("expected host names in quotes, found `{item}`"))?;
                    names.push(Self::name(text)?);
                }
                Ok(HostNames(names))
            }
            other => Err(format!(
                "expected host names in quotes such as \"smsdesk.office.lan\", found {} `{other}`",
                other.type_str()
            )),
        }
    }
    fn from_env(text: &str) -> Result<Self, String> {
        text.split(',')
            .filter(|p| !p.trim().is_empty())
            .map(Self::name)
            .collect::<Result<_, _>>()
            .map(HostNames)
    }
    fn to_toml(&self) -> String {
        toml::Value::String(self.0.join(", ")).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_from_a_list_or_a_text_and_written_back_as_text() {
        let from_text = HostNames::from_env(" Desk.Example.com., smsdesk-1.lan ,").unwrap();
        assert_eq!(from_text.0, ["desk.example.com", "smsdesk-1.lan"]);
        let array: toml::Value = toml::Value::Array(vec!["desk.example.com".into(), "smsdesk-1.lan".into()]);
        assert_eq!(HostNames::from_toml(&array).unwrap(), from_text);
        let written: toml::Value = format!("v = {}", from_text.to_toml()).parse::<toml::Table>().unwrap()["v"].clone();
        assert_eq!(HostNames::from_toml(&written).unwrap(), from_text);
        assert_eq!(HostNames::from_env("").unwrap(), HostNames::default());
    }

    #[test]
    fn a_port_a_scheme_or_a_space_is_refused_with_the_reason() {
        for bad in ["desk.lan:8470", "http://desk.lan", "two words", "-x.lan", "a..b"] {
            let err = HostNames::from_env(bad).unwrap_err();
            assert!(err.contains("is not a host name"), "{bad}: {err}");
        }
    }
}
