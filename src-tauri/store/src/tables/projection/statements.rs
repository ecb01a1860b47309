//! The statements that read a [`super::MessageRow`], the same on either store.

/// The statement of a [`MessageRow`], followed by the expression naming the message (a literal,
/// so that the statement is one constant string).
macro_rules! message_row {
    ($which:literal) => {
        concat!(
            "SELECT m.id, ",
            crate::tables::message::message_connections!("m"),
            ", m.destination, m.body, m.created_at, q.status, q.accepted_at,
                (SELECT k.id FROM api_key k
                 WHERE k.id = m.api_key_id AND k.webhook_url IS NOT NULL AND k.revoked_at IS NULL),
                p.fold_json, p.state, p.rule, p.flag_no_receipt, m.segments,
                m.text_redaction IS NOT NULL, m.number_redaction IS NOT NULL,
                (SELECT s.receipt FROM smpp_message s WHERE s.message_id = m.id)
             FROM message m LEFT JOIN queue q ON q.message_id = m.id LEFT JOIN projection p ON p.message_id = m.id
             WHERE m.id = ",
            $which
        )
    };
}

/// The statement of [`super::read_message`]: a message by id (`?1`).
pub(super) const BY_ID: &str = message_row!("?1");

/// The statement of [`super::read_message_by_provider_id`]: the one message whose accepted
/// submits on `?1` carry the provider id `?2`.
pub(super) const BY_PROVIDER_ID: &str = message_row!(
    "(SELECT CASE WHEN min(message_id) = max(message_id) THEN min(message_id) END
      FROM attempt WHERE connection = ?1 AND provider_id_norm = ?2)"
);
