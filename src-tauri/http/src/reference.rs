//! The API reference page of the manual (`docs/integration/api-reference.md`), written from the
//! OpenAPI description by `cargo xtask bindings`: every operation with who may call it, what it
//! takes and what it answers, then every type. Generated, so it cannot drift from the code; a
//! test fails when the committed page differs.

use serde_json::{Map, Value};

/// Where the page lives, from the repository's root.
pub const PATH: &str = "docs/integration/api-reference.md";

const SCHEMA_PREFIX: &str = "#/components/schemas/";

/// The page, as Markdown.
pub fn markdown() -> String {
    let doc: Value = serde_json::from_str(&super::openapi::json()).expect("the OpenAPI description is JSON");
    let operations = operations(&doc);
    let mut out = String::from(HEAD);
    out.push_str(&summary_table(&operations));
    let mut tags: Vec<&str> = operations.iter().map(|o| o.tag.as_str()).collect();
    tags.sort_unstable();
    tags.dedup();
    for tag in tags {
        out.push_str(&format!("\n## Operations: {}\n", title(tag)));
        for op in operations.iter().filter(|o| o.tag == tag) {
            out.push_str(&operation(op));
        }
    }
    out.push_str(TYPES_HEAD);
    if let Some(schemas) = doc.pointer("/components/schemas").and_then(Value::as_object) {
        for (name, schema) in schemas {
            out.push_str(&type_entry(name, schema));
        }
    }
    out
}

const HEAD: &str = "# API reference

<!-- Written by `cargo xtask bindings` from the OpenAPI description (src-tauri/http/src/reference.rs); do not edit by hand. -->

Every operation of the HTTP API, generated from the same description the server gives at `GET
/api/v1/openapi.json`. [The HTTP API](http-api.md) says how to call it: the address, credentials,
errors; [Who may call](authentication.md) what each scope and role allows.

";

const TYPES_HEAD: &str = "
## Types

What the operations take and answer, as JSON. A field marked *required* is always there in an
answer, and must be given in a request.
";

/// One method on one path.
struct Operation {
    id: String,
    method: String,
    path: String,
    tag: String,
    entry: Value,
}

/// Every operation, by path then method; one id on several methods (a callback taking GET and
/// POST) is one entry with its methods listed.
fn operations(doc: &Value) -> Vec<Operation> {
    let mut out: Vec<Operation> = Vec::new();
    let paths = doc.get("paths").and_then(Value::as_object).cloned().unwrap_or_default();
    for (path, item) in &paths {
        for method in ["get", "post", "put", "patch", "delete"] {
            let Some(entry) = item.get(method) else { continue };
            let id = text(entry, "operationId").unwrap_or(method).to_owned();
            if let Some(same) = out.iter_mut().find(|o| o.id == id && &o.path == path) {
                same.method.push_str(&format!(", {}", method.to_uppercase()));
                continue;
            }
            let tag = entry
                .pointer("/tags/0")
                .and_then(Value::as_str)
                .unwrap_or("other")
                .to_owned();
            out.push(Operation {
                id,
                method: method.to_uppercase(),
                path: path.clone(),
                tag,
                entry: entry.clone(),
            });
        }
    }
    out
}

fn summary_table(operations: &[Operation]) -> String {
    let mut out = String::new();
    for op in operations {
        out.push_str(&format!(
            "- [`{id}`](#{anchor}) `{method} {path}`: {summary}\n",
            id = op.id,
            anchor = op.id.to_lowercase(),
            method = op.method,
            path = op.path,
            summary = one_line(text(&op.entry, "summary").unwrap_or("")).trim_end_matches('.'),
        ));
    }
    out
}

