//! An SSH signature made by the program git signs with (`gpg.ssh.program`, by default
//! `ssh-keygen`), run exactly as git runs it: `PROGRAM -Y sign -n NAMESPACE -f KEYFILE
//! [-U] FILE`, the signature read from `FILE.sig`; a literal key (`key::ssh-ed25519 …`)
//! is written to a file of its own and signed with `-U` (its private half is in an
//! agent). Password managers' signers (1Password's `op-ssh-sign`, say) take exactly
//! this call. The program never reads a terminal here: its stdin is empty.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::error::{AttestError, Result};

/// The key the program is told to sign with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramKey {
    /// A key file: a private key, or a public key whose private half is beside it or in an agent.
    File(PathBuf),
    /// A public key's line (`ssh-ed25519 AAAA…`), its private half in an agent.
    Literal(String),
}

/// A signing program and the key it signs with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    pub program: String,
    pub key: ProgramKey,
}

impl Program {
    /// The armored SSH signature of `message` in `namespace`, as the program writes it.
    pub fn sign(&self, namespace: &str, message: &[u8]) -> Result<String> {
        let failed = |why: String| AttestError::Program { program: self.program.clone(), why };
        let dir = tempfile::tempdir().map_err(|err| failed(format!("no temporary directory ({err})")))?;
        let buffer = dir.path().join("buffer");
        std::fs::write(&buffer, message).map_err(|err| failed(format!("cannot write {} ({err})", buffer.display())))?;
        let mut command = Command::new(&self.program);
        command.args(["-Y", "sign", "-n", namespace, "-f"]);
        match &self.key {
            ProgramKey::File(path) => command.arg(path),
            ProgramKey::Literal(line) => {
                let file = dir.path().join("signing_key.pub");
                write_private(&file, line).map_err(|err| failed(format!("cannot hold the key ({err})")))?;
                command.arg(&file).arg("-U")
            }
        };
        let output = command
            .arg(&buffer)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .map_err(|err| failed(format!("it does not run ({err})")))?;
        let signature = std::fs::read_to_string(buffer.with_extension("sig")).unwrap_or_default();
        if !output.status.success() || !signature.contains("-----BEGIN SSH SIGNATURE-----") {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let said = stderr.lines().rfind(|line| !line.trim().is_empty()).unwrap_or("it wrote no signature");
            return Err(failed(said.trim().to_string()));
        }
        Ok(signature)
    }

    /// Whether the program runs here at all: found by its path, or on `PATH`.
    pub fn found(&self) -> bool {
        find(&self.program).is_some()
    }
}

/// `text` in a new file only this user reads.
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    crate::platform::files::create_private(path)?.write_all(format!("{}\n", text.trim()).as_bytes())
}

/// A program by its path, or on `PATH`.
pub fn find(program: &str) -> Option<PathBuf> {
    let path = Path::new(program);
    if path.components().count() > 1 {
        return path.is_file().then(|| path.to_path_buf());
    }
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(program)).find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attest::testing::keygen;

    #[test]
    fn ssh_keygen_signs_as_git_runs_it_and_its_words_say_why_not() {
        let dir = tempfile::tempdir().unwrap();
        let key = keygen(dir.path(), "id", "ed25519", "");
        let program = Program { program: "ssh-keygen".into(), key: ProgramKey::File(key.with_extension("pub")) };
        let signature = program.sign("git", b"tree 0\n").unwrap();
        assert!(signature.starts_with("-----BEGIN SSH SIGNATURE-----\n"), "{signature}");

        let missing = Program { program: "ssh-keygen".into(), key: ProgramKey::File(dir.path().join("nothing")) };
        let err = missing.sign("git", b"x").unwrap_err().to_string();
        assert!(err.starts_with("ssh-keygen could not sign: "), "{err}");
        let absent = Program { program: "no-such-signer".into(), key: ProgramKey::File(key) };
        assert!(!absent.found());
        assert!(absent.sign("git", b"x").unwrap_err().to_string().contains("does not run"));
    }
}
