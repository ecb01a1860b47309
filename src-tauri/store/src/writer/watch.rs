//! Tells those who keep what they read of the API keys (every request presents one) when the
//! keys changed: the writer notes any row of `api_key` written in a transaction, and moves a
//! version on once that transaction is over (committed or not), before any of its callers is
//! answered. So once a key's revocation is answered, no request can pass with what was read of
//! the key before it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// The table whose changes move the version.
const WATCHED: &str = "api_key";

/// How many times the API keys have changed since the store opened: read it before reading a key,
/// and keep what was read only while it has not moved.
#[derive(Debug, Clone, Default)]
pub struct KeysVersion(Arc<AtomicU64>);

impl KeysVersion {
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Acquire)
    }
}

/// The writer's side: the flag its connection's update hook raises, and the version it moves.
pub(super) struct Watch {
    touched: Arc<AtomicBool>,
    version: KeysVersion,
    /// Every transaction counts as touching the keys.
    always: bool,
}

impl Watch {
    /// Watches the writer's connection: every row it inserts, updates or deletes is reported to
    /// the hook, triggers' included.
    pub(super) fn install(conn: &crate::db::Conn, version: KeysVersion) -> Watch {
        let touched = Arc::new(AtomicBool::new(false));
        let conn = match conn {
            crate::db::Conn::Sqlite(c) => c,
            // PostgreSQL has no hook on a connection's writes: every transaction is taken to
            // have touched the keys, and those who keep them read them again.
            crate::db::Conn::Postgres(_) => {
                touched.store(true, Ordering::Relaxed);
                return Watch {
                    touched,
                    version,
                    always: true,
                };
            }
        };
        let raised = touched.clone();
        conn.update_hook(Some(move |_, _: &str, table: &str, _| {
            if table == WATCHED {
                raised.store(true, Ordering::Relaxed);
            }
        }));
        Watch {
            touched,
            version,
            always: false,
        }
    }

    /// Called once a transaction is over, before its callers are answered.
    pub(super) fn transaction_over(&self) {
        if self.touched.swap(self.always, Ordering::Relaxed) {
            self.version.0.fetch_add(1, Ordering::AcqRel);
        }
    }
}
