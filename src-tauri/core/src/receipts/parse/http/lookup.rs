//! Finding a mapping's fields in a callback: dotted paths into JSON, names of form fields and
//! query parameters.

use serde_json::Value;

use super::HttpMapping;

/// Everything a callback carries that fields are read from.
pub(super) struct Sources<'a> {
    /// The JSON body, when it is JSON.
    pub(super) root: Option<&'a Value>,
    /// The fields of a form-encoded body.
    pub(super) form: &'a [(String, String)],
    /// The fields of the query string.
    pub(super) query: &'a [(String, String)],
}

/// A value found: text, or a JSON number (kept as its text; a number date is epoch).
pub(super) enum Found {
    Text(String),
    Number(String),
}

impl Found {
    /// The value as text, whatever it was.
    pub(super) fn into_string(self) -> String {
        match self {
            Found::Text(s) | Found::Number(s) => s,
        }
    }
}

/// The first path with a present, non-empty value: the record, then the body, the form body
/// and the query string.
pub(super) fn find<S: AsRef<str>>(paths: &[S], src: &Sources, rec: Option<&Value>) -> Option<Found> {
    for path in paths.iter().map(AsRef::as_ref) {
        if let Some(rec) = rec {
            if let Some(f) = json_path(rec, path).and_then(found_json) {
                return Some(f);
            }
        }
        if let Some(root) = src.root {
            if !rec.is_some_and(|r| std::ptr::eq(r, root)) {
                if let Some(f) = json_path(root, path).and_then(found_json) {
                    return Some(f);
                }
            }
        }
        if let Some(v) = form_get(src.form, path).or_else(|| form_get(src.query, path)) {
            return Some(Found::Text(v.to_owned()));
        }
    }
    None
}

/// A JSON value worth reading: a non-blank string, a number or a boolean.
fn found_json(v: &Value) -> Option<Found> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(Found::Text(s.clone())),
        Value::Number(n) => Some(Found::Number(n.to_string())),
        Value::Bool(b) => Some(Found::Text(b.to_string())),
        _ => None,
    }
}

/// The value at a dotted path (`status.groupName`, `statuses.0.code`; `$` is `v` itself). The
/// whole path is first tried as one key of `v`; each step matches a key exactly, else in any case.
pub(super) fn json_path<'v>(v: &'v Value, path: &str) -> Option<&'v Value> {
    if path == "$" {
        return Some(v);
    }
    if let Value::Object(map) = v {
        if let Some(x) = map.get(path) {
            return Some(x);
        }
    }
    let mut cur = v;
    for seg in path.split('.') {
        cur = match cur {
            Value::Object(map) => match map.get(seg) {
                Some(x) => x,
                None => map.iter().find(|(k, _)| k.eq_ignore_ascii_case(seg))?.1,
            },
            Value::Array(items) => items.get(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// A form or query field's non-blank value: the exact name first, then any case.
fn form_get<'f>(fields: &'f [(String, String)], name: &str) -> Option<&'f str> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .or_else(|| fields.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)))
        .map(|(_, v)| v.as_str())
        .filter(|v| !v.trim().is_empty())
}

/// The one query or form field, with a value, that no list of the mapping names (when the
/// mapping says its id comes so); None when there is none or several.
pub(super) fn unnamed_field(m: &HttpMapping, src: &Sources) -> Option<String> {
    if !m.id_is_the_unnamed_field {
        return None;
    }
    let named = |k: &str| {
        [
            &m.message_id,
            &m.status,
            &m.err,
            &m.event_id,
            &m.done_date,
            &m.submit_date,
            &m.sub,
            &m.dlvrd,
            &m.text,
            &m.receipt_text,
            &m.other,
        ]
        .iter()
        .any(|list| list.iter().any(|n| n.eq_ignore_ascii_case(k)))
    };
    let mut unnamed = src
        .query
        .iter()
        .chain(src.form)
        .filter(|(k, v)| !v.trim().is_empty() && !named(k));
    match (unnamed.next(), unnamed.next()) {
        (Some((_, v)), None) => Some(v.trim().to_owned()),
        _ => None,
    }
}
