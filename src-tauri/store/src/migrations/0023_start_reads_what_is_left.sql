-- Schema 23: a start reads what is left to do, not every row it ever stored.
--
-- Three checks made at every start read rows in proportion to the history or the backlog, so a
-- start took as long as the database was big (1.9 s to health at a million messages when the
-- file was not in the page cache, most of it reading every receipt from the disk):
--
-- * The receipts stored but never applied (their effects failed, to be applied again at the next
--   start) were found by reading every receipt and looking for one without an outcome. They are
--   now listed as they happen, in `receipt_deferred`, in the transaction that stores the receipt;
--   a receipt taken off it has its outcome. The list starts with every receipt that has none.
--
-- * The projections computed by older rules were found by reading every projection's
--   `rules_version`, and the messages waiting for a route that no longer exists by reading every
--   waiting message's queue row. `start_check` records what each such check last ran under (the
--   rules version; the routes and connections in force): a start under the same has nothing to
--   find, since what is written meanwhile is written under what is in force, and skips it. Empty:
--   the next start runs each check once.
CREATE TABLE receipt_deferred (
    receipt_id  INTEGER PRIMARY KEY REFERENCES receipt (id),
    deferred_at INTEGER NOT NULL
);

INSERT INTO receipt_deferred (receipt_id, deferred_at)
SELECT r.id, r.received_at FROM receipt r
WHERE NOT EXISTS (SELECT 1 FROM receipt_outcome o WHERE o.receipt_id = r.id)
ORDER BY r.id;

CREATE TABLE start_check (
    name       TEXT PRIMARY KEY,
    under      TEXT    NOT NULL,
    checked_at INTEGER NOT NULL
) WITHOUT ROWID;
