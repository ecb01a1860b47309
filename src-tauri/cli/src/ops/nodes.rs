//! `smsdesk nodes`: the nodes that share the database, read while they run (a read-only look at
//! a SQLite file, one session on PostgreSQL).

use std::process::ExitCode;

use clap::Args;

use crate::{prepare, Cli, EXIT_CONFIG};
use smsdesk_engine::nodes::{NodeState, NodeView};

#[derive(Debug, Args)]
pub struct NodesArgs {
    /// Print JSON (as `GET /api/v1/nodes` answers) instead of a table
    #[arg(long)]
    pub json: bool,
}

pub fn nodes(cli: &Cli, args: NodesArgs) -> ExitCode {
    let (prepared, _log) = match prepare(cli) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let nodes = match prepared.nodes() {
        Ok(n) => n,
        Err(e) => {
            eprintln!("smsdesk nodes: {e}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&nodes).expect("nodes serialise"));
    } else if nodes.is_empty() {
        println!("No node has run on this database yet.");
    } else {
        print!("{}", table(&nodes));
    }
    ExitCode::SUCCESS
}

/// One line per node: its name, state, computer and process, the age of its heartbeat, where it
/// listens, and per connection the binds it runs, its share of the rate and the rate accepted.
fn table(nodes: &[NodeView]) -> String {
    let mut out = format!(
        "{:<20} {:<8} {:<24} {:>8} {:>10}  {:<28} {}\n",
        "NODE", "STATE", "HOST", "PID", "HEARTBEAT", "LISTENS", "RUNS"
    );
    for n in nodes {
        let state = match n.state {
            NodeState::Alive => "alive",
            NodeState::Stopped => "stopped",
            NodeState::Silent => "silent",
        };
        let runs: Vec<String> = n
            .runs
            .iter()
            .map(|r| match r.binds {
                0 => format!("{}: on another node", r.connection),
                _ => format!(
                    "{}: {}/{} bound, {:.0} tps, {:.1}/s accepted",
                    r.connection, r.bound, r.binds, r.tps, r.accepted_per_s
                ),
            })
            .collect();
        out.push_str(&format!(
            "{:<20} {:<8} {:<24} {:>8} {:>8} s  {:<28} {}\n",
            n.name,
            state,
            n.host,
            n.pid,
            n.silent_ms / 1000,
            n.http_url.as_deref().unwrap_or("-"),
            if runs.is_empty() {
                "-".to_owned()
            } else {
                runs.join("; ")
            }
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use smsdesk_engine::nodes::NodeRun;

    #[test]
    fn the_table_says_each_nodes_state_and_what_it_runs() {
        let node = |name: &str, state, runs| NodeView {
            name: name.into(),
            state,
            host: "db-a".into(),
            pid: 42,
            version: "1.0.0".into(),
            http_url: Some("http://10.0.0.5:8470".into()),
            started_at_ms: 0,
            silent_ms: 2_400,
            runs,
        };
        let run = |binds| NodeRun {
            connection: "acme".into(),
            binds,
            bound: binds,
            tps: 25.0,
            accepted_per_s: 12.34,
        };
        let t = table(&[
            node("a", NodeState::Alive, vec![run(2)]),
            node("b", NodeState::Alive, vec![run(0)]),
            node("c", NodeState::Silent, vec![]),
        ]);
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[0].starts_with("NODE"), "{t}");
        assert!(
            lines[1].contains("alive") && lines[1].contains("acme: 2/2 bound, 25 tps, 12.3/s accepted"),
            "{t}"
        );
        assert!(lines[2].contains("acme: on another node"), "{t}");
        assert!(lines[3].contains("silent") && lines[3].ends_with('-'), "{t}");
        assert!(
            lines[1].contains("2 s") && lines[1].contains("http://10.0.0.5:8470"),
            "{t}"
        );
    }
}
