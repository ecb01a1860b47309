//! The nodes benchmark: end to end on one node on SQLite, one node on PostgreSQL and two nodes on
//! one PostgreSQL database, in the same run, on a private PostgreSQL started for it (as the tests'
//! is) and removed after.

use std::process::Command;

use super::{capture, outputs, Env, Figure};
use crate::postgres::Postgres;

/// A quarter of the run's messages (at least 1,000): the rates of the PostgreSQL runs are a few
/// hundred a second, and what is compared is the CPU a message costs.
pub(super) fn nodes(env: &Env) -> Result<Vec<Figure>, String> {
    let server = Postgres::start()?;
    let n = (env.sizes.messages / 4).max(1_000);
    // The server's address holds its password: in the tool's environment, never on a command
    // line that a failure prints.
    let mut c = Command::new(&env.bench_bin);
    c.args(["nodes", "-n", &n.to_string(), "--smsdesk"])
        .arg(&env.smsdesk)
        .arg("--work")
        .arg(&env.work)
        .args(env.keep.then_some("--keep"))
        .env("SMSDESK_BENCH_PG_URL", &server.url);
    let out = capture(c, &format!("smsdesk-bench nodes -n {n}"))?;
    Ok(outputs::figure_lines(&out))
}
