//! A hand-written scanner for SMPP 3.4 Appendix B receipt texts and their real-world variants:
//! `id:… sub:… dlvrd:… submit date:… done date:… stat:… err:… text:…`.
//!
//! Tolerated: any case of the keys; `submit_date`/`submitdate`/`submit-date` (and the same for
//! `done date`); `txt:` for `text:`; `error:` for `err:`; other field orders; missing and extra
//! fields; garbage before, between and after the fields; NUL padding. A key counts only at the
//! start of the text or after a byte that is not a letter or digit, and only the first time it
//! appears. Every value except `text` is one token (up to the next blank); `text` runs to the
//! end, or to the next key not seen yet (`… text: stat:DELIVRD`, cloudhopper's out-of-order test).
//!
//! The scanner works on bytes and returns spans: no allocation, no regex.

/// One receipt field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    Id = 0,
    Sub = 1,
    Dlvrd = 2,
    SubmitDate = 3,
    DoneDate = 4,
    Stat = 5,
    Err = 6,
    Text = 7,
}

/// Byte ranges of the fields found, by [`Key`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Fields {
    spans: [Option<(u32, u32)>; 8],
    /// How many keys were found (a value may be empty).
    pub(crate) keys: u8,
}

impl Fields {
    pub(crate) fn get<'a>(&self, text: &'a [u8], key: Key) -> Option<&'a [u8]> {
        self.spans[key as usize].map(|(s, e)| &text[s as usize..e as usize])
    }

    fn seen(&self, key: Key) -> bool {
        self.spans[key as usize].is_some()
    }

    fn set(&mut self, key: Key, start: usize, end: usize) {
        self.spans[key as usize] = Some((start as u32, end as u32));
        self.keys += 1;
    }

    /// A non-empty `id` or `stat` value: the text is recognisably a receipt.
    pub(crate) fn is_receipt(&self, text: &[u8]) -> bool {
        [Key::Id, Key::Stat]
            .iter()
            .any(|&k| self.get(text, k).is_some_and(|v| !v.is_empty()))
    }
}

#[inline]
fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

#[inline]
fn is_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n' | b'\0')
}

/// `b[i..]` starts with `word` (ASCII, case-insensitive): the index after it.
#[inline]
fn lit(b: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    let end = i + word.len();
    (end <= b.len() && b[i..end].eq_ignore_ascii_case(word)).then_some(end)
}

/// `b[i..]` starts with `first`, an optional separator (` `, `_`, `-`) and `date`.
#[inline]
fn two_words(b: &[u8], i: usize, first: &[u8]) -> Option<usize> {
    let mut j = lit(b, i, first)?;
    match b.get(j) {
        Some(b'_' | b'-') => j += 1,
        _ => {
            while b.get(j) == Some(&b' ') {
                j += 1;
            }
        }
    }
    lit(b, j, b"date")
}

/// A key starting at `i`, followed by `:`: the key and the index after the colon.
#[inline]
fn key_at(b: &[u8], i: usize) -> Option<(Key, usize)> {
    let (key, end) = match b[i] | 0x20 {
        b'i' => (Key::Id, lit(b, i, b"id")?),
        b's' => {
            if let Some(e) = lit(b, i, b"stat") {
                (Key::Stat, e)
            } else if let Some(e) = two_words(b, i, b"submit") {
                (Key::SubmitDate, e)
            } else {
                (Key::Sub, lit(b, i, b"sub")?)
            }
        }
        b'd' => {
            if let Some(e) = lit(b, i, b"dlvrd") {
                (Key::Dlvrd, e)
            } else {
                (Key::DoneDate, two_words(b, i, b"done")?)
            }
        }
        b'e' => match lit(b, i, b"error") {
            Some(e) => (Key::Err, e),
            None => (Key::Err, lit(b, i, b"err")?),
        },
        b't' => match lit(b, i, b"text") {
            Some(e) => (Key::Text, e),
            None => (Key::Text, lit(b, i, b"txt")?),
        },
        _ => return None,
    };
    (b.get(end) == Some(&b':')).then_some((key, end + 1))
}

/// A key at `i` that counts here: at a word boundary.
#[inline]
fn key_here(b: &[u8], i: usize) -> Option<(Key, usize)> {
    if i > 0 && is_word(b[i - 1]) {
        return None;
    }
    key_at(b, i)
}

/// The one-token value starting at `start`: blanks before it are skipped unless a key follows
/// them (`err: text:` is an empty `err`). Dates written `YYYY-MM-DD hh:mm[:ss]` keep their time.
fn token(b: &[u8], start: usize, key: Key) -> (usize, usize) {
    let mut s = start;
    while s < b.len() && (b[s] == b' ' || b[s] == b'\t') {
        s += 1;
    }
    if s > start && s < b.len() && key_here(b, s).is_some() {
        return (start, start);
    }
    let mut e = s;
    while e < b.len() && !is_blank(b[e]) {
        e += 1;
    }
    if matches!(key, Key::SubmitDate | Key::DoneDate)
        && e - s == 10
        && b[s + 4] == b'-'
        && b.get(e) == Some(&b' ')
        && b.get(e + 3) == Some(&b':')
        && b[e + 1..e + 3].iter().all(u8::is_ascii_digit)
    {
        e += 1;
        while e < b.len() && !is_blank(b[e]) {
            e += 1;
        }
    }
    (s, e)
}

