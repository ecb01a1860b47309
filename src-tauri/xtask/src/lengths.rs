//! How long a function and a source file may be before a newcomer loses the thread, measured
//! on the product code the house check reads (test modules left out).

use std::collections::BTreeSet;
/// The longest a function may be, and a source file (tests and generated code aside), before a
/// newcomer loses the thread.
pub(crate) const MAX_FN_LINES: usize = 80;
pub(crate) const MAX_FILE_LINES: usize = 500;

/// Functions and files allowed over the limits, each for a reason written at its top: none
/// today. An entry fails once it is back under the limits, so the list cannot go stale.
pub(crate) const TOO_LONG_TODAY: &[&str] = &[];

/// Functions and files over the limits that are not on the list, and entries of the list that
/// are back under them.
pub(crate) fn too_long(product_code: &[(String, String)]) -> Vec<String> {
    let mut long = BTreeSet::new();
    for (rel, code) in product_code {
        if code.lines().count() > MAX_FILE_LINES {
            long.insert(rel.clone());
        }
        for (name, lines) in functions(code) {
            if lines > MAX_FN_LINES {
                long.insert(format!("{rel}: {name}"));
            }
        }
    }
    let listed: BTreeSet<String> = TOO_LONG_TODAY.iter().map(|s| s.to_string()).collect();
    let mut problems: Vec<String> = long
        .difference(&listed)
        .map(|l| format!("{l} is over {MAX_FN_LINES} lines a function or {MAX_FILE_LINES} a file: split it"))
        .collect();
    problems.extend(listed.difference(&long).map(|l| {
        format!("{l} is within the limits now: take it out of TOO_LONG_TODAY (src-tauri/xtask/src/lengths.rs)")
    }));
    problems
}

/// Each function of `code` (a `fn` at the start of a line, indented or not) and its length in
/// lines, from its `fn` line to its closing brace.
pub(crate) fn functions(code: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(name) = fn_name(lines[i]) else {
            i += 1;
            continue;
        };
        let (mut depth, mut opened, mut j) = (0i64, false, i);
        while j < lines.len() {
            let line = lines[j];
            let (opens, closes) = braces(line);
            depth += opens - closes;
            opened |= opens > 0;
            if (opened && depth <= 0) || (!opened && line.trim_end().ends_with(';')) {
                break;
            }
            j += 1;
        }
        if opened {
            out.push((name, j - i + 1));
        }
        i = j + 1;
    }
    out
}

/// The braces of a line's code: those in string and character literals (`"{}"`, `'{'`) and in
/// a trailing comment do not count.
pub(crate) fn braces(line: &str) -> (i64, i64) {
    let (mut opens, mut closes) = (0, 0);
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '"' => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
            }
            // A character literal ('x' or '\x'), not a lifetime ('a).
            '\'' if chars.get(i + 2) == Some(&'\'') => i += 2,
            '\'' if chars.get(i + 1) == Some(&'\\') => {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
            }
            '/' if chars.get(i + 1) == Some(&'/') => break,
            '{' => opens += 1,
            '}' => closes += 1,
            _ => {}
        }
        i += 1;
    }
    (opens, closes)
}

/// The name of the function a line starts, if it starts one.
fn fn_name(line: &str) -> Option<String> {
    let mut rest = line.trim_start();
    for prefix in ["pub(crate) ", "pub(super) ", "pub ", "const ", "async ", "unsafe "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let rest = rest.strip_prefix("async ").unwrap_or(rest).strip_prefix("fn ")?;
    let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_are_measured_from_their_fn_line_to_their_closing_brace() {
        let code = "fn short() {\n    1\n}\n\npub(crate) async fn longer(\n    a: u8,\n) -> u8 {\n    if a > 0 {\n        a\n    } else {\n        0\n    }\n}\ntrait T {\n    fn declared(&self);\n}\n";
        assert_eq!(
            functions(code),
            vec![("short".to_owned(), 3), ("longer".to_owned(), 9)],
            "a declaration without a body is no function to measure"
        );
        assert_eq!(fn_name("    pub async fn run_link("), Some("run_link".to_owned()));
        assert_eq!(fn_name("    let f = |x| x;"), None);
    }

    #[test]
    fn braces_in_literals_and_comments_do_not_open_or_close_anything() {
        assert_eq!(braces(r#"    if c == '{' || s == "}}" { // }"#), (1, 0));
        assert_eq!(braces(r#"    let q = '\''; let l: &'a str = x; }"#), (0, 1));
        let code = "fn f() {
    let open = '{';
    g(open)
}
fn next() {
}
";
        assert_eq!(
            functions(code),
            vec![("f".to_string(), 4), ("next".to_string(), 2)],
            "a brace in a character literal does not stretch a function over the next"
        );
    }
}
