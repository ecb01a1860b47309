-- Schema 22: the claim index holds the queued rows only.
--
-- `queue_claim` led with the status and held every queue row, so every status change moved a
-- row's entry within it (queued to sending to accepted: a delete and an insert each time), and the
-- rows of every message ever sent stayed in it. Claims, and the counts of what a connection would
-- claim, only ever read the queued rows (`status = 'queued'`): as a partial index it holds those
-- alone, a message leaving the queue is removed from it once, and later changes of its status do
-- not touch it.
DROP INDEX queue_claim;
CREATE INDEX queue_claim ON queue (route, priority, next_attempt_at, message_id) WHERE status = 'queued';
