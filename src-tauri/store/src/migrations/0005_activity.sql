-- smsdesk schema: running totals for the dashboard's charts (submits, receipts and receipt latency
-- over time; outcomes by day). A chart over 30 days at a million messages cannot scan the rows it
-- sums, so these tables are kept in step by triggers, in the same transaction as each change, at
-- exactly the bucket widths the charts use. Nothing here is evidence: every row can be rebuilt from
-- the tables of versions 1 and 2 (the statements at the end of this file do so).
--
-- Buckets are UTC: a bucket's start is its time rounded down to a multiple of its width
-- (`grain`, in ms: 60000 a minute, 3600000 an hour, 86400000 a day).
--
-- The triggers run on the dispatcher's and receipt ingestion's hot paths: a list of three or more
-- values is written as comparisons, not `IN (…)`, which would build a temporary b-tree each time.

-- The bucket widths, one row each: the triggers write a row per width. (Plain tables, here and
-- below, because a subquery in a trigger would be materialised on every write.)
CREATE TABLE activity_grain (grain INTEGER PRIMARY KEY);
INSERT INTO activity_grain (grain) VALUES (60000), (3600000), (86400000);

-- One less in the old outcome, one more in the new: the two rows a change of outcome writes.
CREATE TABLE activity_sign (delta INTEGER PRIMARY KEY);
INSERT INTO activity_sign (delta) VALUES (-1), (1);

-- Submit results and receipts per bucket. `metric`: 'accepted' (submit_sm_resp OK), 'refused'
-- (a temporary, throttled or permanent error), 'unknown' (no answer: timeout or link lost after
-- the write), each by the time the attempt was written; 'receipt' (every report received, repeats
-- included, mobile-originated messages not) by its receive time. An attempt still waiting for its
-- answer counts nowhere yet.
CREATE TABLE activity_count (
    grain  INTEGER NOT NULL,
    bucket INTEGER NOT NULL,
    metric TEXT    NOT NULL,
    n      INTEGER NOT NULL,
    PRIMARY KEY (grain, bucket, metric)
) WITHOUT ROWID;

-- Receipt latency: for each message whose first final receipt was applied, the time from its
-- accepted submit (the answer to its last accepted attempt) to that receipt's receive time, counted in
-- the bucket of the receipt. Latencies are kept to two significant digits (exact below 100 ms,
-- then 10 ms steps to 1 s, 100 ms steps to 10 s, 1 s steps to 100 s, …), so each bucket is a
-- small histogram and percentiles over it are exact at that precision.
CREATE TABLE activity_latency (
    grain      INTEGER NOT NULL,
    bucket     INTEGER NOT NULL,
    latency_ms INTEGER NOT NULL,
    n          INTEGER NOT NULL,
    PRIMARY KEY (grain, bucket, latency_ms)
) WITHOUT ROWID;

-- Messages by the UTC day they were created: 'created' (all of them) and how many of those stand
-- at each outcome now: 'delivered' (reported delivered), 'failed' (another final state reported:
-- undeliverable, rejected, deleted, unknown, skipped), 'expired' (reported expired), 'decided'
-- (by an operator on an exception), 'not_sent' (failed, cancelled or expired in our queue before
-- the SMSC took it), 'no_receipt' (no final receipt by the deadline). The rest are pending.
CREATE TABLE activity_outcome (
    day     INTEGER NOT NULL,
    outcome TEXT    NOT NULL,
    n       INTEGER NOT NULL,
    PRIMARY KEY (day, outcome)
) WITHOUT ROWID;

CREATE TRIGGER activity_attempt_insert AFTER INSERT ON attempt
WHEN NEW.outcome <> 'pending'
BEGIN
    INSERT INTO activity_count (grain, bucket, metric, n)
    SELECT g.grain, NEW.created_at - NEW.created_at % g.grain,
           CASE WHEN NEW.outcome = 'accepted' THEN 'accepted'
                WHEN (NEW.outcome = 'temporary' OR NEW.outcome = 'throttled' OR NEW.outcome = 'permanent') THEN 'refused'
                ELSE 'unknown' END,
           1
    FROM activity_grain g
    WHERE true
    ON CONFLICT (grain, bucket, metric) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER activity_attempt_outcome AFTER UPDATE OF outcome ON attempt
