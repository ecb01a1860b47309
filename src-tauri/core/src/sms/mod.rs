//! What an SMS is on the wire, independent of the protocol that carries it.

pub mod decode;
pub mod encoding;
pub mod smart;
