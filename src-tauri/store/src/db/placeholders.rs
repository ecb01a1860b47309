//! The store's SQL is written with SQLite's placeholders (`?1`, `?2`, or `?` counted in order);
//! PostgreSQL numbers them with `$`. This rewrites them, leaving alone what is inside string
//! literals, quoted names and comments.

/// `sql` with every `?N` as `$N` and every bare `?` as the next number.
pub fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut chars = sql.chars().peekable();
    let mut next = 0u32;
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                out.push(c);
                // A doubled quote inside is the quote itself: the loop closes and opens again.
                for d in chars.by_ref() {
                    out.push(d);
                    if d == c {
                        break;
                    }
                }
            }
            '-' if chars.peek() == Some(&'-') => {
                out.push(c);
                for d in chars.by_ref() {
                    out.push(d);
                    if d == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                out.push(c);
                let mut last = ' ';
                for d in chars.by_ref() {
                    out.push(d);
                    if last == '*' && d == '/' {
                        break;
                    }
                    last = d;
                }
            }
            '?' => {
                let mut digits = String::new();
                while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                    digits.push(*d);
                    chars.next();
                }
                out.push('$');
                if digits.is_empty() {
                    next += 1;
                    out.push_str(&next.to_string());
                } else {
                    next = next.max(digits.parse().unwrap_or(0));
                    out.push_str(&digits);
                }
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::numbered;

    #[test]
    fn numbered_and_bare_placeholders_become_dollar_numbers() {
        assert_eq!(
            numbered("SELECT a FROM t WHERE b = ?1 AND c IN (?2, ?1)"),
            "SELECT a FROM t WHERE b = $1 AND c IN ($2, $1)"
        );
        assert_eq!(
            numbered("INSERT INTO t VALUES (?, ?, ?)"),
            "INSERT INTO t VALUES ($1, $2, $3)"
        );
        assert_eq!(numbered("x = ?10"), "x = $10");
    }

    #[test]
    fn question_marks_in_literals_names_and_comments_are_left_alone() {
        assert_eq!(
            numbered("SELECT 'why?', \"odd?name\" FROM t -- really?\nWHERE a = ?1 /* or ?2 */"),
            "SELECT 'why?', \"odd?name\" FROM t -- really?\nWHERE a = $1 /* or ?2 */"
        );
        assert_eq!(numbered("SELECT 'it''s ?' , ?"), "SELECT 'it''s ?' , $1");
    }
}
