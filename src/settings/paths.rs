//! Where settings and debate's own files live.

use std::path::{Path, PathBuf};

/// The user's settings file: `$XDG_CONFIG_HOME/debate/settings.yaml` on Linux.
pub fn user_settings_path() -> Option<PathBuf> {
    directories::BaseDirs::new().map(|dirs| dirs.config_dir().join("debate").join("settings.yaml"))
}

/// A repository's own settings file; untrusted until the user trusts it.
pub fn repository_settings(repo_root: &Path) -> PathBuf {
    repo_root.join(".debate").join("settings.yaml")
}

/// Where debate keeps its own files: `$DEBATE_HOME`, else the user data directory.
pub fn data_dir() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("DEBATE_HOME").filter(|h| !h.is_empty()) {
        return Some(PathBuf::from(home));
    }
    directories::BaseDirs::new().map(|dirs| dirs.data_dir().join("debate"))
}
