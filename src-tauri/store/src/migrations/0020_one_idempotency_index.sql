-- Schema 20: one index for an idempotency key, not two.
--
-- A message handed in alone with an Idempotency-Key carries the key on its row, as evidence of the
-- request that made it; the key's answer is recorded in `idempotency` in the same transaction,
-- whose primary key (scope, key) already refuses a second record of the same key, and is where
-- every repeat is looked up. The unique index on the message's copy was a second b-tree over the
-- same random key, written for every such message and read by nothing: one page more written
-- per message at every commit.
DROP INDEX message_idempotency;
