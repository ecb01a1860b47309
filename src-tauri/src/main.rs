//! smsdesk: the desktop window, or one of the headless subcommands.
//!
//! This crate is a thin adapter: everything the product does lives in `smsdesk-engine`.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod alerts;
mod assets;
mod commands;
mod desktop;
mod events;
mod geometry;
mod inbox;
mod people;
mod privacy;
mod state;
mod templates;
mod tray;
mod window;

use std::process::ExitCode;

use clap::Parser;
use smsdesk_cli::Cli;

fn main() -> ExitCode {
    let mut cli = Cli::parse();
    let mut context = tauri::generate_context!();
    // One copy of the built UI serves the window and the browsers of the HTTP server.
    let ui = assets::share(&mut context);
    match cli.command.take() {
        Some(command) => smsdesk_cli::run(cli, command, Some(ui)),
        None => window::run(&cli, context, ui),
    }
}
