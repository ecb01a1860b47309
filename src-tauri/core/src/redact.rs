//! Credentials taken out of URLs before they are shown, stored for display or logged: a
//! webhook URL may carry a password (`https://user:pass@host/hook`) or a token in its query
//! (`?token=…`), and the audit log, the webhook tries, the key list and the log files are read by
//! people who must not learn it. The full URL is still what is delivered to; it is kept sealed.

use std::borrow::Cow;

/// What a redacted password or parameter value reads as.
pub const REDACTED: &str = "***";

/// The last `n` characters of `text`: enough to recognise a secret or a number by, never more.
pub fn last_chars(text: &str, n: usize) -> String {
    let skip = text.chars().count().saturating_sub(n);
    text.chars().skip(skip).collect()
}

/// `url` fit to show: the password of its userinfo and the value of every query or fragment
/// parameter whose name looks like a secret ([`secret_name`]) replaced by [`REDACTED`]. Text that
/// is not a `scheme://` URL is given back unchanged.
pub fn redact_url(url: &str) -> Cow<'_, str> {
    let Some(scheme_end) = scheme_end(url) else {
        return Cow::Borrowed(url);
    };
    let rest = &url[scheme_end + 3..];
    let authority_len = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_len);
    let mut out = String::with_capacity(url.len());
    out.push_str(&url[..scheme_end + 3]);
    match authority.rfind('@') {
        Some(at) => {
            let (userinfo, host) = authority.split_at(at);
            match userinfo.split_once(':') {
                Some((user, password)) if !password.is_empty() => {
                    out.push_str(user);
                    out.push(':');
                    out.push_str(REDACTED);
                }
                _ => out.push_str(userinfo),
            }
            out.push_str(host);
        }
        None => out.push_str(authority),
    }
    let (before_fragment, fragment) = match tail.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (tail, None),
    };
    match before_fragment.split_once('?') {
        Some((path, query)) => {
            out.push_str(path);
            out.push('?');
            redact_params(query, &mut out);
        }
        None => out.push_str(before_fragment),
    }
    if let Some(fragment) = fragment {
        out.push('#');
        redact_params(fragment, &mut out);
    }
    if out == url {
        Cow::Borrowed(url)
    } else {
        Cow::Owned(out)
    }
}

/// Whether `url` holds something [`redact_url`] takes out (a password, a secret parameter).
pub fn has_credentials(url: &str) -> bool {
    matches!(redact_url(url), Cow::Owned(_))
}

/// `text` with every `scheme://…` URL in it redacted by [`redact_url`]; a URL ends at white
/// space, a quote, a backslash or an angle bracket (so URLs inside JSON and log lines are found).
pub fn redact_urls_in(text: &str) -> Cow<'_, str> {
    if !text.contains("://") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(sep) = rest.find("://") {
        let start = rest[..sep]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |i| i + 1);
        // A scheme begins with a letter: "1http://" is read from its "http".
        let start = rest[start..sep]
            .find(|c: char| c.is_ascii_alphabetic())
            .map_or(sep, |i| start + i);
        let len = rest[sep..]
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '\\' | '<' | '>' | '`'))
            .map_or(rest.len(), |i| sep + i);
        out.push_str(&rest[..start]);
        out.push_str(&redact_url(&rest[start..len]));
        rest = &rest[len..];
    }
    out.push_str(rest);
    if out == text {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(out)
    }
}

/// Whether a query parameter of this name carries a secret: its name, lower-cased and without
/// separators, holds `token`, `secret`, `passw`, `pwd`, `apikey`, `credential`, `signature` or
/// `auth`, or ends with `key`, `sig` or `pass` (`api_key`, `X-Api-Key`, `access_token`,
/// `client_secret`, `hub.signature`, `sig`). Showing a harmless value as `***` costs little;
/// showing a secret costs a lot, so the net is wide.
pub fn secret_name(name: &str) -> bool {
    let name: String = percent_decoded(name)
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    const WITHIN: &[&str] = &[
        "token",
        "secret",
        "passw",
        "pwd",
        "apikey",
        "credential",
        "signature",
        "auth",
    ];
    WITHIN.iter().any(|w| name.contains(w)) || ["key", "sig", "pass"].iter().any(|e| name.ends_with(e))
}

/// The position of `://` after a valid scheme (a letter, then letters, digits, `+`, `-`, `.`).
fn scheme_end(url: &str) -> Option<usize> {
    let end = url.find("://")?;
    let scheme = &url[..end];
    let mut chars = scheme.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    (first_ok && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))).then_some(end)
}

