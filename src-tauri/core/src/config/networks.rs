//! `http.trusted_proxies`: the addresses whose `X-Forwarded-For` is believed, written like
//! "127.0.0.1, 10.0.0.0/8, ::1".

use std::net::IpAddr;

use super::value::SettingValue;

/// One address, or a network as `address/prefix`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Network {
    addr: IpAddr,
    prefix: u8,
}

impl Network {
    fn parse(text: &str) -> Result<Network, String> {
        let text = text.trim();
        let refused =
            || format!("`{text}` is not an IP address or a network (such as 127.0.0.1, 10.0.0.0/8 or fd00::/8)");
        let (addr, prefix) = match text.split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (text, None),
        };
        let addr = addr.parse::<IpAddr>().map_err(|_| refused())?.to_canonical();
        let bits = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(p) => p.parse::<u8>().ok().filter(|p| *p <= bits).ok_or_else(refused)?,
            None => bits,
        };
        Ok(Network { addr, prefix })
    }

    /// Whether `ip` is in this network (an IPv4 address written as IPv6, `::ffff:a.b.c.d`, is
    /// the IPv4 address).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let bits = |a: IpAddr| -> (u128, u8) {
            match a.to_canonical() {
                IpAddr::V4(v4) => (u128::from(u32::from(v4)), 32),
                IpAddr::V6(v6) => (u128::from(v6), 128),
            }
        };
        let ((net, width), (other, other_width)) = (bits(self.addr), bits(ip));
        if width != other_width {
            return false;
        }
        let host_bits = u32::from(width - self.prefix);
        let mask = if host_bits >= 128 { 0 } else { u128::MAX << host_bits };
        net & mask == other & mask
    }
}

impl std::fmt::Display for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bits = if self.addr.is_ipv4() { 32 } else { 128 };
        match self.prefix == bits {
            true => write!(f, "{}", self.addr),
            false => write!(f, "{}/{}", self.addr, self.prefix),
        }
    }
}

/// Addresses and networks.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Networks(pub Vec<Network>);

impl Networks {
    /// Whether `ip` is in one of them.
    pub fn contains(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|n| n.contains(ip))
    }
}

impl SettingValue for Networks {
    const KIND: &'static str = "list of IP addresses or networks such as \"127.0.0.1, 10.0.0.0/8\"";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        match value {
            toml::Value::String(s) => Self::from_env(s),
            toml::Value::Array(items) => items
                .iter()
                .map(|item| {
                    let text = item
                        .as_str()
                        .ok_or_else(|| format!("expected addresses in quotes, found `{item}`"))?;
                    Network::parse(text)
                })
                .collect::<Result<_, _>>()
                .map(Networks),
            other => Err(format!(
                "expected addresses in quotes such as \"127.0.0.1\", found {} `{other}`",
                other.type_str()
            )),
        }
    }
    fn from_env(text: &str) -> Result<Self, String> {
        text.split(',')
            .filter(|p| !p.trim().is_empty())
            .map(Network::parse)
            .collect::<Result<_, _>>()
            .map(Networks)
    }
    fn to_toml(&self) -> String {
        let text: Vec<String> = self.0.iter().map(Network::to_string).collect();
        toml::Value::String(text.join(", ")).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn addresses_and_networks_contain_what_they_should_and_nothing_else() {
        let n = Networks::from_env("127.0.0.1, 10.0.0.0/8, fd00::/8").unwrap();
        for inside in ["127.0.0.1", "10.1.2.3", "::ffff:10.9.9.9", "fd12::1"] {
            assert!(n.contains(ip(inside)), "{inside} is trusted");
        }
        for outside in ["127.0.0.2", "11.0.0.1", "::1", "fe80::1", "192.168.1.1"] {
            assert!(!n.contains(ip(outside)), "{outside} is not trusted");
        }
        assert!(Networks::from_env("0.0.0.0/0").unwrap().contains(ip("203.0.113.9")));
        assert!(
            !Networks::default().contains(ip("127.0.0.1")),
            "nothing is trusted by default"
        );
    }

    #[test]
    fn the_setting_reads_a_list_or_a_text_and_refuses_what_is_no_address() {
        let from_text = Networks::from_env(" 127.0.0.1 , 10.0.0.0/8,").unwrap();
        let array = toml::Value::Array(vec!["127.0.0.1".into(), "10.0.0.0/8".into()]);
        assert_eq!(Networks::from_toml(&array).unwrap(), from_text);
        let written: toml::Value = format!("v = {}", from_text.to_toml()).parse::<toml::Table>().unwrap()["v"].clone();
        assert_eq!(Networks::from_toml(&written).unwrap(), from_text);
        for bad in ["proxy.lan", "10.0.0.0/33", "10.0.0/8", "::1/129"] {
            let err = Networks::from_env(bad).unwrap_err();
            assert!(err.contains("is not an IP address"), "{bad}: {err}");
        }
    }
}
