//! Opening the store on PostgreSQL: the schema brought to this build's (or found so, when the
//! node's role may not change it), the writer on a connection of its own, reads on others.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64};
use std::sync::{Arc, Mutex};

use smsdesk_core::time::Clock;
use tokio::sync::broadcast;

use crate::db::{Conn, Db, PgConn, PgTarget};
use crate::{number_token, reports, room, KeysVersion, Reader, Store, StoreError, Writer};

impl Store {
    /// Opens the store on the PostgreSQL database `target`, on `clock`. Blocking: call it from a
    /// blocking context. Its [`Store::path`] is the address as it may be shown (no password).
    ///
    /// The file's concerns of SQLite (its checks, its checkpoints, the room on its disk) are the
    /// server's there: none of them runs.
    pub fn open_postgres(target: &PgTarget, clock: Clock) -> Result<Store, StoreError> {
        let number_key = number_token::KeyCell::default();
        let conn = PgConn::connect_keyed(target, &number_key)?;
        let db = Db::Postgres(&conn);
        let migration = super::migrations::migrate(db, &clock)?;
        // The report entries another node noted and left to compute, before anything reads them.
        db.transaction(|db| reports::flush(db, &mut Vec::new()))?;
        let room = Arc::new(room::Room::new(&PathBuf::from(".")));
        let (events, _) = broadcast::channel(4_096);
        let keys = KeysVersion::default();
        let restart = Arc::new(AtomicBool::new(false));
        let (writer, thread) = Writer::start(
            Conn::Postgres(Box::new(conn)),
            events.clone(),
            (restart, room.clone()),
            clock.clone(),
            keys.clone(),
        );
        Ok(Store {
            path: PathBuf::from(target.shown()),
            writer,
            reader: Reader::postgres(target, number_key.clone()),
            events,
            keys,
            thread: Mutex::new(Some(thread)),
            checkpointer: Mutex::new(None),
            last_checkpoint: Arc::new(AtomicI64::new(0)),
            room,
            migration,
            clock,
            number_key,
        })
    }
}
