//! The inbox and the opt-out list, for the screens and the API: threads of replies beside what was
//! sent, read marks, and the list's entries added, removed, imported and exported by people, each
//! change audited under their name.

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
    /// Conversations with replies, the latest first.
    pub async fn list_threads(&self, f: InboxFilter) -> Result<ThreadPage, ServiceError> {
        Ok(self.store.reader().read(move |c| views::list_threads(c, &f)).await?)
    }

    /// One conversation, replies beside the messages sent to the number.
    pub async fn thread(&self, req: ThreadRequest) -> Result<ThreadView, ServiceError> {
        let name = req.thread.clone();
        self.store
            .reader()
            .read(move |c| views::thread(c, &req))
            .await?
            .ok_or_else(|| ServiceError::NotFound(format!("thread {name}")))
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

    /// The opt-out list, the latest entry first.
    pub async fn list_opt_outs(&self, f: OptOutFilter) -> Result<OptOutPage, ServiceError> {
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
                "required",
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
                let mut out = String::from("phone,kinds,reason,note,reply,since,by\n");
                let mut numbers = 0;
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
                    for e in &page.items {
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
                        let line: Vec<String> = cells.iter().map(|c| csv_cell(c)).collect();
                        out.push_str(&line.join(","));
                        out.push('\n');
                        numbers += 1;
                    }
                    match page.next_cursor {
                        Some(c) => cursor = Some(c),
                        None => break,
                    }
                }
                Ok((out, numbers))
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
                    "required"
                } else {
                    "too_long"
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
        tracing::info!(from = %from, parts, by = %caller.actor(), "sandbox: a handset replies");
        Ok(())
    }

    /// A number as people write it, in E.164 (national numbers in the default region).
    fn read_phone(&self, field: &str, raw: &str) -> Result<String, ServiceError> {
        let region = self.policy().inbox.region.clone();
        normalize_destination(raw, region.as_deref()).map_err(|mut e| {
            e.field = field.into();
            ServiceError::Invalid(vec![e])
        })
    }

    /// The numbers (and notes) of an import file; every invalid line named as `lines[N]` (from 1).
    fn read_import(&self, csv: &str) -> Result<Vec<(String, Option<String>)>, ServiceError> {
        let mut rows = Vec::new();
        let mut errors = Vec::new();
        let lines: Vec<&str> = csv.lines().collect();
        if lines.len() > MAX_IMPORT_LINES {
            return Err(ServiceError::Invalid(vec![FieldError::new(
                "csv",
                "too_many",
                format!(
                    "an import takes at most {MAX_IMPORT_LINES} lines; this file has {}",
                    lines.len()
                ),
            )]));
        }
        for (i, line) in lines.iter().enumerate() {
            let cells = split_csv_line(line);
            let first = cells.first().map(|c| c.trim()).unwrap_or("");
            if first.is_empty() {
                continue;
            }
            // A header: a first line whose first cell has no digit.
            if i == 0 && !first.chars().any(|c| c.is_ascii_digit()) {
                continue;
            }
            match self.read_phone(&format!("lines[{}]", i + 1), first) {
                Ok(phone) => {
                    let note = cells.get(1).map(|n| n.trim().to_owned()).filter(|n| !n.is_empty());
                    if !rows.iter().any(|(p, _)| *p == phone) {
                        rows.push((phone, note));
                    }
                }
                Err(ServiceError::Invalid(es)) => errors.extend(es),
                Err(e) => return Err(e),
            }
        }
        if !errors.is_empty() {
            return Err(ServiceError::Invalid(errors));
        }
        if rows.is_empty() {
            return Err(ServiceError::Invalid(vec![FieldError::new(
                "csv",
                "required",
                "the file holds no number: put one number per line in the first column",
            )]));
        }
        Ok(rows)
    }
}

/// The cells of one CSV line (commas or semicolons; double quotes around a cell, "" inside one).
fn split_csv_line(line: &str) -> Vec<String> {
    let sep = if !line.contains(',') && line.contains(';') {
        ';'
    } else {
        ','
    };
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            c if c == sep && !quoted => cells.push(std::mem::take(&mut cell)),
            c => cell.push(c),
        }
    }
    cells.push(cell);
    cells
}

/// A CSV cell: made inert for spreadsheets as the message export does, and quoted when it needs to be.
fn csv_cell(s: &str) -> String {
    let s = crate::views::inert_cell(s);
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::{csv_cell, split_csv_line};

    #[test]
    fn csv_lines_split_on_commas_or_semicolons_with_quotes() {
        assert_eq!(
            split_csv_line("+33612345678,asked by phone"),
            vec!["+33612345678", "asked by phone"]
        );
        assert_eq!(split_csv_line("0612345678;\"a; b\""), vec!["0612345678", "a; b"]);
        assert_eq!(
            split_csv_line("\"+33 6 12\",\"say \"\"stop\"\"\""),
            vec!["+33 6 12", "say \"stop\""]
        );
    }

    #[test]
    fn exported_cells_are_quoted_and_never_formulas() {
        assert_eq!(csv_cell("+33612345678"), "+33612345678");
        assert_eq!(csv_cell("a, b"), "\"a, b\"");
        assert_eq!(csv_cell("=HYPERLINK(1)"), "'=HYPERLINK(1)");
        assert_eq!(csv_cell("-x"), "'-x");
        assert_eq!(csv_cell("@x"), "'@x");
    }
}
