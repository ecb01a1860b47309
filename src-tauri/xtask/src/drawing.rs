//! The pictures `cargo xtask house --write` draws into the architecture page: the crate graph,
//! and the engine's modules, each between its two markers.

use std::collections::{BTreeMap, BTreeSet};
/// The page the pictures are drawn into.
pub(crate) const GRAPH_PAGE: &str = "docs/architecture.md";

/// The crate graph as a Mermaid diagram: workspace crates, and the `externals` (the external
/// crates the rules name).
pub(crate) fn mermaid(
    members: &[String],
    built_from: &BTreeMap<String, BTreeSet<String>>,
    externals: &[&str],
) -> String {
    let short = |n: &str| n.strip_prefix("smsdesk-").unwrap_or(n).replace('-', "_");
    let mut out = String::from("```mermaid\nflowchart BT\n");
    for m in members.iter().filter(|m| *m != "xtask") {
        out.push_str(&format!("  {}[\"{m}\"]\n", short(m)));
    }
    for e in externals {
        out.push_str(&format!("  {}([\"{e}\"])\n", short(e)));
    }
    for m in members.iter().filter(|m| *m != "xtask") {
        for d in built_from[m]
            .iter()
            .filter(|d| members.contains(d) || externals.contains(&d.as_str()))
        {
            out.push_str(&format!("  {} --> {}\n", short(m), short(d)));
        }
    }
    out.push_str("```\n");
    out
}

/// The engine's modules (its `sources`) as a Mermaid diagram, each arrow a use of one by the other (or by a module
/// inside it), the arrows that a longer way implies left out.
pub(crate) fn engine_modules(sources: &[crate::circles::Source]) -> String {
    let edges = crate::circles::without_implied(&crate::circles::edges_among_children(sources, &[]));
    let mut out = String::from("```mermaid\nflowchart BT\n");
    for (a, b) in &edges {
        out.push_str(&format!("  {a} --> {b}\n"));
    }
    out.push_str("```\n");
    out
}

/// The page with what stands between the two `markers` replaced by `drawing`.
pub(crate) fn between(page: &str, (start_marker, end_marker): (&str, &str), drawing: &str) -> Result<String, String> {
    let start = page
        .find(start_marker)
        .ok_or_else(|| format!("{GRAPH_PAGE} has no marker `{start_marker}`; add the two marker lines of house.rs"))?;
    let end = page[start..]
        .find(end_marker)
        .map(|i| start + i)
        .ok_or_else(|| format!("{GRAPH_PAGE} has no marker `{end_marker}` after `{start_marker}`"))?;
    Ok(format!("{}{start_marker}\n{drawing}{}", &page[..start], &page[end..]))
}