/// Scans a receipt text.
pub(crate) fn scan(b: &[u8]) -> Fields {
    let mut f = Fields::default();
    // Longer texts are not receipts; spans are u32.
    let b = &b[..b.len().min(u32::MAX as usize)];
    let n = b.len();
    let mut text_start: Option<usize> = None;
    let mut i = 0;
    while i < n {
        let c = b[i] | 0x20;
        if matches!(c, b'i' | b's' | b'd' | b'e' | b't') {
            if let Some((key, value)) = key_here(b, i) {
                let fresh = !(f.seen(key) || key == Key::Text && text_start.is_some());
                if fresh {
                    if let Some(ts) = text_start.take() {
                        let (s, e) = trim(b, ts, i);
                        f.set(Key::Text, s, e);
                    }
                    if key == Key::Text {
                        text_start = Some(value);
                        i = value;
                    } else {
                        let (s, e) = token(b, value, key);
                        f.set(key, s, e);
                        i = e.max(value);
                    }
                    continue;
                }
            }
        }
        i += 1;
    }
    if let Some(ts) = text_start {
        let (s, e) = trim(b, ts, n);
        f.set(Key::Text, s, e);
    }
    f
}

fn trim(b: &[u8], mut s: usize, mut e: usize) -> (usize, usize) {
    while s < e && is_blank(b[s]) {
        s += 1;
    }
    while e > s && is_blank(b[e - 1]) {
        e -= 1;
    }
    (s, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(text: &str, key: Key) -> Option<String> {
        let f = scan(text.as_bytes());
        f.get(text.as_bytes(), key)
            .map(|v| String::from_utf8_lossy(v).into_owned())
    }

    #[test]
    fn appendix_b() {
        let t = "id:0123456789 sub:002 dlvrd:001 submit date:1005232039 done date:1005242339 stat:DELIVRD err:012 text:This is a sample mes";
        assert_eq!(field(t, Key::Id).as_deref(), Some("0123456789"));
        assert_eq!(field(t, Key::Sub).as_deref(), Some("002"));
        assert_eq!(field(t, Key::Dlvrd).as_deref(), Some("001"));
        assert_eq!(field(t, Key::SubmitDate).as_deref(), Some("1005232039"));
        assert_eq!(field(t, Key::DoneDate).as_deref(), Some("1005242339"));
        assert_eq!(field(t, Key::Stat).as_deref(), Some("DELIVRD"));
        assert_eq!(field(t, Key::Err).as_deref(), Some("012"));
        assert_eq!(field(t, Key::Text).as_deref(), Some("This is a sample mes"));
    }

    #[test]
    fn out_of_order_with_empty_text_in_the_middle() {
        let t = "sub:001 id:74e02ee1-4e2f-4a6e-a78b-4b247d756a22 err:000 dlvrd:001 done date:110206193110 submit date:110206193041 text: stat:DELIVRD";
        assert_eq!(field(t, Key::Stat).as_deref(), Some("DELIVRD"));
        assert_eq!(field(t, Key::Text).as_deref(), Some(""));
        assert_eq!(field(t, Key::SubmitDate).as_deref(), Some("110206193041"));
    }

    #[test]
    fn variants() {
        let t = "ID:1 SUB:001 DLVRD:001 Submit_Date:1609212359 done_date:1609220000 STAT:DELIVRD ERR:000 Text:hi stat:x id:2";
        assert_eq!(field(t, Key::Id).as_deref(), Some("1"));
        assert_eq!(field(t, Key::SubmitDate).as_deref(), Some("1609212359"));
        assert_eq!(field(t, Key::DoneDate).as_deref(), Some("1609220000"));
        assert_eq!(field(t, Key::Text).as_deref(), Some("hi stat:x id:2"));
        // A key glued to a word is not a key.
        assert_eq!(field("xid:5 stat:DELIVRD", Key::Id), None);
        // Garbage before the first key.
        assert_eq!(
            field("\x05\x00\x03\x01id:77 stat:UNDELIV", Key::Id).as_deref(),
            Some("77")
        );
        // Empty value followed by a key.
        assert_eq!(field("id:9 err: text:x", Key::Err).as_deref(), Some(""));
        // ISO date with a time.
        assert_eq!(
            field("id:9 done date:2011-03-14 18:15:34 stat:DELIVRD", Key::DoneDate).as_deref(),
            Some("2011-03-14 18:15:34")
        );
        assert_eq!(
            field("id:9 submit  date:1005232039 stat:DELIVRD", Key::SubmitDate).as_deref(),
            Some("1005232039")
        );
        assert!(!scan(b"362d9701 2").is_receipt(b"362d9701 2"));
    }
}
