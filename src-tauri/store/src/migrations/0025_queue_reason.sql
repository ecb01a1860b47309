-- Schema 25: the queue's last problem as a code with parameters, beside its English sentence.
--
-- `last_error` keeps the engine's sentence (for logs and the CSV export); `reason` holds the same
-- situation as JSON, `{"code": "...", "params": {...}}`, which the screens word in the operator's
-- language. Both are written by the same call. Rows written before this schema have no reason:
-- the screens show their `last_error` as it is.
ALTER TABLE queue ADD COLUMN reason TEXT;
