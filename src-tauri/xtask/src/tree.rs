//! The files of the repository the project commands read.

use std::path::{Path, PathBuf};

/// Every file under `dir` whose name ends in `.extension`, sorted, not looking inside folders
/// named in `skip`.
pub fn files_under(dir: &Path, extension: &str, skip: &[&str]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| format!("cannot list {}: {e}", d.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| format!("cannot list {}: {e}", d.display()))?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                if !skip.contains(&name) {
                    todo.push(path);
                }
            } else if path.extension().and_then(|e| e.to_str()) == Some(extension) {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}
