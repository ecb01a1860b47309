//! One-time codes never at rest: an OTP's text is stored sealed with a key held only in memory,
//! made anew by every run of the engine on a database, and masked (`Votre code : ••••••`) where a
//! text is shown, exported or sent in a webhook. The seal is dropped once the code can no longer
//! be sent (cancelled, expired, or its validity over: schema 27's trigger and
//! `queue::drop_spent_seals`); neither the database, its WAL, a backup nor a log ever holds the
//! code in clear.
//!
//! The price: a code still waiting when smsdesk stops cannot be sent by the next run, which
//! marks it expired with the reason `code_lost` (the website asks for a new code, as it does for
//! one that expired).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::queue_reason;
use crate::sealed::Sealer;
use crate::store::tables::queue;
use crate::store::{Store, StoreError};
use smsdesk_core::domain::QueueStatus;

/// What a masked character shows.
pub const MASK: char = '•';

/// The key of each database's current run, in this process's memory only.
static RUNS: Mutex<BTreeMap<PathBuf, Arc<Sealer>>> = Mutex::new(BTreeMap::new());

/// Starts a run on the database at `db`: a new key, so nothing an earlier run sealed opens.
pub fn new_run(db: &Path) -> Arc<Sealer> {
    let key = Arc::new(Sealer::in_memory());
    RUNS.lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(db.to_owned(), key.clone());
    key
}

/// The key of the run on the database at `db`, when one runs in this process.
pub fn sealer_for(db: &Path) -> Option<Arc<Sealer>> {
    RUNS.lock().unwrap_or_else(|p| p.into_inner()).get(db).cloned()
}

/// `text` with every word that holds a digit masked, character for character: the code (and a
/// code with letters, `G-482913`) goes; the punctuation and the sentence around it stay.
pub fn mask(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if word.chars().any(|c| c.is_ascii_digit()) {
            // Its letters, digits and dashes: the punctuation around it stays.
            out.extend(
                word.chars()
                    .map(|c| if c.is_alphanumeric() || c == '-' { MASK } else { c }),
            );
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_whitespace() {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The text a claimed message of the database at `db` goes out with: its own, or its code
/// opened. None when the code cannot be opened (sealed by an earlier run) or was dropped.
pub fn text_to_send(db: &Path, body: &str, sealed: Option<&str>) -> Option<String> {
    match sealed {
        None => Some(body.to_owned()),
        Some(s) => sealer_for(db)?.open(s).ok(),
    }
}

/// Marks expired, with the reason `code_lost`, every one-time code still to be sent that this
/// process cannot open: sealed by an earlier run. Returns how many.
pub async fn drop_lost(store: &Store) -> Result<usize, StoreError> {
    let key = sealer_for(store.path());
    let waiting: Vec<(i64, String)> = store.reader().read(queue::sealed_waiting).await?;
    let lost: Vec<i64> = waiting
        .into_iter()
        .filter(|(_, s)| key.as_ref().is_none_or(|k| k.open(s).is_err()))
        .map(|(id, _)| id)
        .collect();
    if lost.is_empty() {
        return Ok(0);
    }
    let n = lost.len();
    store
        .writer()
        .write(move |tx| {
            for id in lost {
                // Only what is still waiting: a message moved on meanwhile keeps its status.
                if matches!(queue::status(tx, id)?, Some(QueueStatus::Queued | QueueStatus::Held)) {
                    queue::set_status(tx, id, QueueStatus::Expired, Some(&queue_reason::code_lost()), None)?;
                }
            }
            Ok::<_, StoreError>(())
        })
        .await?;
    tracing::warn!(
        codes = n,
        "one-time codes sealed by an earlier run could not be sent: marked expired (code_lost)"
    );
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_is_masked_and_the_sentence_stays() {
        assert_eq!(mask("Votre code : 482913"), "Votre code : ••••••");
        assert_eq!(mask("Code G-4829, valable 5 min."), "Code ••••••, valable • min.");
        assert_eq!(mask("Bonjour\nà demain"), "Bonjour\nà demain");
    }

    #[test]
    fn a_sealed_code_opens_in_its_run_only() {
        let db = Path::new("/nowhere/codes-test.db");
        assert!(sealer_for(db).is_none(), "no run, no key");
        let sealed = new_run(db).seal("Votre code : 482913");
        assert!(!sealed.contains("482913"));
        let masked = "Votre code : ••••••";
        assert_eq!(
            text_to_send(db, masked, Some(&sealed)).as_deref(),
            Some("Votre code : 482913")
        );
        new_run(db);
        assert_eq!(
            text_to_send(db, masked, Some(&sealed)),
            None,
            "the next run's key opens nothing of the last"
        );
        assert_eq!(text_to_send(db, "plain", None).as_deref(), Some("plain"));
    }
}
