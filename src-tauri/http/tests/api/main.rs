//! The HTTP API against a running server, one test binary: each module was a binary of its own,
//! and each linked the whole engine again.

mod support;

mod access;
mod connections;
mod edge;
mod guardrails;
mod hoarding;
mod http_api;
mod inbound_callbacks;
mod inbox;
mod intake_keys;
mod metrics;
mod numbers;
mod retry_advice;
mod settings_api;
mod sign_in;
mod storage_full;
mod templates;
