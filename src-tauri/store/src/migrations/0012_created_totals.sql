-- smsdesk schema, version 12: the totals of messages created are kept by the writer instead of by
-- triggers, and by minute and hour as well as by day.
--
-- Every message written fired three triggers: the count of all messages ('message'/'all' in
-- view_count), the count of the day it was created ('created' in activity_outcome), and a check
-- that the clock had not been set back, which read the latest creation time of every message
-- ('clock'/'backwards'). The writer now sums a transaction's messages and writes these just before
-- it commits (store/totals.rs), in the same transaction, so they stay exact; it reads the latest
-- creation time once per transaction.
--
-- New: activity_count's metric 'created', the messages created in each minute, hour and day (by
-- their creation time, buckets as in version 5). The dashboard's "created today" and "created in
-- the last 24 hours" add these up instead of counting every message of the day.
DROP TRIGGER view_count_message_insert;
DROP TRIGGER view_count_message_clock;
DROP TRIGGER activity_outcome_message;

-- Nothing deletes messages (their rows are immutable, and evidence); should one ever be deleted,
-- it leaves the totals of its creation time as it leaves the count of all messages (version 3).
CREATE TRIGGER activity_created_message_delete AFTER DELETE ON message
BEGIN
    UPDATE activity_count SET n = n - 1
    WHERE metric = 'created'
      AND ((grain = 60000 AND bucket = OLD.created_at - OLD.created_at % 60000)
        OR (grain = 3600000 AND bucket = OLD.created_at - OLD.created_at % 3600000)
        OR (grain = 86400000 AND bucket = OLD.created_at - OLD.created_at % 86400000));
    UPDATE activity_outcome SET n = n - 1
    WHERE day = OLD.created_at - OLD.created_at % 86400000 AND outcome = 'created';
END;

-- The messages written before this version, by minute, then the minutes by hour and the hours by
-- day.
INSERT INTO activity_count (grain, bucket, metric, n)
SELECT 60000, created_at - created_at % 60000, 'created', count(*) FROM message GROUP BY 2;
INSERT INTO activity_count (grain, bucket, metric, n)
SELECT 3600000, bucket - bucket % 3600000, 'created', sum(n) FROM activity_count
WHERE grain = 60000 AND metric = 'created' GROUP BY 2;
INSERT INTO activity_count (grain, bucket, metric, n)
SELECT 86400000, bucket - bucket % 86400000, 'created', sum(n) FROM activity_count
WHERE grain = 3600000 AND metric = 'created' GROUP BY 2;
