//! The inbox and the opt-out list, for the screens and the API: threads of replies beside what was
//! sent, read marks, and the list's entries added, removed, imported and exported by people, each
//! change audited under their name.

use crate::said::FieldCode;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Service, ServiceError};
use crate::access::Caller;
use crate::domain::MessageKind;
use crate::intake::{normalize_destination, FieldError};
use crate::optouts::{self, Added, Source};
use crate::store::tables::{inbox, opt_out::Reason};
use crate::views::{self, InboxCounts, InboxFilter, OptOutFilter, OptOutPage, ThreadPage, ThreadRequest, ThreadView};

/// Marks a thread's replies read: all of them, or those up to `up_to` (the newest one the reader saw).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MarkRead {
    pub thread: String,
    #[ts(type = "number | null")]
    #[serde(default)]
    pub up_to: Option<i64>,
}

/// A number to put on the opt-out list by hand.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewOptOut {
    /// The number, written any usual way ("+33 6 12 34 56 78", or national with the default region).
    pub phone: String,
    /// Why (kept with the entry and in the audit log).
    #[serde(default)]
    pub note: Option<String>,
    /// The kinds of message it stops; `inbox.opt_out_kinds` when not given.
    #[serde(default)]
    pub kinds: Option<Vec<MessageKind>>,
}

/// A number to take off the opt-out list, and why (required: the list is evidence).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RemoveOptOut {
    pub phone: String,
    pub note: String,
}

/// What adding a number came to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct OptOutAdded {
    pub entry: views::OptOutEntry,
    /// False when the number was on the list already (nothing changed).
    pub added: bool,
    /// Messages that waited for the number and are now held.
    #[ts(type = "number[]")]
    pub held_messages: Vec<i64>,
}

/// A CSV file of numbers to put on the list: one number per line in the first column (a header
/// line is skipped), an optional note in the second.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OptOutImport {
    pub csv: String,
    /// Only check the file and say what would happen; nothing is written.
    #[serde(default)]
    pub dry_run: bool,
}

/// What an import did (or, for a dry run, would do). A file with an invalid line is refused whole,
/// each such line named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct OptOutImported {
    pub added: u32,
    /// Numbers on the list already.
    pub already: u32,
    #[ts(type = "number[]")]
    pub held_messages: Vec<i64>,
    pub dry_run: bool,
}

/// The opt-out list as a CSV file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct OptOutCsv {
    pub file_name: String,
    pub csv: String,
    /// How many numbers it holds.
    pub numbers: u32,
}

/// A reply the sandbox's handset sends, for trying the inbox without a phone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SandboxReply {
    /// The handset's number, written any usual way.
    pub from: String,
    pub text: String,
}

/// The longest simulated reply, in characters (a long one arrives in parts, as a handset sends it).
pub const MAX_SANDBOX_REPLY_CHARS: usize = 1_000;

/// The most lines an import takes.
pub const MAX_IMPORT_LINES: usize = 100_000;

impl Service {
    /// Conversations with replies, the latest first. A search written as a number is read as
    /// the message list reads one ([`views::search_number`]), national numbers in the office's
    /// country; otherwise it is words of a reply.
    pub async fn list_threads(&self, mut f: InboxFilter) -> Result<ThreadPage, ServiceError> {
        f.number = match f.q.as_deref().filter(|q| views::looks_like_number(q)) {
            Some(q) => views::search_number(q, self.region().as_deref(), "q")?,
            None => None,
        };
        Ok(self.store.reader().read(move |c| views::list_threads(c, &f)).await?)
    }

