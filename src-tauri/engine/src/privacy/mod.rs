//! Personal data that does not outstay its purpose (docs/admin/personal-data.md): retention by
//! age, erasure and access by number, and one-time codes never at rest ([`codes`]). The rules of
//! what is kept live in the store (`smsdesk_store::privacy`); this module runs them.

pub mod codes;
mod retention;
mod subject;

use std::path::Path;

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::settings::secret::{data_key, SecretError};
use crate::store::privacy::token::NumberKey;
use crate::store::{Store, StoreError};

pub use crate::store::privacy::access::{SubjectMessage, SubjectRecord, SubjectReply};
pub use crate::store::privacy::{Redacted, RedactionRule, Tombstone};
pub use retention::{keep_redacting, run, RetentionRun};
pub use subject::{erase, record, record_csv, Erased};

/// The key numbers are hashed with once redacted: derived from the data directory's `secret.key`
/// (never stored in the database, so a copy of it cannot be searched for a number).
pub fn number_key(data_dir: &Path) -> Result<NumberKey, SecretError> {
    let key = data_key(data_dir)?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes a key of any length");
    mac.update(b"smsdesk number hash v1");
    Ok(NumberKey::new(mac.finalize().into_bytes().into()))
}

/// Copies the WAL into the database and empties it, so that no frame keeps what was just
/// redacted: tried a few times, since it needs a moment when nothing writes or reads. False when
/// none came (the WAL's old frames are then overwritten as it starts again).
async fn empty_wal(store: &std::sync::Arc<Store>) -> Result<bool, StoreError> {
    for _ in 0..5 {
        let s = store.clone();
        let emptied = tokio::task::spawn_blocking(move || s.checkpoint_truncate())
            .await
            .map_err(|_| StoreError::Aborted)??;
        if emptied {
            return Ok(true);
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    Ok(false)
}

/// Gives `store` the key of `data_dir` (every process that opens a data directory's database).
pub fn set_number_key(store: &Store, data_dir: &Path) -> Result<(), StoreError> {
    let key = number_key(data_dir).map_err(|e| StoreError::NumberKey(e.to_string()))?;
    store.set_number_key(key)
}