WHEN OLD.outcome IS NOT NEW.outcome
BEGIN
    INSERT INTO activity_count (grain, bucket, metric, n)
    SELECT g.grain, OLD.created_at - OLD.created_at % g.grain,
           CASE WHEN OLD.outcome = 'accepted' THEN 'accepted'
                WHEN (OLD.outcome = 'temporary' OR OLD.outcome = 'throttled' OR OLD.outcome = 'permanent') THEN 'refused'
                ELSE 'unknown' END,
           -1
    FROM activity_grain g
    WHERE OLD.outcome <> 'pending'
    ON CONFLICT (grain, bucket, metric) DO UPDATE SET n = n + excluded.n;
    INSERT INTO activity_count (grain, bucket, metric, n)
    SELECT g.grain, OLD.created_at - OLD.created_at % g.grain,
           CASE WHEN NEW.outcome = 'accepted' THEN 'accepted'
                WHEN (NEW.outcome = 'temporary' OR NEW.outcome = 'throttled' OR NEW.outcome = 'permanent') THEN 'refused'
                ELSE 'unknown' END,
           1
    FROM activity_grain g
    WHERE NEW.outcome <> 'pending'
    ON CONFLICT (grain, bucket, metric) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER activity_receipt AFTER INSERT ON receipt
WHEN NEW.kind <> 'mo'
BEGIN
    INSERT INTO activity_count (grain, bucket, metric, n)
    SELECT g.grain, NEW.received_at - NEW.received_at % g.grain, 'receipt', 1
    FROM activity_grain g
    WHERE true
    ON CONFLICT (grain, bucket, metric) DO UPDATE SET n = n + excluded.n;
END;

-- The first final receipt is applied when a projection takes the first_final rule (it never
-- leaves it for another receipt, so this counts each message once).
CREATE TRIGGER activity_latency_insert AFTER INSERT ON projection
WHEN NEW.rule = 'first_final'
BEGIN
    INSERT INTO activity_latency (grain, bucket, latency_ms, n)
    SELECT g.grain, l.at - l.at % g.grain,
           CASE WHEN l.ms < 100 THEN l.ms
                WHEN l.ms < 1000 THEN l.ms - l.ms % 10
                WHEN l.ms < 10000 THEN l.ms - l.ms % 100
                WHEN l.ms < 100000 THEN l.ms - l.ms % 1000
                WHEN l.ms < 1000000 THEN l.ms - l.ms % 10000
                WHEN l.ms < 10000000 THEN l.ms - l.ms % 100000
                WHEN l.ms < 100000000 THEN l.ms - l.ms % 1000000
                WHEN l.ms < 1000000000 THEN l.ms - l.ms % 10000000
                ELSE l.ms - l.ms % 100000000 END,
           1
    FROM activity_grain g,
         (SELECT rc.received_at AS at,
                 max(rc.received_at - coalesce(a.responded_at, a.sent_at, a.created_at), 0) AS ms
          FROM logical_event e
          JOIN receipt rc ON rc.id = e.first_receipt_id
          JOIN attempt a ON a.id = (SELECT max(id) FROM attempt
                                    WHERE message_id = NEW.message_id AND outcome = 'accepted')
          WHERE e.id = json_extract(NEW.supporting_json, '$[0]')) l
    WHERE true
    ON CONFLICT (grain, bucket, latency_ms) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER activity_latency_update AFTER UPDATE OF rule ON projection