    /// One conversation, replies beside the messages sent to the number: the thread of that
    /// name, or else of the number it reads as (`06 12 34 56 78` in the office's country). A
    /// national number without an office country is refused as `country_needed`.
    pub async fn thread(&self, req: ThreadRequest) -> Result<ThreadView, ServiceError> {
        let name = req.thread.clone();
        let not_found = || ServiceError::NotFound(format!("thread {name}"));
        let as_named = req.clone();
        if let Some(t) = self.store.reader().read(move |c| views::thread(c, &as_named)).await? {
            return Ok(t);
        }
        let number = match normalize_destination(&req.thread, self.region().as_deref()) {
            Ok(number) if number != req.thread => number,
            Err(mut e) if e.code == FieldCode::CountryNeeded => {
                e.field = "thread".into();
                return Err(ServiceError::Invalid(vec![e]));
            }
            _ => return Err(not_found()),
        };
        let req = ThreadRequest { thread: number, ..req };
        self.store
            .reader()
            .read(move |c| views::thread(c, &req))
            .await?
            .ok_or_else(not_found)
    }

    /// Replies not read yet.
    pub async fn inbox_counts(&self) -> Result<InboxCounts, ServiceError> {
        Ok(self.store.reader().read(views::inbox_counts).await?)
    }

    /// Marks a thread's replies read, by `caller`; answers the counts left.
    pub async fn mark_read(&self, caller: &Caller, m: MarkRead) -> Result<InboxCounts, ServiceError> {
        let by = caller.actor();
        let thread = m.thread.clone();
        let found = self
            .store
            .writer()
            .write(move |tx| -> Result<bool, ServiceError> {
                let known = inbox::thread_exists(&*tx, &m.thread)?;
                if known {
                    inbox::mark_read(tx, &m.thread, m.up_to, &by)?;
                }
                Ok(known)
            })
            .await?;
        if !found {
            return Err(ServiceError::NotFound(format!("thread {thread}")));
        }
        self.inbox_counts().await
    }

    /// The opt-out list, the latest entry first; a search is a number read as the message list
    /// reads one ([`views::search_number`]).
    pub async fn list_opt_outs(&self, mut f: OptOutFilter) -> Result<OptOutPage, ServiceError> {
        f.number = match f.q.as_deref() {
            Some(q) => views::search_number(q, self.region().as_deref(), "q")?,
            None => None,
        };
        Ok(self.store.reader().read(move |c| views::list_opt_outs(c, &f)).await?)
    }

    /// Puts a number on the list by hand, holding what waits for it; audited.
    pub async fn add_opt_out(&self, caller: &Caller, req: NewOptOut) -> Result<OptOutAdded, ServiceError> {
        let phone = self.read_phone("phone", &req.phone)?;
        let kinds = match req.kinds.filter(|k| !k.is_empty()) {
            Some(mut k) => {
                k.sort();
                k.dedup();
                k
            }
            None => self.policy().inbox.opt_out_kinds.clone(),
        };
        let note = req.note.map(|n| n.trim().to_owned()).filter(|n| !n.is_empty());
        let actor = caller.actor();
        let p = phone.clone();
        let added = self
            .store
            .writer()
            .write(move |tx| optouts::add(tx, &p, &kinds, &Source::by(&actor, Reason::Operator, note.as_deref())))
            .await?;
        let entry = self
            .store
            .reader()
            .read(move |c| views::current_entry(c, &phone))
            .await?
            .ok_or_else(|| ServiceError::NotFound("the entry just written".into()))?;
        Ok(match added {
            Added::New { held, .. } => OptOutAdded {
                entry,
                added: true,
                held_messages: held,
            },
            Added::Already { .. } => OptOutAdded {
                entry,
                added: false,
                held_messages: Vec::new(),
            },
        })
    }

    /// Takes a number off the list, with a note; audited. Messages held meanwhile stay held.
    pub async fn remove_opt_out(&self, caller: &Caller, req: RemoveOptOut) -> Result<(), ServiceError> {
        let phone = self.read_phone("phone", &req.phone)?;
        let note = req.note.trim().to_owned();
        if note.is_empty() {
            return Err(ServiceError::Invalid(vec![FieldError::new(
                "note",
                FieldCode::Required,
                "say why the number comes off the list: it asked to receive messages again, or was added by mistake",
            )]));
        }
        let actor = caller.actor();
        let p = phone.clone();
        let ended = self
            .store
            .writer()
            .write(move |tx| optouts::remove(tx, &p, &Source::by(&actor, Reason::Operator, Some(&note))))
            .await?;
        ended
            .map(|_| ())
            .ok_or_else(|| ServiceError::NotFound(format!("{phone} on the opt-out list")))
    }

