//! The manual's configuration page must name every setting with its environment variable, so that
//! whoever configures smsdesk finds each one.

use smsdesk_engine::config::{env_var, SECTIONS};

/// The page, from the repository's root.
const PAGE: &str = "docs/admin/configuration.md";

#[test]
fn the_configuration_page_lists_every_setting_with_its_environment_variable() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
    let page = std::fs::read_to_string(format!("{path}{PAGE}")).unwrap_or_else(|e| panic!("{PAGE}: {e}"));
    let mut missing = Vec::new();
    for section in SECTIONS {
        for key in section.keys {
            let name = format!("`{}.{}`", section.name, key.name);
            let var = format!("`{}`", env_var(section.name, key.name));
            // One row of the page's tables names both: the setting and its variable.
            let row = format!("| {name} | {var} |");
            if !page.lines().any(|l| l.starts_with(&row)) {
                missing.push(format!("{name} ({var})"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "{PAGE} must list each setting in a row with its environment variable: {}",
        missing.join(", ")
    );
}