WHEN NEW.rule = 'first_final' AND OLD.rule IN ('no_report', 'intermediate')
BEGIN
    INSERT INTO activity_latency (grain, bucket, latency_ms, n)
    SELECT g.grain, l.at - l.at % g.grain,
           CASE WHEN l.ms < 100 THEN l.ms
                WHEN l.ms < 1000 THEN l.ms - l.ms % 10
                WHEN l.ms < 10000 THEN l.ms - l.ms % 100
                WHEN l.ms < 100000 THEN l.ms - l.ms % 1000
                WHEN l.ms < 1000000 THEN l.ms - l.ms % 10000
                WHEN l.ms < 10000000 THEN l.ms - l.ms % 100000
                WHEN l.ms < 100000000 THEN l.ms - l.ms % 1000000
                WHEN l.ms < 1000000000 THEN l.ms - l.ms % 10000000
                ELSE l.ms - l.ms % 100000000 END,
           1
    FROM activity_grain g,
         (SELECT rc.received_at AS at,
                 max(rc.received_at - coalesce(a.responded_at, a.sent_at, a.created_at), 0) AS ms
          FROM logical_event e
          JOIN receipt rc ON rc.id = e.first_receipt_id
          JOIN attempt a ON a.id = (SELECT max(id) FROM attempt
                                    WHERE message_id = NEW.message_id AND outcome = 'accepted')
          WHERE e.id = json_extract(NEW.supporting_json, '$[0]')) l
    WHERE true
    ON CONFLICT (grain, bucket, latency_ms) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER activity_outcome_message AFTER INSERT ON message
BEGIN
    INSERT INTO activity_outcome (day, outcome, n)
    VALUES (NEW.created_at - NEW.created_at % 86400000, 'created', 1)
    ON CONFLICT (day, outcome) DO UPDATE SET n = n + 1;
END;

-- A message's outcome moves when its queue status enters or leaves failed/cancelled/expired, or
-- when its projection's rule, state or no-receipt flag changes: one less in the old outcome, one
-- more in the new ('pending' is not stored: it is what 'created' leaves over).
CREATE TRIGGER activity_outcome_queue_insert AFTER INSERT ON queue
WHEN (NEW.status = 'failed' OR NEW.status = 'cancelled' OR NEW.status = 'expired')
BEGIN
    INSERT INTO activity_outcome (day, outcome, n)
    SELECT s.day, CASE d.delta WHEN -1 THEN s.before ELSE s.after END, d.delta
    FROM (SELECT m.created_at - m.created_at % 86400000 AS day,
                 CASE WHEN p.rule = 'operator_decision' THEN 'decided'
                      WHEN p.rule = 'first_final' THEN
                          CASE p.state WHEN 'delivered' THEN 'delivered' WHEN 'expired' THEN 'expired' ELSE 'failed' END
                      WHEN p.flag_no_receipt = 1 THEN 'no_receipt'
                      ELSE 'pending' END AS before,
                 CASE WHEN p.rule = 'operator_decision' THEN 'decided'
                      WHEN p.rule = 'first_final' THEN
                          CASE p.state WHEN 'delivered' THEN 'delivered' WHEN 'expired' THEN 'expired' ELSE 'failed' END
                      ELSE 'not_sent' END AS after
          FROM message m LEFT JOIN projection p ON p.message_id = m.id
          WHERE m.id = NEW.message_id) s,
         activity_sign d
    WHERE s.before <> s.after AND CASE d.delta WHEN -1 THEN s.before ELSE s.after END <> 'pending'
    ON CONFLICT (day, outcome) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER activity_outcome_queue_update AFTER UPDATE OF status ON queue
WHEN (OLD.status = 'failed' OR OLD.status = 'cancelled' OR OLD.status = 'expired')
  <> (NEW.status = 'failed' OR NEW.status = 'cancelled' OR NEW.status = 'expired')
