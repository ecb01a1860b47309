-- Several connections: each queued message carries the route that took it at intake, and the
-- connection it must stay on once moving it could send it twice.
-- - `route`: the name of the route (config [[routes]], or "default") chosen at intake. NULL for
--   rows queued by earlier versions: the next start chooses it by the routes then configured.
-- - `pinned`: the connection of a try whose outcome is unknown, or on which some parts of a long
--   message were accepted. Such a message never moves to another connection; NULL for the rest,
--   which go to whichever connection of their route is up (failover).
ALTER TABLE queue ADD COLUMN route TEXT;
ALTER TABLE queue ADD COLUMN pinned TEXT;

-- A connection claims the due messages of each route it serves now, in the order they go out.
DROP INDEX queue_claim;
CREATE INDEX queue_claim ON queue (status, route, priority, next_attempt_at, message_id);
-- And the messages pinned to it (few).
CREATE INDEX queue_pinned ON queue (pinned, priority, next_attempt_at, message_id)
    WHERE pinned IS NOT NULL AND status = 'queued';

-- Why a try went out on its connection when that was not its route's first (a failover), in
-- words, for the message's timeline; NULL when it went out on its route's first connection.
ALTER TABLE attempt ADD COLUMN routing TEXT;
