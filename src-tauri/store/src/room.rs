//! Room on the disk that holds the database: how much is free (measured by the checkpoint thread
//! several times a second), the reserve kept for what must not be refused, and whether writes
//! are failing for want of room.
//!
//! Below the reserve, new messages are refused ([`crate::WriteTx::intake_room`]) while what is
//! already in the house goes on being written: the tries and their answers, receipts, recovery.
//! Otherwise intake fills the disk to the last byte, and then nothing at all can be written,
//! not even the answer to a message already on the wire. And while the disk is short, the WAL is
//! emptied into the database and cut back at every checkpoint ([`crate::checkpoint`]): left to
//! grow, it takes back whatever room is freed before the writes that need it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;

/// What [`Room`] knows now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoomState {
    /// Free on the database's disk for this process, at the last measure; `None` before the
    /// first, or where it cannot be measured.
    pub free_bytes: Option<u64>,
    /// Kept free for what must not be refused: new messages are refused below it.
    pub reserve_bytes: u64,
    /// Since when commits fail for want of room (SQLITE_FULL); `None` while they succeed.
    pub failing_since_ms: Option<i64>,
    /// What the last failed commit said.
    pub error: Option<String>,
}

impl RoomState {
    /// Less free than the reserve.
    pub fn below_reserve(&self) -> bool {
        self.free_bytes.is_some_and(|free| free < self.reserve_bytes)
    }

    /// Short of room: below the reserve, or commits failing for want of it.
    pub fn short(&self) -> bool {
        self.below_reserve() || self.failing_since_ms.is_some()
    }
}

/// Room on the database's disk, shared by the store's threads.
#[derive(Debug)]
pub struct Room {
    /// The database's folder: the file system measured.
    dir: PathBuf,
    reserve: AtomicU64,
    /// `u64::MAX`: not measured.
    free: AtomicU64,
    /// 0: commits succeed.
    failing_since: AtomicI64,
    error: Mutex<Option<String>>,
}

const UNMEASURED: u64 = u64::MAX;
const MIB: u64 = 1 << 20;

impl Room {
    /// For the database at `path`, with no reserve until one is set.
    pub(crate) fn new(path: &Path) -> Room {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
            _ => PathBuf::from("."),
        };
        Room {
            dir,
            reserve: AtomicU64::new(0),
            free: AtomicU64::new(UNMEASURED),
            failing_since: AtomicI64::new(0),
            error: Mutex::new(None),
        }
    }

    pub(crate) fn set_reserve(&self, bytes: u64) {
        self.reserve.store(bytes, Ordering::Relaxed);
    }

    /// Measures the free room again; what it found.
    pub(crate) fn measure(&self) -> Option<u64> {
        let free = free_bytes(&self.dir);
        self.free.store(free.unwrap_or(UNMEASURED), Ordering::Relaxed);
        free
    }

    /// A commit failed for want of room at `now`, saying `error`.
    pub(crate) fn failed(&self, now: i64, error: &str) {
        let _ = self
            .failing_since
            .compare_exchange(0, now.max(1), Ordering::Relaxed, Ordering::Relaxed);
        *self.error.lock().unwrap_or_else(|p| p.into_inner()) = Some(error.to_owned());
    }

    /// A commit that wrote something succeeded: writes are not failing (any more).
    pub(crate) fn wrote(&self) {
        if self.failing_since.swap(0, Ordering::Relaxed) != 0 {
            *self.error.lock().unwrap_or_else(|p| p.into_inner()) = None;
            tracing::info!("the database takes writes again: there is room on its disk");
        }
    }

    pub fn state(&self) -> RoomState {
        let free = self.free.load(Ordering::Relaxed);
        let since = self.failing_since.load(Ordering::Relaxed);
        RoomState {
            free_bytes: (free != UNMEASURED).then_some(free),
            reserve_bytes: self.reserve.load(Ordering::Relaxed),
            failing_since_ms: (since != 0).then_some(since),
            error: self.error.lock().unwrap_or_else(|p| p.into_inner()).clone(),
        }
    }

    /// Why new messages are refused now, if they are: the disk is below the reserve.
    pub(crate) fn intake_refusal(&self) -> Option<String> {
        let state = self.state();
        state.below_reserve().then(|| {
            format!(
                "{} MiB free on the disk holding the database, less than the {} MiB kept for sending and receipts (store.reserve_mib): new messages are refused until there is room",
                state.free_bytes.unwrap_or(0) / MIB,
                state.reserve_bytes / MIB
            )
        })
    }
}

/// Bytes free for an unprivileged process on the file system holding `dir`.
#[cfg(unix)]
fn free_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::zeroed();
    // SAFETY: `c` is a NUL-terminated path and `st` points to writable memory the size of a
    // statvfs, which the call fills in when it returns 0 (and leaves unread otherwise).
    let rc = unsafe { libc::statvfs(c.as_ptr(), st.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: the call returned 0: it filled the structure in.
    let st = unsafe { st.assume_init() };
    #[allow(clippy::useless_conversion)]
    Some(u64::from(st.f_bavail).saturating_mul(u64::from(st.f_frsize)))
}

#[cfg(not(unix))]
fn free_bytes(_dir: &Path) -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_free_room_of_a_real_folder_is_measured_and_compared_with_the_reserve() {
        let dir = tempfile::tempdir().unwrap();
        let room = Room::new(&dir.path().join("smsdesk.db"));
        assert_eq!(
            room.state().free_bytes,
            None,
            "nothing is known before the first measure"
        );
        assert!(!room.state().short(), "nothing unknown makes the disk short");
        let free = room.measure();
        if cfg!(unix) {
            assert!(free.is_some_and(|f| f > 0), "a temporary folder has room: {free:?}");
        }
        assert!(room.intake_refusal().is_none(), "no reserve: nothing is refused");
        room.set_reserve(u64::MAX - 1);
        if cfg!(unix) {
            let why = room
                .intake_refusal()
                .expect("below the reserve, new messages are refused");
            assert!(why.contains("store.reserve_mib"), "{why}");
            assert!(room.state().short());
        }
    }

    #[test]
    fn writes_fail_from_the_first_full_commit_until_one_that_wrote_succeeds() {
        let dir = tempfile::tempdir().unwrap();
        let room = Room::new(&dir.path().join("smsdesk.db"));
        room.failed(1_000, "database or disk is full");
        room.failed(2_000, "database or disk is full, again");
        let state = room.state();
        assert_eq!(state.failing_since_ms, Some(1_000), "since the first failure");
        assert_eq!(state.error.as_deref(), Some("database or disk is full, again"));
        assert!(state.short());
        room.wrote();
        assert_eq!(room.state().failing_since_ms, None);
        assert_eq!(room.state().error, None);
    }
}
