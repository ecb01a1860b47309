//! Passwords: what one must look like, and how it is kept (argon2id, salted, in PHC form).
//!
//! Beyond its length, a password is refused when it is easy to guess: a common password, a
//! sequence ("1234567890", "abcdefghij"), a row of keys ("qwertyuiop"), a repeat ("aaaaaaaaaa"),
//! a word or a date by itself, or the account's own name. zxcvbn (Dropbox's estimator, with its
//! lists of common passwords, words and names) estimates how many guesses it would take; fewer
//! than [`MIN_GUESSES_LOG10`] is refused, with zxcvbn's reason as a [`Weakness`].

use std::sync::LazyLock;

use argon2::password_hash::{Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use zxcvbn::feedback::Warning;

/// The shortest password accepted: long enough that guessing it online, slowed down as sign-in
/// is, takes longer than anyone will try.
pub const MIN_CHARS: usize = 10;
/// The longest: hashing is costly, and nobody types more.
pub const MAX_CHARS: usize = 200;
/// The fewest guesses (as a power of ten) a password must be estimated to need: zxcvbn's score 2,
/// "safe from guessing over the network", which sign-in's slow-down makes hours per thousand.
pub const MIN_GUESSES_LOG10: u8 = 6;
/// How much of a password the estimate reads: the estimator's cost grows with the length, and
/// a hundred characters that are not a repeat or a sequence are never guessed.
const ESTIMATED_CHARS: usize = 100;

/// Why a password is refused: the `reason` parameter of a `weak_password` field error, which
/// the UI words in the reader's language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weakness {
    /// Fewer than [`MIN_CHARS`] characters (`min`).
    TooShort,
    /// More than [`MAX_CHARS`] characters (`max`).
    TooLong,
    /// The account's own name.
    Name,
    /// A common password, or one close to a common password.
    Common,
    /// A sequence (abc, 6543) or a row or pattern of keys (qwerty).
    Sequence,
    /// A character or a group of characters repeated (aaa, abcabc).
    Repeated,
    /// A word, a name or a surname by itself.
    Word,
    /// A date or a recent year.
    Date,
    /// Easy to guess for another reason (short words and digits put together, ...).
    Guessable,
}

impl Weakness {
    /// Every reason, in the order above (the UI's words are checked against this list).
    pub const ALL: &'static [Weakness] = &[
        Weakness::TooShort,
        Weakness::TooLong,
        Weakness::Name,
        Weakness::Common,
        Weakness::Sequence,
        Weakness::Repeated,
        Weakness::Word,
        Weakness::Date,
        Weakness::Guessable,
    ];

    /// The reason as the `reason` parameter spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Weakness::TooShort => "too_short",
            Weakness::TooLong => "too_long",
            Weakness::Name => "name",
            Weakness::Common => "common",
            Weakness::Sequence => "sequence",
            Weakness::Repeated => "repeated",
            Weakness::Word => "word",
            Weakness::Date => "date",
            Weakness::Guessable => "guessable",
        }
    }

    /// The reason in English, for logs and clients that show the engine's text.
    pub fn sentence(self) -> String {
        match self {
            Weakness::TooShort => format!("a password needs at least {MIN_CHARS} characters"),
            Weakness::TooLong => format!("a password has at most {MAX_CHARS} characters"),
            Weakness::Name => "a password must not be the account's name".into(),
            Weakness::Common => "this is a common password, among the first ones tried".into(),
            Weakness::Sequence => "sequences and rows of keys (1234, abcd, qwerty) are easy to guess".into(),
            Weakness::Repeated => "repeated characters or groups (aaaa, abcabc) are easy to guess".into(),
            Weakness::Word => "a word or a name by itself is easy to guess".into(),
            Weakness::Date => "dates and years are easy to guess".into(),
            Weakness::Guessable => "this password is easy to guess: add a few words or characters".into(),
        }
    }

    fn of(warning: Option<Warning>) -> Weakness {
        match warning {
            Some(
                Warning::ThisIsATop10Password
                | Warning::ThisIsATop100Password
                | Warning::ThisIsACommonPassword
                | Warning::ThisIsSimilarToACommonlyUsedPassword,
            ) => Weakness::Common,
            Some(
                Warning::StraightRowsOfKeysAreEasyToGuess
                | Warning::ShortKeyboardPatternsAreEasyToGuess
                | Warning::SequencesLikeAbcAreEasyToGuess,
            ) => Weakness::Sequence,
            Some(Warning::RepeatsLikeAaaAreEasyToGuess | Warning::RepeatsLikeAbcAbcAreOnlySlightlyHarderToGuess) => {
                Weakness::Repeated
            }
            Some(
                Warning::AWordByItselfIsEasyToGuess
                | Warning::NamesAndSurnamesByThemselvesAreEasyToGuess
                | Warning::CommonNamesAndSurnamesAreEasyToGuess,
            ) => Weakness::Word,
            Some(Warning::RecentYearsAreEasyToGuess | Warning::DatesAreOftenEasyToGuess) => Weakness::Date,
            None => Weakness::Guessable,
        }
    }
}

