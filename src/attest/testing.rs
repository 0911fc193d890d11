//! What the tests of `attest` share: keys made by `ssh-keygen` as a user makes them,
//! `ssh-keygen -Y` run as a verifier runs it, and an ssh-agent of the test's own.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A new key `dir/name` (and `dir/name.pub`) of `kind` (`ed25519`, `rsa`), protected
/// by `passphrase` when it is not empty.
pub fn keygen(dir: &Path, name: &str, kind: &str, passphrase: &str) -> PathBuf {
    let key = dir.join(name);
    let made = Command::new("ssh-keygen")
        .args(["-q", "-t", kind, "-N", passphrase, "-C", "test@example.com", "-f"])
        .arg(&key)
        .status();
    assert!(made.unwrap().success(), "ssh-keygen makes a key (.ci/run installs openssh-client)");
    key
}

/// `ssh-keygen` with `args`, `input` on its stdin.
pub fn ssh_keygen(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new("ssh-keygen")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// An ssh-agent listening on a socket in a directory of the test's, killed by its
/// process id however the test ends.
pub struct Agent {
    pub socket: PathBuf,
    process: Child,
}

impl Agent {
    /// A running agent, or `None` where ssh-agent is not installed.
    pub fn start(dir: &Path) -> Option<Agent> {
        let socket = dir.join("agent.sock");
        // `-D`: in the foreground, so the child is the agent itself and its pid is ours.
        let process = Command::new("ssh-agent").arg("-D").arg("-a").arg(&socket).stdout(Stdio::null()).spawn().ok()?;
        let agent = Agent { socket, process };
        let deadline = Instant::now() + Duration::from_secs(10);
        while !agent.socket.exists() {
            assert!(Instant::now() < deadline, "ssh-agent made no socket in 10 s");
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(agent)
    }

    /// `ssh-add KEY`, with the key's passphrase when it has one (through
    /// `SSH_ASKPASS`, as ssh-add reads it without a terminal).
    pub fn add(&self, key: &Path, passphrase: &str) {
        let askpass = key.with_extension("askpass");
        std::fs::write(&askpass, format!("#!/bin/sh\necho '{passphrase}'\n")).unwrap();
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
