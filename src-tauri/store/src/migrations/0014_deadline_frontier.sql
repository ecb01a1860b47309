-- The deadline sweep's frontier: no message whose id is below it can become due under the "no
-- receipt by deadline" rule as it stands (settled: a final state, a flag, a decision, a no-receipt
-- exception; no receipt asked for; or not accepted). The sweep searches from it up, instead of reading
-- every accepted message ever sent once a minute (about a minute of a core at a million).
CREATE TABLE deadline_frontier (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    frontier INTEGER NOT NULL CHECK (frontier >= 0)
);
INSERT INTO deadline_frontier (id, frontier) VALUES (1, 0);

-- A message below the frontier whose sending changes (its acceptance, a retry, an outcome settled
-- by evidence) is looked at again: the frontier goes back to it. New messages are above it.
CREATE TRIGGER deadline_frontier_reopen AFTER UPDATE OF status ON queue
WHEN NEW.message_id < (SELECT frontier FROM deadline_frontier WHERE id = 1)
BEGIN
    UPDATE deadline_frontier SET frontier = NEW.message_id WHERE id = 1;
END;

-- So does one whose computed state changes (a rebuild under new rules, say): whatever moved below
-- the frontier is looked at again.
CREATE TRIGGER deadline_frontier_reproject AFTER UPDATE OF state, rule, flag_no_receipt ON projection
WHEN NEW.message_id < (SELECT frontier FROM deadline_frontier WHERE id = 1)
BEGIN
    UPDATE deadline_frontier SET frontier = NEW.message_id WHERE id = 1;
END;

-- And one whose tries change (a part accepted late, say).
CREATE TRIGGER deadline_frontier_attempt AFTER INSERT ON attempt
WHEN NEW.message_id < (SELECT frontier FROM deadline_frontier WHERE id = 1)
BEGIN
    UPDATE deadline_frontier SET frontier = NEW.message_id WHERE id = 1;
END;
CREATE TRIGGER deadline_frontier_attempt_outcome AFTER UPDATE OF outcome, responded_at, registered_delivery ON attempt
WHEN NEW.message_id < (SELECT frontier FROM deadline_frontier WHERE id = 1)
BEGIN
    UPDATE deadline_frontier SET frontier = NEW.message_id WHERE id = 1;
END;
