//! Writes the man pages and shell completions of the `smsdesk` command into a folder, from the
//! same clap definitions the binary parses with (the Debian package carries them; `cargo xtask
//! bundle` runs this).
//!
//! Usage: `cargo run -p smsdesk-cli --example write_manuals -- OUT_DIR`, which writes
//! `OUT_DIR/man/smsdesk.1`, one `smsdesk-<subcommand>.1` per subcommand, and
//! `OUT_DIR/completions/{smsdesk.bash,_smsdesk,smsdesk.fish}`.

use std::path::PathBuf;

use clap::CommandFactory;
use clap_complete::Shell;

fn main() -> std::io::Result<()> {
    let out: PathBuf = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .ok_or_else(|| std::io::Error::other("usage: write_manuals OUT_DIR"))?;
    let command = smsdesk_cli::Cli::command();

    let man = out.join("man");
    std::fs::create_dir_all(&man)?;
    clap_mangen::generate_to(command.clone(), &man)?;

    let completions = out.join("completions");
    std::fs::create_dir_all(&completions)?;
    for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
        clap_complete::generate_to(shell, &mut command.clone(), "smsdesk", &completions)?;
    }
    println!("{}", out.display());
    Ok(())
}
