-- smsdesk schema, version 7: a change of a message's computed state is put in the webhook outbox
-- by the code that writes the projection (`receipts::project::save`, which every projection write
-- goes through) instead of by triggers on the projection table. The rows it writes are the ones
-- the triggers wrote: one `state` delivery when a projection is first stored and one whenever its
-- state changes, for a message whose API key has a webhook URL and is not revoked, in the same
-- transaction as the projection. The triggers made SQLite keep a statement journal for every
-- projection written, and looked the message's key up again, on every applied receipt.
--
-- Queue status changes keep their trigger (webhook_on_queue_status): they are off the receipt
-- path.
DROP TRIGGER webhook_on_state_insert;
DROP TRIGGER webhook_on_state_update;
