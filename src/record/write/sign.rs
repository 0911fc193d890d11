//! Signing the record's commit the way git does when `commit.gpgsign` is on: the
//! program and key git would use (`repo::signing`, one reading with the record's own
//! signature), the commit's text signed as git signs it — `ssh-keygen -Y sign -n git`
//! or `gpg.ssh.program` for ssh (`attest::program`), `gpg --status-fd=2 -bsau KEY` for
//! OpenPGP and X.509. A commit git would sign is signed, or not made at all; a key that
//! needs unlocking is named before anything is written, never asked for.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use git2::Repository;

use crate::attest::{AttestError, Program, ProgramKey, Signer as KeySigner};
use crate::record::{RecordError, Result};
use crate::repo::GitConfig;
use crate::repo::signing::{Format, Setup, SshKey};

/// How this repository's commits are signed.
#[derive(Debug, Clone)]
pub struct Signer {
    program: String,
    key: Key,
    /// A key file `ssh-keygen` itself would read, to say before signing that it is locked.
    default_program: bool,
}

#[derive(Debug, Clone)]
enum Key {
    Ssh(SshKey),
    /// OpenPGP's or X.509's key id (or the committer's address).
    Id(String),
}

fn failed(message: impl Into<String>) -> RecordError {
    RecordError::Sign(message.into())
}

impl Signer {
    /// The signer git would use for a commit in `repo`, or `None` when git would not sign.
    pub fn for_repository(repo: &Repository, committer_email: Option<&str>) -> Result<Option<Signer>> {
        let setup =
            Setup::read(&GitConfig::of(repo)).map_err(|why| failed(format!("commit.gpgsign is on, but {why}")))?;
        if !setup.sign_commits {
            return Ok(None);
        }
        let root = repo.workdir().unwrap_or(repo.path());
        let key = match setup.format {
            Format::Ssh => {
                match setup.ssh_key(root).map_err(|why| failed(format!("commit.gpgsign is on, but {why}")))? {
                    Some(key) => Key::Ssh(key),
                    None => {
                        return Err(failed(
                            "commit.gpgsign is on with gpg.format=ssh, but neither user.signingkey nor gpg.ssh.defaultKeyCommand names a key",
                        ));
                    }
                }
            }
            _ => match setup.key.clone().or_else(|| committer_email.map(str::to_string)) {
                Some(id) => Key::Id(id),
                None => {
                    return Err(failed(
                        "commit.gpgsign is on, but neither user.signingkey nor user.email says which key signs",
                    ));
                }
            },
        };
        Ok(Some(Signer { default_program: setup.default_program(), program: setup.program, key }))
    }

    /// Whether signing can work at all, before a debate spends anything: the program
    /// is there, an ssh key file exists, and `ssh-keygen` would not have to ask for its
    /// passphrase.
    pub fn check(&self) -> Result<()> {
        if crate::attest::program::find(&self.program).is_none() {
            return Err(failed(format!(
                "commit.gpgsign is on, but the signing program {:?} is not found",
                self.program
            )));
        }
        if let Key::Ssh(SshKey::File(path)) = &self.key {
            if !path.is_file() {
                return Err(failed(format!("the ssh signing key {} does not exist", path.display())));
            }
            if self.default_program {
                locked(path)?;
            }
        }
        Ok(())
    }

    /// The signature of a commit's text.
    pub fn sign(&self, commit: &str) -> Result<String> {
        match &self.key {
            Key::Ssh(key) => {
                if let (SshKey::File(path), true) = (key, self.default_program) {
                    locked(path)?;
                }
                let key = match key {
                    SshKey::File(path) => ProgramKey::File(path.clone()),
                    SshKey::Literal(line) => ProgramKey::Literal(line.clone()),
                };
                let program = Program { program: self.program.clone(), key };
                program.sign("git", commit.as_bytes()).map_err(|err| match err {
                    AttestError::Program { program, why } => {
                        failed(format!("{program} could not sign the commit: {why}"))
                    }
                    other => failed(format!("cannot sign the commit: {other}")),
                })
            }
            Key::Id(id) => self.sign_gpg(id, commit),
        }
    }

    fn sign_gpg(&self, id: &str, commit: &str) -> Result<String> {
        let mut child = Command::new(&self.program)
            .args(["--status-fd=2", "-bsau", id])
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
        let status = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() || !status.contains("[GNUPG:] SIG_CREATED ") {
            let said = status.lines().rfind(|l| !l.trim().is_empty() && !l.starts_with("[GNUPG:]")).unwrap_or("");
            return Err(failed(format!("{} could not sign the commit: {}", self.program, said.trim())));
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }
}

/// An error saying how to unlock the ed25519 key at `path` when `ssh-keygen` would ask
/// for its passphrase (it is locked and the agent does not hold it). Other kinds of
/// key are left to `ssh-keygen`, which git signs them with.
fn locked(path: &Path) -> Result<()> {
    match KeySigner::from_file(path, crate::attest::running_agent().as_deref()) {
        Err(err @ AttestError::Locked(_)) => Err(failed(err.to_string())),
        _ => Ok(()),
    }
}
