-- smsdesk schema, version 8: two of the lookups that applying a receipt makes for its message
-- (`receipts::project::read_message_by_provider_id`, one statement per receipt) get cheaper.
--
-- - The queue row keeps the message's last accepted submit (the accepted attempt with the highest
--   id; segments may be answered out of order) and when it was accepted (its response time, else
--   when it was sent, else when it was created). Reading them from the attempts took three b-tree
--   searches for every receipt: the message's attempts, the attempt's outcome, its times.
--   `messages::record_accepted`, the one place an attempt becomes accepted, keeps them in the
--   statement that already updates the queue row (a trigger on attempts cost the dispatcher 8 %).
-- - The index by provider id carries the message id, so finding the message no longer reads the
--   attempt row.
ALTER TABLE queue ADD COLUMN accepted_attempt_id INTEGER;
ALTER TABLE queue ADD COLUMN accepted_at INTEGER;
UPDATE queue SET (accepted_attempt_id, accepted_at) = (
    SELECT a.id, coalesce(a.responded_at, a.sent_at, a.created_at) FROM attempt a
    WHERE a.id = (SELECT max(id) FROM attempt WHERE message_id = queue.message_id AND outcome = 'accepted')
);

DROP INDEX attempt_provider_id;
CREATE INDEX attempt_provider_id ON attempt (connection, provider_id_norm, message_id)
    WHERE provider_id_norm IS NOT NULL;