    /// Puts the numbers of a CSV file on the list (all, or none when a line is invalid); audited
    /// one entry per number.
    pub async fn import_opt_outs(&self, caller: &Caller, req: OptOutImport) -> Result<OptOutImported, ServiceError> {
        let rows = self.read_import(&req.csv)?;
        let kinds = self.policy().inbox.opt_out_kinds.clone();
        let actor = caller.actor();
        let dry_run = req.dry_run;
        self.store
            .writer()
            .write(move |tx| -> Result<OptOutImported, ServiceError> {
                let mut out = OptOutImported {
                    added: 0,
                    already: 0,
                    held_messages: Vec::new(),
                    dry_run,
                };
                for (phone, note) in &rows {
                    if dry_run {
                        if crate::store::tables::opt_out::current(&*tx, phone)?.is_some() {
                            out.already += 1;
                        } else {
                            out.added += 1;
                            out.held_messages
                                .extend(crate::store::tables::opt_out::queued_to(&*tx, phone, &kinds)?);
                        }
                        continue;
                    }
                    match optouts::add(tx, phone, &kinds, &Source::by(&actor, Reason::Import, note.as_deref()))? {
                        Added::New { held, .. } => {
                            out.added += 1;
                            out.held_messages.extend(held);
                        }
                        Added::Already { .. } => out.already += 1,
                    }
                }
                Ok(out)
            })
            .await
    }

    /// The numbers on the list now, as CSV: phone, kinds, reason, note, reply, since, by.
    pub async fn export_opt_outs(&self) -> Result<OptOutCsv, ServiceError> {
        let (csv, numbers) = self
            .store
            .reader()
            .read(|c| -> Result<(String, u32), views::ViewError> {
                let mut out = OptOutWriter::new();
                let mut cursor = None;
                loop {
                    let page = views::list_opt_outs(
                        c,
                        &OptOutFilter {
                            cursor,
                            limit: Some(views::MAX_LIMIT),
                            ..OptOutFilter::default()
                        },
                    )?;
                    page.items.iter().for_each(|e| out.entry(e));
                    match page.next_cursor {
                        Some(c) => cursor = Some(c),
                        None => break,
                    }
                }
                Ok(out.finish())
            })
            .await?;
        let day = smsdesk_core::time::format_rfc3339(self.clock().now_ms());
        Ok(OptOutCsv {
            file_name: format!("smsdesk-opt-outs-{}.csv", &day[..10]),
            csv,
            numbers,
        })
    }

    /// Makes the sandbox's handset `from` reply with `text`: it arrives over SMPP as any message
    /// from a handset does. Only while the sandbox SMSC is the connection.
    pub fn sandbox_reply(&self, caller: &Caller, r: SandboxReply) -> Result<(), ServiceError> {
        let handsets = self.live().handsets.ok_or(ServiceError::NotSandbox)?;
        let from = self.read_phone("from", &r.from)?;
        let chars = r.text.chars().count();
        if r.text.trim().is_empty() || chars > MAX_SANDBOX_REPLY_CHARS {
            return Err(ServiceError::Invalid(vec![FieldError::new(
                "text",
                if chars == 0 || r.text.trim().is_empty() {
                    FieldCode::Required
                } else {
                    FieldCode::TooLong
                },
                format!("write the reply: 1 to {MAX_SANDBOX_REPLY_CHARS} characters"),
            )]));
        }
        let parts = handsets.reply(crate::sandbox::Mo {
            from: from.clone(),
            to: "smsdesk".into(),
            text: r.text,
            style: crate::sandbox::MoStyle::Plain,
        });
        // Not the number: logs keep no personal data (docs/admin/personal-data.md).
        tracing::info!(parts, by = %caller.actor(), "sandbox: a handset replies");
        Ok(())
    }

