//! Writes the TypeScript bindings generated from the Rust types into ui/src/bindings/, and the
//! manual's API reference generated from the OpenAPI description into docs/integration/.
//! Run through `cargo xtask bindings`.

use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    // `cargo run` says where the package is at run time; the path compiled in may be another
    // checkout's when several share one target directory.
    let manifest_dir =
        std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| env!("CARGO_MANIFEST_DIR").into(), PathBuf::from);
    let root = manifest_dir.join("../..");
    let dir = root.join(smsdesk_http::bindings::DIR);
    std::fs::create_dir_all(&dir)?;
    let files = smsdesk_http::bindings::files();
    for entry in std::fs::read_dir(&dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".ts") && !files.iter().any(|(n, _)| *n == name) {
            std::fs::remove_file(entry.path())?;
        }
    }
    for (name, text) in &files {
        std::fs::write(dir.join(name), text)?;
    }
    println!("wrote {} files to {}", files.len(), smsdesk_http::bindings::DIR);
    std::fs::write(
        root.join(smsdesk_http::reference::PATH),
        smsdesk_http::reference::markdown(),
    )?;
    println!("wrote {}", smsdesk_http::reference::PATH);
    Ok(())
}
