//! git's configuration read the way git reads it (git-config(1), "FILES" and
//! "ENVIRONMENT"): the system file (`GIT_CONFIG_SYSTEM`, none with
//! `GIT_CONFIG_NOSYSTEM`), the user's (`GIT_CONFIG_GLOBAL`, else `~/.gitconfig` and the
//! XDG file), the repository's and its worktree's, each with its `include` and
//! `includeIf` files, and over them all the `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n` pairs.
//! Every value debate takes from git's configuration is read here.

use std::path::{Path, PathBuf};

use git2::{Config, ConfigLevel, Repository, RepositoryOpenFlags};

/// The repository at `path` (its work tree or its git directory) opened as git opens
/// it: its configuration from the files `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM` and
/// `GIT_CONFIG_NOSYSTEM` say (the ownership check's `safe.directory` too), its index and
/// objects where `GIT_INDEX_FILE` and `GIT_OBJECT_DIRECTORY` put them.
pub fn open_as_git(path: &Path) -> Result<Repository, git2::Error> {
    Repository::open_ext(path, RepositoryOpenFlags::FROM_ENV | RepositoryOpenFlags::NO_SEARCH, None::<&str>)
}

/// The files git would read, most important first, and the environment's pairs over them.
pub struct GitConfig {
    /// One level each (the worktree's, the repository's, the user's, the system's).
    levels: Vec<Config>,
    /// `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, keys in git's canonical case, in order.
    pairs: Vec<(String, String)>,
}

/// The levels git reads, most important first.
const LEVELS: [ConfigLevel; 6] = [
    ConfigLevel::Worktree,
    ConfigLevel::Local,
    ConfigLevel::Global,
    ConfigLevel::XDG,
    ConfigLevel::System,
    ConfigLevel::ProgramData,
];

impl GitConfig {
    /// The configuration of the repository at `root` (a work tree or a git directory),
    /// or, outside any repository, the user's and the system's.
    pub fn at(root: &Path) -> GitConfig {
        match open_as_git(root) {
            Ok(repo) => GitConfig::from_repository(&repo),
            Err(_) => GitConfig::user(),
        }
    }

    /// The configuration of `repo` as git reads it: opened again the way git opens it
    /// (libgit2 reads the `GIT_CONFIG_*` files only for a repository opened so).
    pub fn of(repo: &Repository) -> GitConfig {
        match open_as_git(repo.path()) {
            Ok(again) => GitConfig::from_repository(&again),
            Err(_) => GitConfig::from_repository(repo),
        }
    }

    fn from_repository(repo: &Repository) -> GitConfig {
        match repo.config() {
            Ok(config) => GitConfig::from_levels(&config),
            Err(_) => GitConfig::user(),
        }
    }

    /// The user's and the system's configuration, as git reads it outside a repository.
    pub fn user() -> GitConfig {
        let mut config = match Config::new() {
            Ok(config) => config,
            Err(_) => return GitConfig { levels: Vec::new(), pairs: pairs() },
        };
        let files = [
            (ConfigLevel::System, system_file()),
            (ConfigLevel::XDG, Config::find_xdg().ok()),
            (ConfigLevel::Global, global_file()),
        ];
        for (level, file) in files {
            if let Some(file) = file.filter(|file| file.is_file()) {
                // A file git cannot read either is left out, as git would fail on it alone.
                let _ = config.add_file(&file, level, false);
            }
        }
        GitConfig::from_levels(&config)
    }

    fn from_levels(config: &Config) -> GitConfig {
        // `GIT_CONFIG_GLOBAL` stands for both of the user's files: git then reads no XDG
        // file, where libgit2 still would.
        let global_set = std::env::var_os("GIT_CONFIG_GLOBAL").is_some();
        let levels = LEVELS
            .into_iter()
            .filter(|level| !(global_set && *level == ConfigLevel::XDG))
            .filter_map(|level| config.open_level(level).ok())
            .collect();
        GitConfig { levels, pairs: pairs() }
    }

    /// The value of `key` (`section.name`, `section.sub.name`): the environment's last
    /// pair for it, else the most important file's last value.
    pub fn string(&self, key: &str) -> Option<String> {
        let wanted = canonical_key(key);
        if let Some((_, value)) = self.pairs.iter().rev().find(|(name, _)| *name == wanted) {
            return Some(value.clone());
        }
        self.levels.iter().find_map(|level| level.get_string(key).ok())
    }

