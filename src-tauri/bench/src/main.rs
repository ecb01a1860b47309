//! `smsdesk-bench`: one benchmark per invocation, its figures on standard output as
//! `figure KEY VALUE` lines. `cargo xtask bench` builds it and runs each one as many times as asked.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use smsdesk_bench::dispatch::{self, Dispatch};
use smsdesk_bench::intake::{self, IntakeRun};
use smsdesk_bench::kannel::{self, KannelRun};
use smsdesk_bench::load::Intake;
use smsdesk_bench::smpp_in::{self, SmppIn};
use smsdesk_bench::smpp_raw::{self, RawSmpp};
use smsdesk_bench::start::{self, StartRun};

#[derive(Debug, Parser)]
#[command(
    name = "smsdesk-bench",
    about = "Benchmarks of the smsdesk release binary (run by `cargo xtask bench`)"
)]
struct Cli {
    #[command(subcommand)]
    command: Bench,
}

#[derive(Debug, Args)]
struct Common {
    /// The smsdesk binary (a release build)
    #[arg(long, value_name = "FILE")]
    smsdesk: PathBuf,
    /// Where the runs' data directories go (each is removed once its checks passed)
    #[arg(long, value_name = "DIR")]
    work: PathBuf,
    /// Keep the run's directory even when its checks passed
    #[arg(long)]
    keep: bool,
}

#[derive(Debug, Args)]
struct NodesArgs {
    #[command(flatten)]
    common: Common,
    #[arg(short, long, default_value_t = 5_000)]
    n: usize,
    /// A superuser's address of the PostgreSQL server the runs make their databases on (in the
    /// environment: it holds a password)
    #[arg(long, env = "SMSDESK_BENCH_PG_URL", value_name = "URL", hide_env_values = true)]
    pg_url: String,
    #[arg(long, default_value_t = 16)]
    clients: usize,
    #[arg(long, default_value_t = 64)]
    window: u32,
}

impl From<NodesArgs> for smsdesk_bench::nodes::NodesRun {
    fn from(a: NodesArgs) -> Self {
        smsdesk_bench::nodes::NodesRun {
            smsdesk: a.common.smsdesk,
            work: a.common.work,
            keep: a.common.keep,
            n: a.n,
            pg_url: a.pg_url,
            clients: a.clients,
            window: a.window,
        }
    }
}

#[derive(Debug, Subcommand)]
enum Bench {
    /// N messages through `smsdesk serve` to `smsdesk sandbox-smsc` (its own process), until
    /// every receipt is applied
    Dispatch {
        #[command(flatten)]
        common: Common,
        /// `batch` (POST /api/v1/messages/batch) or `single` (POST /api/v1/messages)
        #[arg(long, value_parser = ["batch", "single"])]
        intake: String,
        #[arg(short, long, default_value_t = 20_000)]
        n: usize,
        /// Concurrent keep-alive clients
        #[arg(long, default_value_t = 16)]
        clients: usize,
        /// Messages per batch request
        #[arg(long, default_value_t = 500)]
        batch: usize,
        /// smpp.window: submits awaiting their answer at most
        #[arg(long, default_value_t = 64)]
        window: u32,
        /// The sandbox's delay between acceptance and receipt
        #[arg(long, default_value_t = 5)]
        receipt_delay_ms: u64,
    },
    /// N messages end to end on one node on SQLite, one node on PostgreSQL and two nodes on one
    /// PostgreSQL database, in that order (batch API; the messages split between the nodes)
    Nodes(NodesArgs),
    /// HTTP intake alone, one message per request, sending held off
    Intake {
        #[command(flatten)]
        common: Common,
        #[arg(short, long, default_value_t = 20_000)]
        n: usize,
        #[arg(long, default_value_t = 16)]
        clients: usize,
    },
    /// The bare SMPP client baseline: the same N messages to the same sandbox process
    SmppRaw {
        #[command(flatten)]
        common: Common,
        #[arg(short, long, default_value_t = 20_000)]
        n: usize,
        #[arg(long, default_value_t = 64)]
        window: usize,
        #[arg(long, default_value_t = 5)]
        receipt_delay_ms: u64,
    },
    /// N messages in through smsdesk's own SMPP server (a bare client bound as an account), out
    /// to `smsdesk sandbox-smsc`, until the client has every receipt
    SmppIn {
        #[command(flatten)]
        common: Common,
        #[arg(short, long, default_value_t = 20_000)]
        n: usize,
        #[arg(long, default_value_t = 64)]
        window: usize,
        #[arg(long, default_value_t = 5)]
        receipt_delay_ms: u64,
    },
    /// Kannel (bearerbox + smsbox) against the same sandbox SMSC: N messages one per request to
    /// its sendsms interface, until every delivery report reached the local dlr-url
    Kannel {
        #[command(flatten)]
        common: Common,
        #[arg(short, long, default_value_t = 20_000)]
        n: usize,
        #[arg(long, default_value_t = 16)]
        clients: usize,
        #[arg(long, default_value_t = 64)]
        window: u32,
        #[arg(long, default_value_t = 5)]
        receipt_delay_ms: u64,
        /// Intake alone: the SMSC a closed port, so Kannel queues what it takes
        #[arg(long)]
        held_off: bool,
    },
    /// Start, idle memory and stop of `smsdesk serve` on a copy of a database
    Start {
        #[command(flatten)]
        common: Common,
        /// The database to copy and start on
        #[arg(long, value_name = "FILE")]
        fixture: PathBuf,
        /// Seconds to stay idle before reading the memory
        #[arg(long, default_value_t = 5)]
        idle_secs: u64,
    },
}