/// Why a password is refused, if it is (`name`: the account's, which it must not be or lean on).
pub fn weakness(password: &str, name: &str) -> Option<Weakness> {
    let n = password.chars().count();
    if n < MIN_CHARS {
        return Some(Weakness::TooShort);
    }
    if n > MAX_CHARS {
        return Some(Weakness::TooLong);
    }
    if password.trim().to_lowercase() == name.trim().to_lowercase() {
        return Some(Weakness::Name);
    }
    let head: String = password.chars().take(ESTIMATED_CHARS).collect();
    let estimate = zxcvbn::zxcvbn(&head, &[name.trim(), "smsdesk"]);
    if estimate.guesses_log10() >= f64::from(MIN_GUESSES_LOG10) {
        return None;
    }
    Some(Weakness::of(estimate.feedback().and_then(|f| f.warning())))
}

/// The memory argon2 works in (19 MiB with the default parameters), kept by each hashing
/// thread and used for every hash it makes: a fresh 19 MiB for each check left the allocator
/// holding several of them per thread, and a few hundred megabytes after a few dozen sign-ins.
pub struct Workspace(Vec<Block>);

impl Default for Workspace {
    fn default() -> Self {
        Workspace(vec![Block::default(); Params::default().block_count()])
    }
}

impl Workspace {
    fn blocks(&mut self, count: usize) -> &mut [Block] {
        if self.0.len() < count {
            self.0.resize(count, Block::default());
        }
        &mut self.0[..count]
    }
}

/// The stored form of `password`: argon2id with a fresh random salt, in PHC form.
pub fn hash_in(password: &str, ws: &mut Workspace) -> String {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).expect("the operating system gives random bytes");
    let encoded = SaltString::encode_b64(&salt).expect("16 bytes make a valid salt");
    let params = Params::default();
    let argon2 = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
    let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
    argon2
        .hash_password_into_with_memory(password.as_bytes(), &salt, &mut out, ws.blocks(params.block_count()))
        .expect("argon2 hashes any password within the length limit");
    PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(&params).expect("the default parameters are valid"),
        salt: Some(encoded.as_salt()),
        hash: Some(Output::new(&out).expect("32 bytes make a valid output")),
    }
    .to_string()
}

/// Whether `password` is the one `stored` was made from (compared in constant time). A malformed
/// stored hash matches nothing.
pub fn verify_in(password: &str, stored: &str, ws: &mut Workspace) -> bool {
    let Ok(h) = PasswordHash::new(stored) else {
        return false;
    };
    let (Ok(algorithm), Ok(params)) = (Algorithm::try_from(h.algorithm), Params::try_from(&h)) else {
        return false;
    };
    let Ok(version) = h.version.map_or(Ok(Version::default()), Version::try_from) else {
        return false;
    };
    let (Some(salt), Some(expected)) = (h.salt, h.hash) else {
        return false;
    };
    let mut salt_bytes = [0u8; 64];
    let Ok(salt) = salt.decode_b64(&mut salt_bytes) else {
        return false;
    };
    let mut out = vec![0u8; expected.len()];
    let argon2 = Argon2::new(algorithm, version, params.clone());
    argon2
        .hash_password_into_with_memory(password.as_bytes(), salt, &mut out, ws.blocks(params.block_count()))
        .is_ok()
        && Output::new(&out).is_ok_and(|o| o == expected)
}

