//! How git signs in a repository, read as git reads it (git-config(1), `gpg.*`,
//! `user.signingkey`, `commit.gpgsign`): whether commits are signed, in which format,
//! by which program, and with which key — for ssh, `user.signingkey` as a key file
//! (`~/` expanded, a relative path from the work tree's root) or a `key::` literal, else
//! the first key `gpg.ssh.defaultKeyCommand` prints. One reading for the commit's
//! signature and the record's.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::config::{GitConfig, expand_home};

/// The signature format git makes (`gpg.format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    OpenPgp,
    X509,
    Ssh,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::OpenPgp => "openpgp",
            Format::X509 => "x509",
            Format::Ssh => "ssh",
        }
    }

    fn default_program(self) -> &'static str {
        match self {
            Format::OpenPgp => "gpg",
            Format::X509 => "gpgsm",
            Format::Ssh => "ssh-keygen",
        }
    }
}

/// The ssh key git signs with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SshKey {
    /// A key file: a private key, or a public key with its private half beside it or in an agent.
    File(PathBuf),
    /// A public key's line (`ssh-ed25519 AAAA…`), from `key::…` or the default key command.
    Literal(String),
}

/// What git's configuration says about signing.
#[derive(Debug, Clone)]
pub struct Setup {
    /// `commit.gpgsign`: git signs every commit.
    pub sign_commits: bool,
    pub format: Format,
    /// `gpg.<format>.program` (`gpg.program` for OpenPGP), else the format's own.
    pub program: String,
    /// `user.signingkey`, as written.
    pub key: Option<String>,
    default_key_command: Option<String>,
}

impl Setup {
    /// The setup `config` gives; an error names a `gpg.format` git does not know.
    pub fn read(config: &GitConfig) -> Result<Setup, String> {
        let format = match config.text("gpg.format").map(|f| f.to_lowercase()).as_deref() {
            None | Some("openpgp") => Format::OpenPgp,
            Some("x509") => Format::X509,
            Some("ssh") => Format::Ssh,
            Some(other) => return Err(format!("gpg.format={other} is no format git signs with")),
        };
        let program = config
            .text(&format!("gpg.{}.program", format.name()))
            .or_else(|| (format == Format::OpenPgp).then(|| config.text("gpg.program")).flatten())
            .unwrap_or_else(|| format.default_program().to_string());
        Ok(Setup {
            sign_commits: config.bool("commit.gpgsign").unwrap_or(false),
            format,
            program,
            key: config.text("user.signingkey"),
            default_key_command: config.text("gpg.ssh.defaultKeyCommand"),
        })
    }

    /// Whether the program is the format's own (`ssh-keygen` for ssh), not one the user set.
    pub fn default_program(&self) -> bool {
        self.program == self.format.default_program()
    }

    /// The ssh key git would sign with in the work tree at `root`: `user.signingkey`,
    /// else the first line `gpg.ssh.defaultKeyCommand` prints when it is a key; `None`
    /// when neither gives one.
    pub fn ssh_key(&self, root: &Path) -> Result<Option<SshKey>, String> {
        if let Some(key) = &self.key {
            return Ok(Some(match literal(key) {
                Some(line) => SshKey::Literal(line.to_string()),
                None => {
                    let path = expand_home(key);
                    SshKey::File(if path.is_relative() { root.join(path) } else { path })
                }
            }));
        }
        let Some(command) = &self.default_key_command else { return Ok(None) };
        default_key(command, root).map(Some)
    }
}

/// The public key a `user.signingkey` value holds itself, as git tells one from a path:
/// `key::` and the key, or (git's older form) a value starting `ssh-`.
fn literal(key: &str) -> Option<&str> {
    key.strip_prefix("key::").or_else(|| key.starts_with("ssh-").then_some(key)).map(str::trim)
}

/// The key `gpg.ssh.defaultKeyCommand` gives, run as git runs it (its words split on
/// white space, no shell) in the work tree: the first line it prints, which must be a key.
fn default_key(command: &str, root: &Path) -> Result<SshKey, String> {
    let mut words = command.split_whitespace();
    let program = words.next().ok_or("gpg.ssh.defaultKeyCommand is empty")?;
    let output = Command::new(program)
        .args(words)
        .current_dir(root)
        .stdin(Stdio::null())
        .output()
        .map_err(|err| format!("gpg.ssh.defaultKeyCommand {command:?} does not run: {err}"))?;
    let printed = String::from_utf8_lossy(&output.stdout);
    let first = printed.lines().map(str::trim).find(|line| !line.is_empty()).unwrap_or_default();
    match (output.status.success(), literal(first)) {
        (true, Some(line)) => Ok(SshKey::Literal(line.to_string())),
        (true, None) => Err(format!("gpg.ssh.defaultKeyCommand {command:?} succeeded but printed no key")),
        (false, _) => {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let said = stderr.lines().rfind(|line| !line.trim().is_empty()).unwrap_or("").trim().to_string();
            Err(format!("gpg.ssh.defaultKeyCommand {command:?} failed: {said}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_told_from_a_path_as_git_tells_it() {
        assert_eq!(literal("key::ssh-ed25519 AAAA x"), Some("ssh-ed25519 AAAA x"));
        assert_eq!(literal("ssh-ed25519 AAAA"), Some("ssh-ed25519 AAAA"));
        assert_eq!(literal("~/.ssh/id_ed25519.pub"), None);
        assert_eq!(literal("ssh-keys/id"), Some("ssh-keys/id"), "git's own rule: `ssh-` starts a key");
    }

    #[test]
    fn the_default_key_command_gives_its_first_key_or_says_why_not() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            default_key("echo key::ssh-ed25519 AAAA c", dir.path()),
            Ok(SshKey::Literal("ssh-ed25519 AAAA c".into()))
        );
        let none = default_key("echo nothing", dir.path()).unwrap_err();
        assert!(none.contains("printed no key"), "{none}");
        let failed = default_key("false", dir.path()).unwrap_err();
        assert!(failed.contains("failed"), "{failed}");
        assert!(default_key("no-such-command-here", dir.path()).unwrap_err().contains("does not run"));
    }
}
