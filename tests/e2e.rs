//! End-to-end tests of the built `smsdesk` binary, one test binary: each module was a binary of
//! its own. (The desktop window's test, `window.rs`, keeps its own: it needs a display.)

mod support;

mod backup;
mod cli;
mod connections;
mod crash;
mod database_lock;
mod disk_full;
mod hardening;
mod log_lines;
mod personal_data;
mod postgres;
mod serve;
mod upgrade;
