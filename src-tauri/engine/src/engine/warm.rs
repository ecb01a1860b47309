//! What the engine makes ready while it starts, so that the first requests after a start do not
//! wait for it: the numbering data (some 80 ms to load, see [`crate::intake::warm_up`]) and two
//! read connections with the schema read. The HTTP server listens once both are done; done
//! alongside the store's opening, they seldom make the start longer.

use std::sync::Arc;

use crate::store::Store;

/// Read connections opened ahead: one for each request two cores serve at once.
const READERS: usize = 2;

pub(super) struct Warming {
    numbering: Option<std::thread::JoinHandle<()>>,
    readers: Option<tokio::task::JoinHandle<()>>,
}

impl Warming {
    /// Begins loading the numbering data, reading one number of the office's `region`.
    pub(super) fn begin(region: Option<String>) -> Warming {
        Warming {
            numbering: crate::intake::warm_up(region),
            readers: None,
        }
    }

    /// Opens the read connections, once the store is open.
    pub(super) fn readers(&mut self, store: &Arc<Store>) {
        let store = store.clone();
        self.readers = Some(tokio::task::spawn_blocking(move || {
            if let Err(e) = store.reader().warm(READERS) {
                // Not a failure: the first reads open their connections instead.
                tracing::debug!(error = %e, "cannot open read connections ahead of the first request");
            }
        }));
    }

    /// Waits until both are done.
    pub(super) async fn done(self) {
        if let Some(readers) = self.readers {
            let _ = readers.await;
        }
        if let Some(numbering) = self.numbering {
            let _ = tokio::task::spawn_blocking(move || numbering.join()).await;
        }
    }
}