    /// The value of `key`, trimmed, when it is not empty.
    pub fn text(&self, key: &str) -> Option<String> {
        self.string(key).map(|value| value.trim().to_string()).filter(|value| !value.is_empty())
    }

    /// `key` as git reads a boolean (`true`, `yes`, `on`, `1`, a key with no value…);
    /// `None` when it is not set or is no boolean.
    pub fn bool(&self, key: &str) -> Option<bool> {
        let wanted = canonical_key(key);
        if let Some((_, value)) = self.pairs.iter().rev().find(|(name, _)| *name == wanted) {
            return Config::parse_bool(value.as_str()).ok();
        }
        self.levels.iter().find_map(|level| match level.get_entry(key) {
            Ok(entry) if entry.has_value() => level.get_bool(key).ok(),
            Ok(_) => Some(true),
            Err(_) => None,
        })
    }

    /// `key` as a path, `~/` taken as the home directory, as git's `interpolate_path`.
    pub fn path(&self, key: &str) -> Option<PathBuf> {
        self.text(key).map(|value| expand_home(&value))
    }
}

/// `~/…` (and `~` alone) as git reads it in a path setting.
pub fn expand_home(path: &str) -> PathBuf {
    let home = || std::env::var_os("HOME").map(PathBuf::from);
    match path.strip_prefix('~') {
        Some("") => home().unwrap_or_else(|| PathBuf::from(path)),
        Some(rest) if rest.starts_with('/') => match home() {
            Some(home) => home.join(&rest[1..]),
            None => PathBuf::from(path),
        },
        _ => PathBuf::from(path),
    }
}

/// The system file git reads: none with `GIT_CONFIG_NOSYSTEM`, else `GIT_CONFIG_SYSTEM`,
/// else the usual one.
fn system_file() -> Option<PathBuf> {
    if std::env::var("GIT_CONFIG_NOSYSTEM").is_ok_and(|value| Config::parse_bool(value.as_str()).unwrap_or(false)) {
        return None;
    }
    match std::env::var_os("GIT_CONFIG_SYSTEM") {
        Some(file) => Some(PathBuf::from(file)),
        None => Config::find_system().ok(),
    }
}

/// The user's file git reads: `GIT_CONFIG_GLOBAL`, else `~/.gitconfig`.
fn global_file() -> Option<PathBuf> {
    match std::env::var_os("GIT_CONFIG_GLOBAL") {
        Some(file) => Some(PathBuf::from(file)),
        None => Config::find_global().ok(),
    }
}

/// The pairs `GIT_CONFIG_COUNT` gives (git's `-c` for a whole environment). A pair with
/// no key is skipped; git refuses the command then, and so does nothing here depend on it.
fn pairs() -> Vec<(String, String)> {
    let Some(count) = std::env::var("GIT_CONFIG_COUNT").ok().and_then(|n| n.trim().parse::<usize>().ok()) else {
        return Vec::new();
    };
    (0..count.min(1_000))
        .filter_map(|n| {
            let key = std::env::var(format!("GIT_CONFIG_KEY_{n}")).ok()?;
            let value = std::env::var(format!("GIT_CONFIG_VALUE_{n}")).unwrap_or_default();
            Some((canonical_key(&key), value))
        })
        .collect()
}

/// A key as git compares it: its section and its name in any case, a subsection as it is.
fn canonical_key(key: &str) -> String {
    let key = key.trim();
    match (key.find('.'), key.rfind('.')) {
        (Some(first), Some(last)) => {
            format!("{}{}{}", key[..first].to_lowercase(), &key[first..last], key[last..].to_lowercase())
        }
        _ => key.to_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_compare_as_git_compares_them() {
        assert_eq!(canonical_key("User.Email"), "user.email");
        assert_eq!(canonical_key("includeIf.gitdir:~/Work/.path"), "includeif.gitdir:~/Work/.path");
        assert_eq!(canonical_key("GPG.SSH.Program"), "gpg.SSH.program", "a subsection keeps its case");
    }

    #[test]
    fn a_home_path_is_expanded_as_git_expands_it() {
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
        assert_eq!(expand_home("~/.ssh/id"), home.join(".ssh/id"));
        assert_eq!(expand_home("/etc/key"), PathBuf::from("/etc/key"));
        assert_eq!(expand_home("~other/key"), PathBuf::from("~other/key"));
    }
}
