//! Signing keys as a user sets them up for git: ed25519 keys made by `ssh-keygen`,
//! `gpg.format=ssh` and `user.signingkey` in the repository's config, an allowed-signers
//! file named by `gpg.ssh.allowedSignersFile`, and an ssh-agent of the test's own.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::{Sandbox, git, wait_for};

/// A new ed25519 key `dir/name` (and its `.pub`), protected by `passphrase` unless empty.
pub fn ssh_key(dir: &Path, name: &str, passphrase: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let key = dir.join(name);
    let made = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", passphrase, "-C", name, "-f"])
        .arg(&key)
        .status()
        .expect("ssh-keygen runs (.ci/run installs openssh-client)");
    assert!(made.success(), "ssh-keygen made {name}");
    key
}

/// The key's public line, `ssh-ed25519 AAAA… comment`.
pub fn public_line(key: &Path) -> String {
    std::fs::read_to_string(key.with_extension("pub")).unwrap().trim().to_string()
}

/// `repo` signs with `key` as git does (`gpg.format=ssh`, `user.signingkey`), as the
/// user `name` <`email`>.
pub fn sign_with(repo: &Path, key: &Path, name: &str, email: &str) {
    git(repo, &["config", "user.name", name]);
    git(repo, &["config", "user.email", email]);
    git(repo, &["config", "gpg.format", "ssh"]);
    git(repo, &["config", "user.signingkey", key.to_str().unwrap()]);
}

/// An allowed-signers file at `file` naming each principal's key, and `repo`'s git
/// config pointing at it (`gpg.ssh.allowedSignersFile`) when `repo` is given.
pub fn allowed_signers(file: &Path, signers: &[(&str, &Path)], repo: Option<&Path>) {
    let lines: Vec<String> = signers.iter().map(|(who, key)| format!("{who} {}\n", public_line(key))).collect();
    std::fs::write(file, lines.concat()).unwrap();
    if let Some(repo) = repo {
        git(repo, &["config", "gpg.ssh.allowedSignersFile", file.to_str().unwrap()]);
    }
}

/// A sandbox whose repository has a first commit and signs with a new key of Alice's,
/// which its allowed-signers file names: the key's path and the file's.
pub fn alices(sandbox: &Sandbox) -> (PathBuf, PathBuf) {
    let key = ssh_key(&sandbox.home.join("keys"), "alice", "");
    sign_with(&sandbox.repo, &key, "Alice Author", "alice@example.org");
    let allowed = sandbox.home.join("allowed_signers");
    allowed_signers(&allowed, &[("alice@example.org", &key)], Some(&sandbox.repo));
    git(&sandbox.repo, &["commit", "-q", "--allow-empty", "-m", "start"]);
    (key, allowed)
}

/// An ssh-agent on a socket in `dir`, killed by its process id when dropped.
pub struct Agent {
    pub socket: PathBuf,
    process: Child,
}

impl Agent {
    pub fn start(dir: &Path) -> Agent {
        let socket = dir.join("agent.sock");
        let process = Command::new("ssh-agent")
            .arg("-D")
            .arg("-a")
            .arg(&socket)
            .stdout(Stdio::null())
            .spawn()
            .expect("ssh-agent runs (.ci/run installs openssh-client)");
        let agent = Agent { socket, process };
        wait_for("the ssh-agent's socket", || agent.socket.exists());
        agent
    }

    /// `ssh-add KEY`, its passphrase given through `SSH_ASKPASS` (no terminal).
    pub fn add(&self, key: &Path, passphrase: &str) {
        let askpass = key.with_extension("askpass");
        std::fs::write(&askpass, format!("#!/bin/sh\necho '{passphrase}'\n")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&askpass, std::fs::Permissions::from_mode(0o700)).unwrap();
        let added = Command::new("ssh-add")
            .arg("-q")
            .arg(key)
            .env("SSH_AUTH_SOCK", &self.socket)
            .env("SSH_ASKPASS", &askpass)
            .env("SSH_ASKPASS_REQUIRE", "force")
            .env("DISPLAY", "none")
            .stdin(Stdio::null())
            .status()
            .unwrap();
        assert!(added.success(), "ssh-add {}", key.display());
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}
