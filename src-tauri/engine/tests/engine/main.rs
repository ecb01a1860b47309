//! The engine's integration tests, one test binary: each module was a binary of its own, and
//! each linked the whole engine again. (`data_dir_permissions` keeps a process of its own: the
//! process's umask is part of what it tests.)

mod common;

mod alerts;
mod configuration_page;
mod engine_sandbox;
mod one_engine_per_database;
mod personal_data;
mod pumping;
mod receipt_corpus;
mod retry_guard;
mod secrets_at_rest;
mod smpp_server;
mod smpp_server_limits;
mod tls;
