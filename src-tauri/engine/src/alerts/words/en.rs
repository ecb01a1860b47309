//! The alerts' words in English.

use super::Lexicon;
use crate::alerts::AlertRule;

pub(super) const EN: Lexicon = Lexicon {
    rule: |rule| match rule {
        AlertRule::LinkDown => [
            "Connection {subject} is down",
            "The SMPP connection “{subject}” has not been bound since {since}. Its last error: {error}.",
            "{waiting} messages are waiting in the queue; those due go out when it is back, or by another connection of their route.",
            "Check the provider's status and this server's network; the Dashboard shows the connection's last error, and Settings → Connections can test it.",
        ],
        AlertRule::AllLinksDown => [
            "No connection to the SMS provider",
            "None of the SMPP connections ({connections}) has been bound since {since}. The last error: {error}.",
            "Nothing is being sent: {waiting} messages are waiting in the queue, and one-time codes may expire before they go.",
            "Check this server's internet connection and the provider's status page; the Dashboard shows each connection's last error.",
        ],
        AlertRule::QueueStuck => [
            "Messages are waiting too long",
            "The oldest message due to be sent has waited {oldest_minutes} minutes.",
            "Nothing has gone out for two minutes; {waiting} messages are waiting in the queue.",
            "Look at the Dashboard: a connection down, drained or disabled, or a route without a working connection, keeps them waiting.",
        ],
        AlertRule::FailureRate => [
            "Many submits refused",
            "{percent} % of the last {submits} submits (over {window_minutes} minutes) were refused ({refused}) or got no answer ({unanswered}).",
            "Messages are retried or fail; the provider may be refusing a sender name, a destination, or the account's credit.",
            "Open Reports, by SMPP status, to see the refusal codes and the messages behind them.",
        ],
        AlertRule::ReceiptsSilent => [
            "No delivery receipts",
            "No receipt has arrived for {silent_minutes} minutes, though messages accepted since {since} asked for one.",
            "Delivery states stay pending; the messages will be flagged “no receipt” at their deadline.",
            "Check that the connection binds as a receiver (a transceiver), and the receipt settings of the provider's account.",
        ],
        AlertRule::OtpUnknown => [
            "One-time codes with an unknown outcome",
            "{codes} one-time codes were written to the provider and their answer never came.",
            "The person waiting for a code may not have it; smsdesk does not send it again by itself.",
            "Open the Exceptions screen and decide each one: send it again, or mark it.",
        ],
        AlertRule::OtpHeld => [
            "One-time codes held: an unusual surge",
            "{codes} one-time codes are held: codes to one country surged far above their usual number.",
            "Bots may be asking for codes to premium numbers (SMS pumping); the held codes are not sent.",
            "Open the Guardrails screen, then release the genuine codes or cancel them from the Exceptions screen.",
        ],
        AlertRule::OpenExceptions => [
            "Exceptions are piling up",
            "{open} exceptions are open (the limit is {over}).",
            "Messages whose outcome needs a person's decision stay undecided.",
            "Open the Exceptions screen and work through the oldest first.",
        ],
        AlertRule::DiskLow => [
            "The disk is almost full",
            "{free_mib} MiB are free on the disk that holds the database (the limit is {under_mib} MiB).",
            "When the reserve is reached, new messages are refused so that sending and receipts keep their room.",
            "Free space on this disk, or move the backups elsewhere (backup.dir).",
        ],
        AlertRule::WriterFailing => [
            "The database cannot be written",
            "Writing to the database fails: {error}.",
            "Nothing new can be stored: new messages are refused and receipts wait at the provider.",
            "Check the disk (room, errors) and smsdesk's log; restart smsdesk if it does not recover.",
        ],
        AlertRule::BackupLate => [
            "The daily backup is late",
            "Last backup: {last_backup}. Error of the last try: {error}.",
            "A lost disk would lose everything since the last backup.",
            "Check the backup folder (backup.dir): its disk and its permissions; `smsdesk backup` takes one at once.",
        ],
        AlertRule::WebhookFailing => [
            "The webhook of {subject} is failing",
            "Notifications to the webhook of the API key “{subject}” have failed since {since}; {waiting} are waiting. The last error: {error}.",
            "The website or CRM behind it does not learn what became of its messages.",
            "Check that its address answers with a 2xx status; the notifications are kept and tried again.",
        ],
        AlertRule::OptOutSpike => [
            "Many opt-outs",
            "{numbers} numbers opted out by reply in the last hour (the limit is {over}).",
            "A message may have upset its readers, or be reaching the wrong people.",
            "Read the latest replies in the Inbox, and pause the campaign if one is going out.",
        ],
    },
    fired: "ALERT",
    repeated: "Still going on",
    resolved: "Resolved",
    noticed: "Noticed at",
    colon: ": ",
    ended: "It ended at {at}, after {duration}.",
    affects: "What it affects",
    todo: "What to do",
    open: "Open",
    none: "none",
    never: "never",
    hours: "h",
    minutes: "min",
    test_subject: "Test alert",
    test_body: "This is a test alert sent from smsdesk at {at}. When you read it, alerts reach you on this channel.",
    summary_subject: "Summary of {day}",
    summary_lines: [
        "Messages handed in: {total} (one-time codes {otp}, transactional {transactional}, bulk {bulk}).",
        "Delivered: {delivered} ({delivered_percent} %). Failed: {failed}. Expired: {expired}. Cancelled: {cancelled}.",
        "Still waiting for a final receipt: {pending}. No receipt by the deadline: {no_receipt}. Outcome unknown: {unknown}.",
        "Exceptions: {opened} opened, {closed} closed. Opt-outs: {opt_outs}.",
    ],
    summary_failures: "Most frequent failures",
    summary_status: "SMPP status {status}, error code {code}: {n}",
    summary_alerts: "Alerts of the day",
};
