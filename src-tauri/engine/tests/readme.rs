//! The README's configuration table must name every setting, so users can find each one.

use smsdesk_engine::config::{env_var, SECTIONS};

#[test]
fn the_readme_documents_every_setting_and_its_environment_variable() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let mut missing = Vec::new();
    for section in SECTIONS {
        for key in section.keys {
            let name = format!("`{}.{}`", section.name, key.name);
            let var = format!("`{}`", env_var(section.name, key.name));
            if !readme.contains(&name) || !readme.contains(&var) {
                missing.push(format!("{name} ({var})"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "README.md must document these settings: {}",
        missing.join(", ")
    );
}
