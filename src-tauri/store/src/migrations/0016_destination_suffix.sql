-- smsdesk schema, version 16: numbers found by their last digits.
--
-- The message list finds a number by its beginning with a range of message_destination (ordered by
-- number). A search by its end ("3456", or a national number written without its country code)
-- had no index to use and would have read every message. This index keeps each destination's last
-- 16 characters reversed (all of an E.164 number: at most 15 digits after its +), so that the end
-- of a number is the beginning of its key, a range of this index like a prefix's. It is made of
-- substr() and || only, so the database needs no function of smsdesk's to be read, written,
-- checked or copied by any SQLite. Destinations never change; a message written costs one more
-- index entry.
CREATE INDEX message_destination_suffix ON message (
    substr(destination, -1, 1) || substr(destination, -2, 1) || substr(destination, -3, 1) ||
    substr(destination, -4, 1) || substr(destination, -5, 1) || substr(destination, -6, 1) ||
    substr(destination, -7, 1) || substr(destination, -8, 1) || substr(destination, -9, 1) ||
    substr(destination, -10, 1) || substr(destination, -11, 1) || substr(destination, -12, 1) ||
    substr(destination, -13, 1) || substr(destination, -14, 1) || substr(destination, -15, 1) ||
    substr(destination, -16, 1)
);
