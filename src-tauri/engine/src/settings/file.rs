//! Edits to smsdesk.toml that keep everything else in it: comments, order, the documented
//! template's commented-out defaults, and keys the screen did not touch. Written atomically (a
//! temp file beside it, synced, then renamed over it), so a crash leaves the old file or the new
//! one, never half of one.

use std::path::Path;

use toml_edit::{DocumentMut, Item, Table, Value};

/// One change to the file: `Some` sets the key to this TOML value text, `None` removes it.
pub struct Edit<'a> {
    pub section: &'a str,
    pub key: &'a str,
    pub value: Option<String>,
}

/// The file's text with `edits` applied; Err says why a value was not TOML (a bug, not a user's).
pub fn apply(text: &str, edits: &[Edit<'_>]) -> Result<String, String> {
    let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| e.to_string())?;
    for e in edits {
        match &e.value {
            Some(v) => {
                let value: Value = v
                    .parse()
                    .map_err(|err: toml_edit::TomlError| format!("{}.{}: {err}", e.section, e.key))?;
                let section = doc
                    .entry(e.section)
                    .or_insert_with(|| Item::Table(Table::new()))
                    .as_table_mut()
                    .ok_or_else(|| format!("`{}` is not a section", e.section))?;
                match section.get_mut(e.key).and_then(Item::as_value_mut) {
                    // Keep the comment written beside the old value.
                    Some(old) => {
                        let decor = old.decor().clone();
                        *old = value;
                        *old.decor_mut() = decor;
                    }
                    None => {
                        section.insert(e.key, Item::Value(value));
                    }
                }
            }
            None => remove(&mut doc, e.section, e.key),
        }
    }
    Ok(doc.to_string())
}

/// Removes `section.key`, handing the comment lines above it to whatever follows, so that the
/// documentation written around it stays.
fn remove(doc: &mut DocumentMut, section: &str, key: &str) {
    let text = |d: &toml_edit::Decor| d.prefix().and_then(|p| p.as_str()).unwrap_or("").to_owned();
    let Some(table) = doc.get_mut(section).and_then(Item::as_table_mut) else {
        return;
    };
    let keys: Vec<String> = table.iter().map(|(k, _)| k.to_owned()).collect();
    let Some(pos) = keys.iter().position(|k| k == key) else {
        return;
    };
    let comments = table.key(key).map(|k| text(k.leaf_decor())).unwrap_or_default();
    table.remove(key);
    if let Some(next) = keys.get(pos + 1) {
        if let Some(mut k) = table.key_mut(next) {
            let old = text(k.leaf_decor());
            k.leaf_decor_mut().set_prefix(format!("{comments}{old}"));
        }
        return;
    }
    // The last key: its comments go before the next section's header, or at the end.
    let sections: Vec<String> = doc.iter().map(|(k, _)| k.to_owned()).collect();
    let next = sections
        .iter()
        .position(|s| s == section)
        .and_then(|i| sections.get(i + 1));
    match next.and_then(|n| doc.get_mut(n)).and_then(Item::as_table_mut) {
        Some(t) => {
            let old = text(t.decor());
            t.decor_mut().set_prefix(format!("{comments}{old}"));
        }
        None => {
            let old = doc.trailing().as_str().unwrap_or("").to_owned();
            doc.set_trailing(format!("{comments}{old}"));
        }
    }
}

/// Whether the file itself sets `section.key` (a commented-out line does not).
pub fn sets(text: &str, section: &str, key: &str) -> bool {
    text.parse::<DocumentMut>()
        .ok()
        .and_then(|d| d.get(section).and_then(|s| s.get(key)).map(|_| ()))
        .is_some()
}

/// Replaces `file` with `text` atomically, keeping its permissions.
pub fn write_atomic(file: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = file.with_extension("toml.tmp");
    let _ = std::fs::remove_file(&tmp);
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    if let Ok(meta) = std::fs::metadata(file) {
        let _ = f.set_permissions(meta.permissions());
    }
    f.write_all(text.as_bytes())?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, file)?;
    // The rename itself is durable once the directory is synced.
    if let Some(dir) = file.parent() {
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_keeps_comments_order_and_untouched_keys() {
        let text = "# my notes\n[http]\n# the port\nport = 9000 # kept\n\n[smpp]\n# tps = 10\nhost = \"a\"\n# password doc\npassword = \"p\"\n[log]\nkeep_files = 3\n";
        let out = apply(
            text,
            &[
                Edit {
                    section: "smpp",
                    key: "tps",
                    value: Some("25".into()),
                },
                Edit {
                    section: "http",
                    key: "port",
                    value: Some("9001".into()),
                },
                Edit {
                    section: "smpp",
                    key: "host",
                    value: None,
                },
                Edit {
                    section: "receipts",
                    key: "otp_deadline_minutes",
                    value: Some("12".into()),
                },
                Edit {
                    section: "smpp",
                    key: "password",
                    value: None,
                },
            ],
        )
        .unwrap();
        assert!(
            out.starts_with("# my notes\n[http]\n# the port\nport = 9001 # kept\n"),
            "{out}"
        );
        assert!(out.contains("# tps = 10\n") && out.contains("tps = 25\n"), "{out}");
        assert!(
            !out.contains("host") && !out.contains("\"p\""),
            "a removed key is gone: {out}"
        );
        assert!(out.contains("# password doc\n"), "the comments above it stay: {out}");
        assert!(out.contains("[receipts]\notp_deadline_minutes = 12"), "{out}");
        assert!(sets(&out, "smpp", "tps") && !sets(&out, "smpp", "host"));
        assert!(!sets(text, "smpp", "tps"), "a commented-out line sets nothing");
    }

    #[test]
    fn the_atomic_write_replaces_the_file_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("smsdesk.toml");
        std::fs::write(&f, "old").unwrap();
        write_atomic(&f, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