async fn run(bench: Bench) -> anyhow::Result<()> {
    match bench {
        Bench::Nodes(a) => smsdesk_bench::nodes::run(&a.into()).await,
        Bench::Dispatch {
            common,
            intake,
            n,
            clients,
            batch,
            window,
            receipt_delay_ms,
        } => {
            let intake = if intake == "batch" {
                Intake::Batch(batch)
            } else {
                Intake::Single
            };
            dispatch::run(&Dispatch {
                smsdesk: common.smsdesk,
                work: common.work,
                keep: common.keep,
                intake,
                n,
                clients,
                window,
                receipt_delay_ms,
            })
            .await
        }
        Bench::Intake { common, n, clients } => {
            intake::run(&IntakeRun {
                smsdesk: common.smsdesk,
                work: common.work,
                keep: common.keep,
                n,
                clients,
            })
            .await
        }
        smpp @ (Bench::SmppRaw { .. } | Bench::SmppIn { .. }) => run_smpp(smpp).await,
        Bench::Kannel {
            common,
            n,
            clients,
            window,
            receipt_delay_ms,
            held_off,
        } => {
            kannel::run(&KannelRun {
                smsdesk: common.smsdesk,
                work: common.work,
                keep: common.keep,
                n,
                clients,
                window,
                receipt_delay_ms,
                held_off,
            })
            .await
        }
        Bench::Start {
            common,
            fixture,
            idle_secs,
        } => {
            start::run(&StartRun {
                smsdesk: common.smsdesk,
                work: common.work,
                fixture,
                idle: Duration::from_secs(idle_secs),
            })
            .await
        }
    }
}

/// The two SMPP clients' runs: to the sandbox alone, and in through smsdesk's SMPP server.
async fn run_smpp(bench: Bench) -> anyhow::Result<()> {
    match bench {
        Bench::SmppRaw {
            common,
            n,
            window,
            receipt_delay_ms,
        } => {
            smpp_raw::run(&RawSmpp {
                smsdesk: common.smsdesk,
                work: common.work,
                keep: common.keep,
                n,
                window,
                receipt_delay_ms,
            })
            .await
        }
        Bench::SmppIn {
            common,
            n,
            window,
            receipt_delay_ms,
        } => {
            smpp_in::run(&SmppIn {
                smsdesk: common.smsdesk,
                work: common.work,
                keep: common.keep,
                n,
                window,
                receipt_delay_ms,
            })
            .await
        }
        _ => unreachable!("run_smpp runs the SMPP benchmarks only"),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // One thread: the load generator takes as little of the machine as it can from the server.
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("smsdesk-bench: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli.command)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("smsdesk-bench: {e:#}");
            ExitCode::FAILURE
        }
    }
}
