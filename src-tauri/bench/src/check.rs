//! What a run must leave behind, read with smsdesk's own export (`smsdesk export --csv`, which
//! reads the database file read-only) once the server stopped: exactly the messages that were
//! answered 201, each with the queue status and state expected, and at most one accepted submit.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use anyhow::{anyhow, bail, Context, Result};

use crate::procs::SandboxCounts;

/// What every message should show.
#[derive(Debug, Clone, Copy)]
pub struct Expect {
    pub status: &'static str,
    pub state: &'static str,
    /// Submits per message (1 once sent; 0 when sending was held off).
    pub attempts: u32,
}

/// Exports the data directory's messages and checks them against the ids answered 201.
pub fn export_matches(bin: &Path, data_dir: &Path, answered: &[i64], expect: Expect) -> Result<()> {
    let csv_path = data_dir.with_extension("export.csv");
    let out = Command::new(bin)
        .args(["export", "--csv", "--output"])
        .arg(&csv_path)
        .arg("--data-dir")
        .arg(data_dir)
        .env_remove("RUST_LOG")
        .output()
        .context("cannot run smsdesk export")?;
    if !out.status.success() {
        bail!("smsdesk export failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let problems = read_export(&csv_path, answered, expect)?;
    std::fs::remove_file(&csv_path).ok();
    if problems.is_empty() {
        Ok(())
    } else {
        bail!("the database does not hold what was answered: {}", problems.join("; "))
    }
}

/// The problems the exported rows show (the first few of each kind).
fn read_export(path: &Path, answered: &[i64], expect: Expect) -> Result<Vec<String>> {
    let mut reader = csv::Reader::from_path(path).with_context(|| format!("{}", path.display()))?;
    let headers = reader.headers()?.clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| anyhow!("the export has no {name} column"))
    };
    let (id, status, attempts, provider_ids, state) = (
        column("id")?,
        column("status")?,
        column("attempts")?,
        column("provider_message_ids")?,
        column("state")?,
    );
    let mut problems = Vec::new();
    let mut stored = BTreeSet::new();
    for row in reader.records() {
        let row = row?;
        let m: i64 = row[id].parse().context("a message id")?;
        if !stored.insert(m) {
            problems.push(format!("message {m} exported twice"));
        }
        let accepted_submits = row[provider_ids].split_whitespace().count() as u32;
        let wrong = row[status] != *expect.status
            || row[state] != *expect.state
            || row[attempts].parse::<u32>().ok() != Some(expect.attempts)
            || accepted_submits != expect.attempts;
        if wrong && problems.len() < 5 {
            problems.push(format!(
                "message {m}: status {}, state {}, {} attempts, accepted submits {:?} (expected {expect:?})",
                &row[status], &row[state], &row[attempts], &row[provider_ids]
            ));
        }
    }
    let answered_set: BTreeSet<i64> = answered.iter().copied().collect();
    if answered_set.len() != answered.len() {
        problems.push(format!(
            "{} ids answered more than once",
            answered.len() - answered_set.len()
        ));
    }
    if stored != answered_set {
        let extra = stored.difference(&answered_set).count();
        let missing = answered_set.difference(&stored).count();
        problems.push(format!(
            "{} messages stored, {} answered 201: {extra} stored but not answered, {missing} answered but not stored",
            stored.len(),
            answered_set.len()
        ));
    }
    Ok(problems)
}

/// The SMSC's side: every message submitted and accepted once, none twice.
pub fn sandbox_saw_each_once(counts: SandboxCounts, n: usize) -> Result<()> {
    let n = n as u64;
    if counts.submits != n || counts.accepted != n || counts.accepted_twice != 0 {
        bail!("the sandbox SMSC saw {counts:?} for {n} messages (each should be submitted and accepted once)");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SENT: Expect = Expect {
        status: "accepted",
        state: "delivered",
        attempts: 1,
    };

    /// An export holding `rows` (after the columns the check reads).
    fn export(rows: &[&str]) -> tempfile::NamedTempFile {
        let mut text = String::from("id,status,attempts,provider_message_ids,state\n");
        for r in rows {
            text.push_str(r);
            text.push('\n');
        }
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), text).unwrap();
        f
    }

    #[test]
    fn what_was_answered_stored_and_sent_once_passes() {
        let f = export(&["2,accepted,1,P2,delivered", "1,accepted,1,P1,delivered"]);
        assert_eq!(read_export(f.path(), &[1, 2], SENT).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn a_second_accepted_submit_a_lost_message_or_an_extra_one_is_named() {
        let f = export(&["1,accepted,2,P1 P9,delivered", "3,accepted,1,P3,delivered"]);
        let problems = read_export(f.path(), &[1, 2], SENT).unwrap();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("message 1"), "{problems:?}");
        assert!(
            problems[1].contains("1 stored but not answered, 1 answered but not stored"),
            "{problems:?}"
        );
    }

    #[test]
    fn the_sandbox_must_have_seen_each_message_once() {
        let once = SandboxCounts {
            submits: 3,
            accepted: 3,
            accepted_twice: 0,
        };
        assert!(sandbox_saw_each_once(once, 3).is_ok());
        assert!(sandbox_saw_each_once(
            SandboxCounts {
                accepted_twice: 1,
                ..once
            },
            3
        )
        .is_err());
        assert!(sandbox_saw_each_once(once, 4).is_err());
    }
}
