//! The `inbox_message` table: messages from handsets, whole, each in the thread of the number that
//! sent it. Only its read mark changes once it is whole; a long message shown before all its parts
//! came takes the late ones in.

use crate::writer::{Entity, WriteTx};
use crate::Reads;
use crate::StoreError;

/// What an opt-out keyword reply asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    OptOut,
    OptIn,
}

impl Intent {
    pub const fn as_str(self) -> &'static str {
        match self {
            Intent::OptOut => "opt_out",
            Intent::OptIn => "opt_in",
        }
    }
}

/// A message from a handset, put together.
pub struct NewInboxMessage<'a> {
    pub connection: &'a str,
    /// The sender's number in E.164 when its address reads as one.
    pub phone: Option<&'a str>,
    /// The sender's address as received.
    pub handset: &'a str,
    /// Our number or sender id it was sent to.
    pub recipient: Option<&'a str>,
    pub text: &'a str,
    pub alphabet: &'a str,
    pub parts: u8,
    pub parts_received: u8,
    pub received_at: i64,
    pub completed_at: i64,
    pub intent: Option<(Intent, &'a str)>,
}

impl NewInboxMessage<'_> {
    /// The conversation it belongs to.
    pub fn thread(&self) -> &str {
        self.phone.unwrap_or(self.handset)
    }
}

/// Stores an inbox message; returns its id.
pub fn insert(tx: &mut WriteTx<'_>, m: &NewInboxMessage<'_>) -> Result<i64, StoreError> {
    let id: i64 = tx.db().one(
        "INSERT INTO inbox_message (connection, thread, phone, handset, recipient, text, alphabet, parts,
             parts_received, received_at, completed_at, intent, keyword)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) RETURNING id",
        &[
            &m.connection,
            &m.thread(),
            &m.phone,
            &m.handset,
            &m.recipient,
            &m.text,
            &m.alphabet,
            &m.parts,
            &m.parts_received,
            &m.received_at,
            &m.completed_at,
            &m.intent.map(|(i, _)| i.as_str()),
            &m.intent.map(|(_, k)| k),
        ],
    )?;
    tx.changed(Entity::Inbox, id);
    Ok(id)
}

/// A long message shown before all its parts came, which a late part belongs to: same connection,
/// sender, reference and number of parts, received since `since`.
pub fn incomplete(
    conn: &impl Reads,
    connection: &str,
    handset: &str,
    reference: u16,
    total: u8,
    since: i64,
) -> Result<Option<i64>, StoreError> {
    conn.db().query_opt(
        "SELECT i.id FROM inbox_message i
         WHERE i.connection = ?1 AND i.handset = ?2 AND i.parts = ?4 AND i.parts_received < i.parts
           AND i.received_at >= ?5
           AND EXISTS (SELECT 1 FROM inbound_message p WHERE p.inbox_message_id = i.id AND p.concat_ref = ?3)
         ORDER BY i.id DESC LIMIT 1",
        &[&connection, &handset, &reference, &total, &since],
        |r| r.get(0),
    )
}

/// The inbox message from `handset` on `connection`, received since `since`, that already holds
/// part `seq` of the long message with this reference and number of parts (a part the SMSC
/// delivered again).
pub fn holding_part(
    conn: &impl Reads,
    connection: &str,
    handset: &str,
    (reference, total, seq): (u16, u8, u8),
    since: i64,
) -> Result<Option<i64>, StoreError> {
    conn.db().query_opt(
        "SELECT i.id FROM inbox_message i JOIN inbound_message p ON p.inbox_message_id = i.id
         WHERE i.connection = ?1 AND i.handset = ?2 AND i.parts = ?4 AND i.received_at >= ?6
           AND p.concat_ref = ?3 AND p.concat_seq = ?5
         ORDER BY i.id DESC LIMIT 1",
        &[&connection, &handset, &reference, &total, &seq, &since],
        |r| r.get(0),
    )
}

/// Puts a late part's text into a long message shown before it came.
pub fn fill_in(tx: &mut WriteTx<'_>, id: i64, text: &str, parts_received: u8) -> Result<(), StoreError> {
    let now = tx.now_ms();
    tx.db().execute(
        "UPDATE inbox_message SET text = ?2, parts_received = ?3, completed_at = ?4 WHERE id = ?1",
        &[&id, &text, &parts_received, &now],
    )?;
    tx.changed(Entity::Inbox, id);
    Ok(())
}

/// Sets the keyword a long message turned out to be, once whole.
pub fn set_intent(tx: &mut WriteTx<'_>, id: i64, intent: Intent, keyword: &str) -> Result<(), StoreError> {
    tx.db().execute(
        "UPDATE inbox_message SET intent = ?2, keyword = ?3 WHERE id = ?1",
        &[&id, &intent.as_str(), &keyword],
    )?;
    Ok(())
}

/// Marks the unread messages of a thread (up to and including `up_to`, or all) read by `by`;
/// returns how many were unread.
pub fn mark_read(tx: &mut WriteTx<'_>, thread: &str, up_to: Option<i64>, by: &str) -> Result<usize, StoreError> {
    let now = tx.now_ms();
    let ids: Vec<i64> = tx.db().query(
        "UPDATE inbox_message SET read_at = ?3, read_by = ?4
         WHERE thread = ?1 AND read_at IS NULL AND id <= ?2 RETURNING id",
        &[&thread, &up_to.unwrap_or(i64::MAX), &now, &by],
        |r| r.get(0),
    )?;
    for id in &ids {
        tx.changed(Entity::Inbox, *id);
    }
    Ok(ids.len())
}

/// The thread of inbox message `id`, when there is one.
pub fn thread_of(conn: &impl Reads, id: i64) -> Result<Option<String>, StoreError> {
    conn.db()
        .query_opt("SELECT thread FROM inbox_message WHERE id = ?1", &[&id], |r| r.get(0))
}

/// Whether any message belongs to `thread`.
pub fn thread_exists(conn: &impl Reads, thread: &str) -> Result<bool, StoreError> {
    Ok(conn
        .db()
        .query_opt(
            "SELECT 1 FROM inbox_message WHERE thread = ?1 LIMIT 1",
            &[&thread],
            |_| Ok(()),
        )?
        .is_some())
}
