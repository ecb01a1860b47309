//! What the engine announces after each commit (which row changed), and what a door needs to
//! know of a change before passing it on: whose message it is about, and the reply it brings.

use tokio::sync::broadcast;

use crate::service::Service;
use crate::store::tables::message::change_owner;
pub use crate::store::{Change, Entity};
use crate::views::{inbox_message, InboxMessage};

impl Service {
    /// Every change committed from now on, in commit order.
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.store().subscribe()
    }

    /// The API key that handed in the message `change` is about; `None` when no key did, or when
    /// the change is not about one message (exceptions, receipts before correlation, the audit
    /// log), or it cannot be read now.
    pub async fn change_owner(&self, change: Change) -> Option<i64> {
        self.store()
            .reader()
            .read(move |conn| change_owner(conn, change.entity, change.id))
            .await
            .ok()
            .flatten()
    }

    /// The reply from a handset `change` announces, when it is one nobody has read yet (a change
    /// that marks one read announces nothing).
    pub async fn unread_reply(&self, change: Change) -> Option<InboxMessage> {
        if change.entity != Entity::Inbox {
            return None;
        }
        let reply = self
            .store()
            .reader()
            .read(move |conn| inbox_message(conn, change.id))
            .await
            .ok()
            .flatten()?;
        reply.read_at_ms.is_none().then_some(reply)
    }
}
