-- Schema 21: the queue's rows by status and the submits answered, counted by the writer.
--
-- Until now a trigger kept `view_count` (scope 'queue') on every insert and status change of a
-- queue row, and `activity_count` (metrics 'accepted', 'refused', 'unknown') on every try whose
-- outcome changed: two statements per status change, and an upsert per grain per answered try,
-- each one on the writer's path for every message sent. The writer now records these changes as
-- it makes them and adds their sums once per transaction, just before it commits, in the same
-- transaction as the rows they count (`totals.rs`), as it already does for the messages created,
-- the receipts and the projections' states. What each total means is unchanged (migrations 3 and
-- 5); the totals of an existing database are already right and stay as they are. The triggers on
-- deleted rows, and the ones that move a message to or from "not sent" (they read its projection),
-- stay.
DROP TRIGGER view_count_queue_insert;
DROP TRIGGER view_count_queue_update;
DROP TRIGGER activity_attempt_insert;
DROP TRIGGER activity_attempt_outcome;