/// A check no password passes, as costly as a real one: signing in as an unknown name costs as
/// much as with a known one, so timing does not tell which names exist.
pub fn verify_nothing_in(password: &str, ws: &mut Workspace) {
    static DUMMY: LazyLock<String> = LazyLock::new(|| hash("no account has this password"));
    let _ = verify_in(password, &DUMMY, ws);
}

/// [`hash_in`] with a workspace of its own (tests, and one-off hashes).
pub fn hash(password: &str) -> String {
    hash_in(password, &mut Workspace::default())
}

/// [`verify_in`] with a workspace of its own.
pub fn verify(password: &str, stored: &str) -> bool {
    verify_in(password, stored, &mut Workspace::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_only_and_never_holds_it() {
        let h = hash("correct horse battery");
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(!h.contains("correct horse"));
        assert!(verify("correct horse battery", &h));
        assert!(!verify("correct horse batterY", &h));
        assert_ne!(hash("correct horse battery"), h, "each hash has its own salt");
        assert!(!verify("anything", "not a hash"));
        let mut ws = Workspace::default();
        for _ in 0..3 {
            assert!(
                verify_in("correct horse battery", &h, &mut ws),
                "a workspace serves again"
            );
        }
    }

    #[test]
    fn hashes_made_by_the_argon2_crate_itself_still_verify() {
        use argon2::password_hash::PasswordHasher;
        let salt = SaltString::encode_b64(b"sixteen byte slt").unwrap();
        let stored = Argon2::default()
            .hash_password(b"correct horse battery", &salt)
            .unwrap()
            .to_string();
        assert!(
            verify("correct horse battery", &stored),
            "hashes stored before keep working"
        );
        assert!(!verify("correct horse batterY", &stored));
        assert_eq!(
            hash_in("x", &mut Workspace::default()).split('$').nth(3),
            stored.split('$').nth(3),
            "the same parameters as before: {stored}"
        );
    }

    #[test]
    fn short_long_and_name_like_passwords_are_refused() {
        assert_eq!(weakness("short", "marie"), Some(Weakness::TooShort));
        assert_eq!(weakness(&"x".repeat(MAX_CHARS + 1), "marie"), Some(Weakness::TooLong));
        assert_eq!(weakness("Marie.Dupont", "marie.dupont"), Some(Weakness::Name));
        assert_eq!(weakness("a long enough one", "marie"), None);
        assert_eq!(weakness("correct horse battery", "marie"), None);
    }

    #[test]
    fn common_passwords_sequences_repeats_and_rows_of_keys_are_refused_with_their_reason() {
        for (password, reason) in [
            ("aaaaaaaaaa", Weakness::Repeated),
            ("abcabcabcabc", Weakness::Repeated),
            ("1234567890", Weakness::Common),
            ("qwertyuiop", Weakness::Common),
            ("password123", Weakness::Common),
            ("abcdefghijkl", Weakness::Sequence),
            ("98765432109876", Weakness::Sequence),
            ("1qaz2wsx3edc", Weakness::Common),
        ] {
            assert_eq!(weakness(password, "marie"), Some(reason), "{password}");
        }
        assert!(
            weakness("marie.dupont1", "marie.dupont").is_some(),
            "the account's name with a digit is refused"
        );
        let long_repeat = "ab".repeat(MAX_CHARS / 2);
        assert_eq!(weakness(&long_repeat, "marie"), Some(Weakness::Repeated));
    }

    #[test]
    fn every_reason_has_its_own_spelling() {
        let mut seen: Vec<&str> = Weakness::ALL.iter().map(|w| w.as_str()).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), Weakness::ALL.len(), "two reasons must not share a code");
    }
}
