-- Who handed a message in, as they were named at that moment: the person who composed it or
-- imported the CSV file (the desktop window's operator, or the account signed in from a browser)
-- or the API key. The channel alone said how, not who. Rows written before stay NULL: they show
-- their channel as before. Adding a column does not touch the rows, so message_is_immutable holds.
ALTER TABLE message ADD COLUMN submitted_by TEXT;
