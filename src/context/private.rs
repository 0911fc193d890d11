//! What is never project context, by its name: files that may hold secrets (`.env*`,
//! keys, certificates, credential stores) and anything of git's own (`.git/`, where
//! `actions/checkout` keeps the token it fetched with). The one rule every door asks —
//! the repository walk, `--context`, MCP's `context`, a suite's context files.

use std::path::{Component, Path};

/// A file that may hold secrets, by its name: never opened.
pub fn secret(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.starts_with(".env")
        || lower.starts_with("id_")
        || [".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".asc", ".gpg", ".kdbx"]
            .iter()
            .any(|e| lower.ends_with(e))
        || [".netrc", ".npmrc", ".pypirc", ".pgpass", "credentials", "credentials.json", "secrets.yaml", "secrets.yml"]
            .contains(&lower.as_str())
        || [".git-credentials", ".htpasswd", "known_hosts", "authorized_keys"].contains(&lower.as_str())
}

/// Why `path` is never read as context, or `None` when it may be: its own name, or any
/// folder on its way named `.git` (git's config, hooks, objects and credentials are no
/// project's documents). Asked of the path as given and of the file it leads to, so a
/// link named `notes.txt` to `.env` is refused as `.env` is.
pub fn refused(path: &Path) -> Option<String> {
    let mut names = path.components().filter_map(|part| match part {
        Component::Normal(name) => Some(name.to_string_lossy()),
        _ => None,
    });
    let last = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    if names.any(|name| name.eq_ignore_ascii_case(".git")) {
        return Some(
            "it is inside `.git/`, git's own files (its config can hold a token), never project context".into(),
        );
    }
    secret(&last).then(|| {
        format!("`{last}` may hold secrets by its name (`.env*`, keys, certificates, credential files), and is never read as context")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_known_by_their_names() {
        for name in
            [".env", ".env.production", "id_rsa", "id_ed25519.pub", "server.pem", "tls.key", "cert.p12", ".npmrc"]
        {
            assert!(secret(name), "{name}");
        }
        for name in ["environment.rs", "keys.rs", "README.md", "identity.go"] {
            assert!(!secret(name), "{name}");
        }
    }

    #[test]
    fn git_folders_and_secret_names_are_refused_wherever_they_stand() {
        for path in [".env", "config/.env.local", ".git/config", "sub/.GIT/hooks/pre-commit", "/home/u/.ssh/id_ed25519"]
        {
            assert!(refused(Path::new(path)).is_some(), "{path}");
        }
        for path in ["README.md", "docs/.github/workflow.md", "src/git/config.rs", ".gitignore", "notes/env.md"] {
            assert!(refused(Path::new(path)).is_none(), "{path}");
        }
    }
}