BEGIN
    INSERT INTO activity_outcome (day, outcome, n)
    SELECT s.day, CASE d.delta WHEN -1 THEN s.before ELSE s.after END, d.delta
    FROM (SELECT m.created_at - m.created_at % 86400000 AS day,
                 CASE WHEN p.rule = 'operator_decision' THEN 'decided'
                      WHEN p.rule = 'first_final' THEN
                          CASE p.state WHEN 'delivered' THEN 'delivered' WHEN 'expired' THEN 'expired' ELSE 'failed' END
                      WHEN (OLD.status = 'failed' OR OLD.status = 'cancelled' OR OLD.status = 'expired') THEN 'not_sent'
                      WHEN p.flag_no_receipt = 1 THEN 'no_receipt'
                      ELSE 'pending' END AS before,
                 CASE WHEN p.rule = 'operator_decision' THEN 'decided'
                      WHEN p.rule = 'first_final' THEN
                          CASE p.state WHEN 'delivered' THEN 'delivered' WHEN 'expired' THEN 'expired' ELSE 'failed' END
                      WHEN (NEW.status = 'failed' OR NEW.status = 'cancelled' OR NEW.status = 'expired') THEN 'not_sent'
                      WHEN p.flag_no_receipt = 1 THEN 'no_receipt'
                      ELSE 'pending' END AS after
          FROM message m LEFT JOIN projection p ON p.message_id = m.id
          WHERE m.id = NEW.message_id) s,
         activity_sign d
    WHERE s.before <> s.after AND CASE d.delta WHEN -1 THEN s.before ELSE s.after END <> 'pending'
    ON CONFLICT (day, outcome) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER activity_outcome_projection_insert AFTER INSERT ON projection
WHEN NEW.rule <> 'no_report' OR NEW.flag_no_receipt = 1
BEGIN
    INSERT INTO activity_outcome (day, outcome, n)
    SELECT s.day, CASE d.delta WHEN -1 THEN s.before ELSE s.after END, d.delta
    FROM (SELECT m.created_at - m.created_at % 86400000 AS day,
                 CASE WHEN (q.status = 'failed' OR q.status = 'cancelled' OR q.status = 'expired') THEN 'not_sent'
                      ELSE 'pending' END AS before,
                 CASE WHEN NEW.rule = 'operator_decision' THEN 'decided'
                      WHEN NEW.rule = 'first_final' THEN
                          CASE NEW.state WHEN 'delivered' THEN 'delivered' WHEN 'expired' THEN 'expired' ELSE 'failed' END
                      WHEN (q.status = 'failed' OR q.status = 'cancelled' OR q.status = 'expired') THEN 'not_sent'
                      WHEN NEW.flag_no_receipt = 1 THEN 'no_receipt'
                      ELSE 'pending' END AS after
          FROM message m LEFT JOIN queue q ON q.message_id = m.id
          WHERE m.id = NEW.message_id) s,
         activity_sign d
    WHERE s.before <> s.after AND CASE d.delta WHEN -1 THEN s.before ELSE s.after END <> 'pending'
    ON CONFLICT (day, outcome) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER activity_outcome_projection_update AFTER UPDATE OF state, rule, flag_no_receipt ON projection
WHEN OLD.rule IS NOT NEW.rule OR OLD.state IS NOT NEW.state OR OLD.flag_no_receipt IS NOT NEW.flag_no_receipt
BEGIN
    INSERT INTO activity_outcome (day, outcome, n)
    SELECT s.day, CASE d.delta WHEN -1 THEN s.before ELSE s.after END, d.delta
    FROM (SELECT m.created_at - m.created_at % 86400000 AS day,
                 CASE WHEN OLD.rule = 'operator_decision' THEN 'decided'
                      WHEN OLD.rule = 'first_final' THEN
                          CASE OLD.state WHEN 'delivered' THEN 'delivered' WHEN 'expired' THEN 'expired' ELSE 'failed' END
                      WHEN (q.status = 'failed' OR q.status = 'cancelled' OR q.status = 'expired') THEN 'not_sent'
                      WHEN OLD.flag_no_receipt = 1 THEN 'no_receipt'
                      ELSE 'pending' END AS before,
                 CASE WHEN NEW.rule = 'operator_decision' THEN 'decided'
                      WHEN NEW.rule = 'first_final' THEN
                          CASE NEW.state WHEN 'delivered' THEN 'delivered' WHEN 'expired' THEN 'expired' ELSE 'failed' END
                      WHEN (q.status = 'failed' OR q.status = 'cancelled' OR q.status = 'expired') THEN 'not_sent'
                      WHEN NEW.flag_no_receipt = 1 THEN 'no_receipt'
                      ELSE 'pending' END AS after
          FROM message m LEFT JOIN queue q ON q.message_id = m.id
          WHERE m.id = NEW.message_id) s,
         activity_sign d
    WHERE s.before <> s.after AND CASE d.delta WHEN -1 THEN s.before ELSE s.after END <> 'pending'
    ON CONFLICT (day, outcome) DO UPDATE SET n = n + excluded.n;