/// Who may call an operation, and its description without that sentence.
fn needs(entry: &Value) -> (String, String) {
    let description = text(entry, "description").unwrap_or("").trim().to_owned();
    if let Some((before, after)) = description.rsplit_once(" Needs: ") {
        return (after.trim_end_matches('.').to_owned(), before.to_owned());
    }
    if let Some(after) = description.strip_prefix("Needs: ") {
        return (after.trim_end_matches('.').to_owned(), String::new());
    }
    let schemes: Vec<String> = entry
        .get("security")
        .and_then(Value::as_array)
        .map(|all| {
            all.iter()
                .filter_map(Value::as_object)
                .flat_map(|s| s.keys().cloned())
                .collect()
        })
        .unwrap_or_default();
    let who = if entry.get("security").is_some() && schemes.is_empty() {
        "nothing: no credential".to_owned()
    } else if schemes.iter().any(|s| s.starts_with("provider_token")) {
        "the provider's secret (`token` in the query, `X-Smsdesk-Token`, or a Basic-auth password)".to_owned()
    } else {
        "any credential: an API key or a person's session".to_owned()
    };
    (who, description)
}

fn operation(op: &Operation) -> String {
    let (who, mut description) = needs(&op.entry);
    if description.is_empty() {
        description = text(&op.entry, "summary").unwrap_or("").to_owned();
    }
    let mut out = format!("\n### `{}`\n\n`{} {}`\n\n", op.id, op.method, op.path);
    if !description.is_empty() {
        out.push_str(&format!("{description}\n\n"));
    }
    out.push_str(&format!("**Who may call it:** {who}.\n"));
    if let Some(params) = op.entry.get("parameters").and_then(Value::as_array) {
        out.push_str("\n| parameter | in | type | description |\n|---|---|---|---|\n");
        for p in params {
            let required = if p.get("required") == Some(&Value::Bool(true)) {
                ", required"
            } else {
                ""
            };
            out.push_str(&format!(
                "| `{}` | {}{required} | {} | {} |\n",
                text(p, "name").unwrap_or("?"),
                text(p, "in").unwrap_or("?"),
                p.get("schema").map(type_of).unwrap_or_default(),
                cell(text(p, "description").unwrap_or("")),
            ));
        }
    }
    if let Some(body) = op.entry.get("requestBody") {
        for (media, content) in body.get("content").and_then(Value::as_object).into_iter().flatten() {
            let ty = content.get("schema").map(type_of).unwrap_or_else(|| "any".into());
            out.push_str(&format!("\n**Request body** (`{media}`): {ty}.\n"));
        }
    }
    out.push_str("\n| answer | meaning | body |\n|---|---|---|\n");
    for (status, answer) in op
        .entry
        .get("responses")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let body: Vec<String> = answer
            .get("content")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(media, c)| match c.get("schema") {
                Some(s) => format!("{} (`{media}`)", type_of(s)),
                None => format!("`{media}`"),
            })
            .collect();
        out.push_str(&format!(
            "| {status} | {} | {} |\n",
            cell(text(answer, "description").unwrap_or("")),
            body.join(", ")
        ));
    }
    out
}

fn type_entry(name: &str, schema: &Value) -> String {
    let mut out = format!("\n### `{name}` (type)\n\n");
    if let Some(d) = text(schema, "description") {
        out.push_str(&format!("{}\n\n", one_line(d)));
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        out.push_str(&format!(
            "One of: {}.\n",
            values.iter().map(literal).collect::<Vec<_>>().join(", ")
        ));
    } else if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        out.push_str(&fields(properties, schema));
    } else if let Some(variants) = schema.get("oneOf").and_then(Value::as_array) {
        out.push_str("One of:\n\n");
        for v in variants {
            out.push_str(&format!("- {}\n", variant(v)));
        }
    } else {
        out.push_str(&format!("{}.\n", type_of(schema)));
    }
    out
}

fn fields(properties: &Map<String, Value>, schema: &Value) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = String::from("| field | type | description |\n|---|---|---|\n");
    for (field, s) in properties {
        let req = if required.contains(&field.as_str()) {
            ", *required*"
        } else {
            ""
        };
        out.push_str(&format!(
            "| `{field}` | {}{req} | {} |\n",
            type_of(s),
            cell(text(s, "description").unwrap_or(""))
        ));
    }
    out
}

