//! The nodes benchmark: end to end on one node on SQLite, one node on PostgreSQL and two nodes on
//! one PostgreSQL database, in the same run, on a private PostgreSQL started for it (as the tests'
//! is) and removed after.

use super::{bench_tool, Env, Figure};
use crate::postgres::Postgres;

/// A quarter of the run's messages (at least 1,000): the rates of the PostgreSQL runs are a few
/// hundred a second, and what is compared is the CPU a message costs.
pub(super) fn nodes(env: &Env) -> Result<Vec<Figure>, String> {
    let server = Postgres::start()?;
    let n = (env.sizes.messages / 4).max(1_000);
    let args = ["-n".into(), n.to_string(), "--pg-url".into(), server.url.clone()];
    bench_tool(env, "nodes", &args)
}
