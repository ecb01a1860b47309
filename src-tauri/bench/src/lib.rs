//! The measuring side of `cargo xtask bench`: it drives the release binary as an integration and
//! an SMSC would (HTTP requests, a separate `smsdesk sandbox-smsc` process over TCP), reads what the
//! kernel says about the smsdesk process (`/proc/PID/io`, its CPU time, its memory), and runs the
//! baselines the figures are divided by (a bare SMPP client, raw SQLite inserts).
//!
//! Every figure is printed on standard output as one `figure KEY VALUE` line, which the xtask
//! collects over runs; progress and problems go to standard error.

pub mod check;
pub mod dispatch;
pub mod dlr;
pub mod figures;
pub mod http;
pub mod intake;
pub mod kannel;
pub mod load;
pub mod messages;
pub mod nodes;
pub mod procs;
pub mod smpp_in;
pub mod smpp_raw;
pub mod start;
