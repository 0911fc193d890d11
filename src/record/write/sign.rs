//! Signing the record's commit the way git does when `commit.gpgsign` is on: the
//! program and key git would use (`gpg.format`, `gpg.program` or
//! `gpg.<format>.program`, `user.signingkey`), the commit's text on its stdin, the
//! signature from its stdout. A commit git would sign is signed, or not made at all.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use git2::Repository;

use crate::record::{RecordError, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    OpenPgp,
    X509,
    Ssh,
}

/// How this repository's commits are signed.
#[derive(Debug, Clone)]
pub struct Signer {
    format: Format,
    program: String,
    key: String,
}

fn failed(message: impl Into<String>) -> RecordError {
    RecordError::Sign(message.into())
}

impl Signer {
    /// The signer git would use for a commit in `repo`, or `None` when git would not sign.
    pub fn for_repository(repo: &Repository, committer_email: Option<&str>) -> Result<Option<Signer>> {
        let config = repo.config()?;
        if !config.get_bool("commit.gpgsign").unwrap_or(false) {
            return Ok(None);
        }
        let text = |key: &str| config.get_string(key).ok().filter(|v| !v.trim().is_empty());
        let format = match text("gpg.format").as_deref() {
            None | Some("openpgp") => Format::OpenPgp,
            Some("x509") => Format::X509,
            Some("ssh") => Format::Ssh,
            Some(other) => {
                return Err(failed(format!(
                    "commit.gpgsign is on with gpg.format={other}, which debate cannot sign with"
                )));
            }
        };
        let (section, default_program) = match format {
            Format::OpenPgp => ("gpg.openpgp.program", "gpg"),
            Format::X509 => ("gpg.x509.program", "gpgsm"),
            Format::Ssh => ("gpg.ssh.program", "ssh-keygen"),
        };
        let program = text(section)
            .or_else(|| (format == Format::OpenPgp).then(|| text("gpg.program")).flatten())
            .unwrap_or_else(|| default_program.to_string());
        let key = match (text("user.signingkey"), format) {
            (Some(key), _) => key,
            (None, Format::Ssh) => {
                return Err(failed("commit.gpgsign is on with gpg.format=ssh, but user.signingkey names no key"));
            }
            (None, _) => committer_email.map(str::to_string).ok_or_else(|| {
                failed("commit.gpgsign is on, but neither user.signingkey nor user.email says which key signs")
            })?,
        };
        Ok(Some(Signer { format, program, key }))
    }

    /// Whether signing can work at all, before a debate spends anything: the program
    /// is there, and an ssh key file exists.
    pub fn check(&self) -> Result<()> {
        if find_program(&self.program).is_none() {
            return Err(failed(format!(
                "commit.gpgsign is on, but the signing program {:?} is not found",
                self.program
            )));
        }
        if self.format == Format::Ssh && !self.key.starts_with("key::") && !self.key.starts_with("ssh-") {
            let path = expand_home(&self.key);
            if !path.is_file() {
                return Err(failed(format!("the ssh signing key {} does not exist", path.display())));
            }
        }
        Ok(())
    }

    /// The signature of a commit's text.
    pub fn sign(&self, commit: &str) -> Result<String> {
        // A literal public key (`key::ssh-…` or `ssh-…`) is signed with by the agent,
        // from a file that holds it.
        let literal = self.key.strip_prefix("key::").or(self.key.starts_with("ssh-").then_some(self.key.as_str()));
        let held = match (self.format, literal) {
            (Format::Ssh, Some(public)) => Some(tempfile(public)?),
            _ => None,
        };
        let mut command = Command::new(&self.program);
        match self.format {
            Format::OpenPgp | Format::X509 => command.args(["--status-fd=2", "-bsau", &self.key]),
            Format::Ssh => {
                let key = held.as_ref().map_or_else(|| expand_home(&self.key), |f| f.path().to_path_buf());
                command.args(["-Y", "sign", "-n", "git", "-f"]).arg(key);
                if held.is_some() {
                    command.arg("-U");
                }
                &mut command
            }
        };
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|err| failed(format!("cannot run the signing program {:?}: {err}", self.program)))?;
        if let Some(mut stdin) = child.stdin.take() {
            // A signer that fails may exit before reading: its exit status and its own
            // words below say why, not the broken pipe this write would report.
            let _ = stdin.write_all(commit.as_bytes());
        }
        let output = child.wait_with_output().map_err(|err| failed(format!("cannot sign: {err}")))?;
        let signature = String::from_utf8_lossy(&output.stdout).into_owned();
        let status = String::from_utf8_lossy(&output.stderr);
        let created = match self.format {
            Format::Ssh => signature.contains("-----BEGIN SSH SIGNATURE-----"),
            _ => status.contains("[GNUPG:] SIG_CREATED "),
        };
        if !output.status.success() || !created {
            let said = status.lines().rfind(|l| !l.trim().is_empty() && !l.starts_with("[GNUPG:]")).unwrap_or("");
            return Err(failed(format!("{} could not sign the commit: {}", self.program, said.trim())));
        }
        Ok(signature)
    }
}

fn tempfile(content: &str) -> Result<tempfile::NamedTempFile> {
    let mut file =
        tempfile::NamedTempFile::new().map_err(|err| failed(format!("cannot hold the signing key: {err}")))?;
    file.write_all(content.as_bytes()).map_err(|err| failed(format!("cannot hold the signing key: {err}")))?;
    Ok(file)
}

/// `~/…` as git reads it in `user.signingkey`.
pub(crate) fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => Path::new(&home).join(rest),
        _ => PathBuf::from(path),
    }
}

/// A program by path, or in `PATH`.
fn find_program(program: &str) -> Option<PathBuf> {
    let path = Path::new(program);
    if path.components().count() > 1 {
        return path.is_file().then(|| path.to_path_buf());
    }
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(program)).find(|p| p.is_file())
}
