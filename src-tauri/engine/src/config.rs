//! The configuration file as the engine reads it: `smsdesk.toml` in the data directory, created on
//! first run with every setting documented (the settings themselves are `smsdesk_core::config`).

use std::path::Path;

pub use smsdesk_core::config::*;

/// Loads the config from `file`, creating it with every setting documented if it does not exist,
/// then applies the environment overrides from `env`.
pub fn load(file: &Path, env: impl IntoIterator<Item = (String, String)>) -> Result<Config, ConfigError> {
    if !file.exists() {
        write_template(file)?;
    }
    let text = std::fs::read_to_string(file).map_err(|source| ConfigError::Read {
        file: file.into(),
        source,
    })?;
    from_sources(file, &text, env)
}

fn write_template(file: &Path) -> Result<(), ConfigError> {
    use std::io::Write;
    let create = |source| ConfigError::Create {
        file: file.into(),
        source,
    };
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(create)?;
    }
    // create_new: never overwrite a file another process wrote in the meantime.
    match std::fs::OpenOptions::new().write(true).create_new(true).open(file) {
        Ok(mut f) => f
            .write_all(template().as_bytes())
            .and_then(|()| f.sync_all())
            .map_err(create),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(create(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_load_creates_the_documented_file_and_later_loads_keep_edits() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("sub").join(FILE_NAME);
        let c = load(&file, []).unwrap();
        assert_eq!(c, Config::default());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), template());
        std::fs::write(&file, "[http]\nport = 9000\n").unwrap();
        assert_eq!(load(&file, []).unwrap().http.port, 9000);
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "[http]\nport = 9000\n",
            "an existing file is never rewritten"
        );
    }
}
