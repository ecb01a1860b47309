-- smsdesk schema, version 6: the running totals that every receipt changes are kept by the writer
-- instead of by triggers. Receipt ingestion fired three to eight upserts per receipt through the
-- triggers below (one per bucket width, per table); the writer now sums a transaction's changes
-- and writes them just before it commits (store/totals.rs), in the same transaction, so the totals
-- stay exact. The tables, their meaning and the rows already in them do not change.
--
-- Every receipt is written through the receipt log and every projection through
-- `receipts::project::save`, which record these changes; the totals of submits, messages and
-- queue statuses are still kept by their triggers of versions 3 and 5. Deleting a projection
-- (which the engine never does) still takes it out of the count by state.
DROP TRIGGER activity_receipt;
DROP TRIGGER activity_latency_insert;
DROP TRIGGER activity_latency_update;
DROP TRIGGER activity_outcome_projection_insert;
DROP TRIGGER activity_outcome_projection_update;
DROP TRIGGER view_count_projection_insert;
DROP TRIGGER view_count_projection_update;