/// `name=value&…` with the values of secret-looking names replaced.
fn redact_params(params: &str, out: &mut String) {
    for (i, param) in params.split('&').enumerate() {
        if i > 0 {
            out.push('&');
        }
        match param.split_once('=') {
            Some((name, value)) if !value.is_empty() && secret_name(name) => {
                out.push_str(name);
                out.push('=');
                out.push_str(REDACTED);
            }
            _ => out.push_str(param),
        }
    }
}

/// `%XX` escapes of ASCII characters decoded (enough to read a parameter's name).
fn percent_decoded(s: &str) -> Cow<'_, str> {
    if !s.contains('%') {
        return Cow::Borrowed(s);
    }
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| s.get(i + 1..i + 3))
            .flatten()
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .filter(u8::is_ascii);
        match escaped {
            Some(b) => {
                out.push(char::from(b));
                i += 3;
            }
            None => {
                let c = s[i..].chars().next().expect("i is on a character boundary");
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_of_the_userinfo_is_redacted_and_the_rest_kept() {
        assert_eq!(
            redact_url("https://user:pa55:w@rd@crm.example:8443/hook?x=1#top"),
            "https://user:***@crm.example:8443/hook?x=1#top"
        );
        assert_eq!(redact_url("http://user:p@host"), "http://user:***@host");
        assert_eq!(
            redact_url("https://user@host/hook"),
            "https://user@host/hook",
            "a user name alone is no secret"
        );
        assert_eq!(
            redact_url("https://host/a@b?c=d@e"),
            "https://host/a@b?c=d@e",
            "an @ beyond the authority is not userinfo"
        );
    }

    #[test]
    fn secret_looking_query_and_fragment_parameters_are_redacted() {
        assert_eq!(
            redact_url("https://h/hook?token=abc&order=7&api_key=k1&X-Api-Key=k2&sig=s&signature=s2&password=p"),
            "https://h/hook?token=***&order=7&api_key=***&X-Api-Key=***&sig=***&signature=***&password=***"
        );
        assert_eq!(
            redact_url("https://h/cb?access_token=a&client_secret=b&key=c&Secret=d&api%5Fkey=e&page=2"),
            "https://h/cb?access_token=***&client_secret=***&key=***&Secret=***&api%5Fkey=***&page=2"
        );
        assert_eq!(
            redact_url("https://h/#access_token=a&x=1"),
            "https://h/#access_token=***&x=1"
        );
        assert_eq!(
            redact_url("https://h/?token=&flag"),
            "https://h/?token=&flag",
            "nothing to hide"
        );
    }

    #[test]
    fn text_without_credentials_or_not_a_url_is_unchanged_and_borrowed() {
        for s in [
            "https://crm.example/hook",
            "https://crm.example:8443/a/b?order=1&page=2#frag",
            "not a url at all: token=abc",
            "",
            "1http://x:y@z",
        ] {
            assert!(matches!(redact_url(s), Cow::Borrowed(_)), "{s}");
            assert!(!has_credentials(s), "{s}");
        }
        assert!(has_credentials("https://u:p@h/"));
        assert!(has_credentials("https://h/?apikey=1"));
    }

    #[test]
    fn urls_inside_text_and_json_are_redacted_where_they_stand() {
        let json = r#"{"webhook_url":"https://u:hunter2@crm.example/hook?token=t0k"}"#;
        assert_eq!(
            redact_urls_in(json),
            r#"{"webhook_url":"https://u:***@crm.example/hook?token=***"}"#
        );
        let line = "POST to http://a:b@h/x failed; retry http://h/y?sig=z\nthen stop";
        assert_eq!(
            redact_urls_in(line),
            "POST to http://a:***@h/x failed; retry http://h/y?sig=***\nthen stop"
        );
        assert_eq!(redact_urls_in("v=1http://a:b@h"), "v=1http://a:***@h");
        assert!(matches!(redact_urls_in("no urls here"), Cow::Borrowed(_)));
        assert!(matches!(redact_urls_in("see https://h/ok"), Cow::Borrowed(_)));
    }

    #[test]
    fn secret_names_are_recognised_across_spellings() {
        for n in [
            "token",
            "TOKEN",
            "access_token",
            "key",
            "api_key",
            "apiKey",
            "x-api-key",
            "secret",
            "client_secret",
            "password",
            "passwd",
            "pwd",
            "pass",
            "sig",
            "signature",
            "hub.signature",
            "auth",
            "authorization",
            "credentials",
        ] {
            assert!(secret_name(n), "{n} names a secret");
        }
        for n in ["order", "page", "id", "to", "ref", "status", "q"] {
            assert!(!secret_name(n), "{n} is not a secret");
        }
    }
}