    /// A number as people write it, in E.164 (national numbers in the office's country).
    fn read_phone(&self, field: &str, raw: &str) -> Result<String, ServiceError> {
        normalize_destination(raw, self.region().as_deref()).map_err(|mut e| {
            e.field = field.into();
            ServiceError::Invalid(vec![e])
        })
    }

    /// The numbers (and notes) of an import file, read with the default region; every invalid
    /// line named.
    fn read_import(&self, csv: &str) -> Result<Vec<(String, Option<String>)>, ServiceError> {
        import_rows(csv, self.region().as_deref()).map_err(ServiceError::Invalid)
    }
}

/// The numbers of an import file, each once, with the note of its first line: one number per
/// line in the first column (commas, or semicolons when the first line has no comma; quoted cells
/// as CSV writes them), an optional note in the second, a first line without a digit in its first
/// cell taken as a header. Every invalid line is named as `lines[N]` (its first line, from 1).
fn import_rows(csv: &str, region: Option<&str>) -> Result<Vec<(String, Option<String>)>, Vec<FieldError>> {
    let first_line = csv.lines().next().unwrap_or("");
    let delimiter = if !first_line.contains(',') && first_line.contains(';') {
        b';'
    } else {
        b','
    };
    let mut reader = ::csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(csv.as_bytes());
    let (mut rows, mut seen, mut errors) = (Vec::new(), std::collections::HashSet::new(), Vec::new());
    for (i, record) in reader.records().enumerate() {
        if i >= MAX_IMPORT_LINES {
            return Err(vec![FieldError::new(
                "csv",
                FieldCode::TooMany,
                format!("an import takes at most {MAX_IMPORT_LINES} lines; this file has more"),
            )]);
        }
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                let line = e.position().map_or(i + 1, |p| line_at(csv, p.byte()));
                errors.push(FieldError::new(
                    &format!("lines[{line}]"),
                    FieldCode::Invalid,
                    e.to_string(),
                ));
                continue;
            }
        };
        let line = record.position().map_or(i + 1, |p| line_at(csv, p.byte()));
        let first = record.get(0).unwrap_or("").trim();
        if first.is_empty() || (line == 1 && !first.chars().any(|c| c.is_ascii_digit())) {
            continue;
        }
        match normalize_destination(first, region) {
            Ok(phone) => {
                let note = record
                    .get(1)
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .map(str::to_owned);
                if seen.insert(phone.clone()) {
                    rows.push((phone, note));
                }
            }
            Err(mut e) => {
                e.field = format!("lines[{line}]");
                errors.push(e);
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    if rows.is_empty() {
        return Err(vec![FieldError::new(
            "csv",
            FieldCode::Required,
            "the file holds no number: put one number per line in the first column",
        )]);
    }
    Ok(rows)
}

/// The line (from 1) of `text` that a record the CSV reader says starts at byte `at` is on. The
/// reader counts lines without the blank ones it skips, and starts a record at the blank lines
/// before it: those are skipped here too.
fn line_at(text: &str, at: u64) -> usize {
    let bytes = text.as_bytes();
    let mut at = usize::try_from(at).unwrap_or(usize::MAX).min(bytes.len());
    while matches!(bytes.get(at), Some(b'\n' | b'\r')) {
        at += 1;
    }
    bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1
}

/// The opt-out list as CSV, entry by entry: each cell made inert for spreadsheets as the message
/// export does, quoted where it needs to be.
struct OptOutWriter {
    out: ::csv::Writer<Vec<u8>>,
    numbers: u32,
}

impl OptOutWriter {
    fn new() -> OptOutWriter {
        let mut out = ::csv::Writer::from_writer(Vec::new());
        out.write_record(["phone", "kinds", "reason", "note", "reply", "since", "by"])
            .expect("writing into memory does not fail");
        OptOutWriter { out, numbers: 0 }
    }

    fn entry(&mut self, e: &views::OptOutEntry) {
        let kinds: Vec<&str> = e.kinds.iter().map(|k| k.as_str()).collect();
        let cells = [
            e.phone.clone(),
            kinds.join(" "),
            e.reason.clone(),
            e.note.clone().unwrap_or_default(),
            e.reply_text.clone().unwrap_or_default(),
            smsdesk_core::time::format_rfc3339(e.created_at_ms),
            e.created_by.clone(),
        ];
        self.out
            .write_record(cells.iter().map(|c| crate::views::inert_cell(c).into_owned()))
            .expect("writing into memory does not fail");
        self.numbers += 1;
    }

    /// The text, and how many numbers it holds.
    fn finish(self) -> (String, u32) {
        let bytes = self.out.into_inner().expect("writing into memory does not fail");
        (String::from_utf8(bytes).expect("the cells are text"), self.numbers)
    }
}

#[cfg(test)]
mod tests {
    use super::{import_rows, OptOutWriter};
    use crate::intake::FieldError;

    fn numbers(csv: &str) -> Vec<(String, Option<String>)> {
        import_rows(csv, Some("FR")).unwrap()
    }

    fn fields(errors: Vec<FieldError>) -> Vec<String> {
        errors.into_iter().map(|e| e.field).collect()
    }

    #[test]
    fn an_import_reads_commas_or_semicolons_quotes_a_header_and_each_number_once() {
        let note = |n: &str| Some(n.to_owned());
        assert_eq!(
            numbers("phone,note\n+33612345678,asked by phone\n"),
            vec![("+33612345678".to_owned(), note("asked by phone"))]
        );
        assert_eq!(
            numbers("0612345678;\"a; b\"\n06 12 34 56 78;again\n"),
            vec![("+33612345678".to_owned(), note("a; b"))],
            "the same number twice is one entry, with its first note"
        );
        assert_eq!(
            numbers("\"+33 6 12 34 56 79\",\"say \"\"stop\"\"\nby mail\"\n+33612345680\n"),
            vec![
                ("+33612345679".to_owned(), note("say \"stop\"\nby mail")),
                ("+33612345680".to_owned(), None)
            ],
            "a quoted note may hold quotes and a line break"
        );
    }

    #[test]
    fn an_import_names_every_bad_line_by_its_line_in_the_file() {
        let bad = import_rows("phone\n+33612345678\nnot a number\n\n12\n", Some("FR")).unwrap_err();
        assert_eq!(fields(bad), ["lines[3]", "lines[5]"]);
        let empty = import_rows("phone,note\n\n", Some("FR")).unwrap_err();
        assert_eq!(fields(empty), ["csv"]);
    }

    #[test]
    fn exported_cells_are_quoted_and_never_formulas() {
        let mut w = OptOutWriter::new();
        let entry = |phone: &str, note: &str| crate::views::OptOutEntry {
            id: 1,
            phone: phone.into(),
            kinds: vec![crate::domain::MessageKind::Bulk],
            reason: "operator".into(),
            note: Some(note.into()),
            inbox_message_id: None,
            reply_text: None,
            created_at_ms: 0,
            created_by: "Olga".into(),
            removed_at_ms: None,
            removed_by: None,
            removed_reason: None,
            removed_note: None,
            removed_inbox_message_id: None,
        };
        w.entry(&entry("+33612345678", "a, b"));
        w.entry(&entry("+33612345679", "=HYPERLINK(1)"));
        w.entry(&entry("+33612345680", "-x"));
        let (text, numbers) = w.finish();
        assert_eq!(numbers, 3);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "phone,kinds,reason,note,reply,since,by");
        assert_eq!(
            lines[1],
            "+33612345678,bulk,operator,\"a, b\",,1970-01-01T00:00:00Z,Olga"
        );
        assert!(lines[2].contains(",'=HYPERLINK(1),"), "{}", lines[2]);
        assert!(lines[3].contains(",'-x,"), "{}", lines[3]);
    }
}
