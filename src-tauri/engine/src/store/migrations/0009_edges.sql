-- smsdesk schema, version 9: the evidence says what happened at the edges.
--
-- - A report read off an SMPP session records its position among the reports of that session
--   (`arrival_no`, from 1). Reports of one session are stored, and applied, in that order.
ALTER TABLE receipt ADD COLUMN arrival_no INTEGER;