END;

-- The totals of the rows written before this version.
INSERT INTO activity_count (grain, bucket, metric, n)
SELECT g.grain, a.created_at - a.created_at % g.grain,
       CASE WHEN a.outcome = 'accepted' THEN 'accepted'
            WHEN (a.outcome = 'temporary' OR a.outcome = 'throttled' OR a.outcome = 'permanent') THEN 'refused'
            ELSE 'unknown' END AS metric,
       count(*)
FROM attempt a, activity_grain g
WHERE a.outcome <> 'pending'
GROUP BY 1, 2, 3;

INSERT INTO activity_count (grain, bucket, metric, n)
SELECT g.grain, r.received_at - r.received_at % g.grain, 'receipt', count(*)
FROM receipt r, activity_grain g
WHERE r.kind <> 'mo'
GROUP BY 1, 2;

INSERT INTO activity_latency (grain, bucket, latency_ms, n)
SELECT g.grain, l.at - l.at % g.grain,
       CASE WHEN l.ms < 100 THEN l.ms
            WHEN l.ms < 1000 THEN l.ms - l.ms % 10
            WHEN l.ms < 10000 THEN l.ms - l.ms % 100
            WHEN l.ms < 100000 THEN l.ms - l.ms % 1000
            WHEN l.ms < 1000000 THEN l.ms - l.ms % 10000
            WHEN l.ms < 10000000 THEN l.ms - l.ms % 100000
            WHEN l.ms < 100000000 THEN l.ms - l.ms % 1000000
            WHEN l.ms < 1000000000 THEN l.ms - l.ms % 10000000
            ELSE l.ms - l.ms % 100000000 END AS latency,
       count(*)
FROM activity_grain g,
     (SELECT rc.received_at AS at,
             max(rc.received_at - coalesce(a.responded_at, a.sent_at, a.created_at), 0) AS ms
      FROM projection p
      JOIN logical_event e ON e.id = json_extract(p.supporting_json, '$[0]')
      JOIN receipt rc ON rc.id = e.first_receipt_id
      JOIN (SELECT message_id, max(id) AS id FROM attempt WHERE outcome = 'accepted' GROUP BY message_id) last
        ON last.message_id = p.message_id
      JOIN attempt a ON a.id = last.id
      WHERE p.rule = 'first_final') l
GROUP BY 1, 2, 3;

INSERT INTO activity_outcome (day, outcome, n)
SELECT created_at - created_at % 86400000, 'created', count(*) FROM message GROUP BY 1;

INSERT INTO activity_outcome (day, outcome, n)
SELECT day, outcome, count(*)
FROM (SELECT m.created_at - m.created_at % 86400000 AS day,
             CASE WHEN p.rule = 'operator_decision' THEN 'decided'
                  WHEN p.rule = 'first_final' THEN
                      CASE p.state WHEN 'delivered' THEN 'delivered' WHEN 'expired' THEN 'expired' ELSE 'failed' END
                  WHEN (q.status = 'failed' OR q.status = 'cancelled' OR q.status = 'expired') THEN 'not_sent'
                  WHEN p.flag_no_receipt = 1 THEN 'no_receipt'
                  ELSE 'pending' END AS outcome
      FROM message m LEFT JOIN queue q ON q.message_id = m.id LEFT JOIN projection p ON p.message_id = m.id)
WHERE outcome <> 'pending'
GROUP BY 1, 2;