/// One variant of a `oneOf`, on one line: its description and fields.
fn variant(v: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(d) = text(v, "description") {
        parts.push(one_line(d));
    }
    match v.get("properties").and_then(Value::as_object) {
        Some(props) => {
            let list: Vec<String> = props
                .iter()
                .map(|(f, s)| match s.get("enum").and_then(Value::as_array) {
                    Some(vals) if vals.len() == 1 => format!("`{f}`: {}", literal(&vals[0])),
                    _ => format!("`{f}` ({})", type_of(s)),
                })
                .collect();
            parts.push(format!("an object with {}", list.join(", ")));
        }
        None => parts.push(type_of(v)),
    }
    parts.join(": ")
}

/// A schema's type in words, types of the document linked to their entry.
fn type_of(s: &Value) -> String {
    if let Some(r) = text(s, "$ref") {
        let name = r.strip_prefix(SCHEMA_PREFIX).unwrap_or(r);
        return format!("[`{name}`](#{}-type)", name.to_lowercase());
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if let Some(all) = s.get(key).and_then(Value::as_array) {
            let joiner = if key == "allOf" { " and " } else { " or " };
            return all.iter().map(type_of).collect::<Vec<_>>().join(joiner);
        }
    }
    if let Some(values) = s.get("enum").and_then(Value::as_array) {
        return values.iter().map(literal).collect::<Vec<_>>().join(" or ");
    }
    let kinds: Vec<String> = match s.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => return "any".into(),
    };
    let words: Vec<String> = kinds
        .iter()
        .map(|k| match k.as_str() {
            "array" => format!(
                "array of {}",
                s.get("items").map(type_of).unwrap_or_else(|| "any".into())
            ),
            "null" => "null".into(),
            other => match text(s, "format") {
                Some(f) => format!("{other} ({f})"),
                None => other.into(),
            },
        })
        .collect();
    words.join(" or ")
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn literal(v: &Value) -> String {
    match v {
        Value::String(s) => format!("`{s}`"),
        other => format!("`{other}`"),
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text for a table cell: one line, with its bars escaped.
fn cell(s: &str) -> String {
    one_line(s).replace('|', "\\|")
}

/// A tag as a section's title: `dashboard` as "Dashboard".
fn title(tag: &str) -> String {
    let mut chars = tag.chars();
    match chars.next() {
        Some(first) => first
            .to_uppercase()
            .chain(chars)
            .collect::<String>()
            .replace(['_', '-'], " "),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    #[test]
    fn committed_api_reference_matches_the_openapi_description() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(super::PATH);
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == super::markdown(),
            "{} has drifted from the OpenAPI description; run `cargo xtask bindings` and commit",
            super::PATH
        );
    }

    #[test]
    fn every_operation_of_the_catalogue_is_in_the_reference_with_who_may_call_it() {
        let page = super::markdown();
        for spec in smsdesk_engine::operations::OPERATIONS {
            let heading = format!(
                "\n### `{}`\n\n`{} {}`",
                spec.name,
                spec.method.as_str(),
                spec.http_path()
            );
            assert!(page.contains(&heading), "{} is in the reference: {heading}", spec.name);
        }
        assert!(
            page.contains("**Who may call it:** the admin role."),
            "access is stated"
        );
        assert!(page.contains("### `SubmitMessage` (type)"), "types are described");
        assert!(page.contains("`idempotency_key_reused`"), "error codes are listed");
    }

    #[test]
    fn the_manual_lists_every_audit_action_and_no_other() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/integration/other-operations.md");
        let page = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let section = page
            .split("\n## The audit log\n")
            .nth(1)
            .and_then(|s| s.split("\n## ").next())
            .expect("the page has a section on the audit log");
        let listed: Vec<&str> = section
            .lines()
            .filter_map(|l| l.strip_prefix("| `")?.split('`').next())
            .filter(|word| *word != "action")
            .collect();
        let actions: Vec<&str> = smsdesk_engine::audit::AuditAction::ALL
            .iter()
            .map(|a| a.as_str())
            .collect();
        assert_eq!(
            listed, actions,
            "the manual's table of audit actions lists every action the engine writes, in order, and no other"
        );
    }
}
