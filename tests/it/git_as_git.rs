//! debate commits and signs as `git commit` would in the same environment (issue 51):
//! each case sets a machine up the way users do — `GIT_CONFIG_GLOBAL` from a dotfile
//! manager, `GIT_AUTHOR_*`/`GIT_COMMITTER_*`, a `.pub` signing key and no agent,
//! `includeIf`, `GIT_CONFIG_COUNT`, the system file, `gpg.ssh.defaultKeyCommand` and
//! `gpg.ssh.program`, a locked key, an OpenPGP key — runs `git commit` there, then
//! debate, and compares: who the commits are by, `git verify-commit`, and `debate
//! verify --require-signature` naming the signer. Every key, agent, home and git
//! configuration is the test's own.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::keys::{self, Agent};
use crate::common::*;

/// A sandbox and the environment both git and debate run in.
struct Machine {
    sandbox: Sandbox,
    env: Vec<(String, OsString)>,
}

impl Machine {
    /// A repository with no configuration of its own, on a machine whose system file
    /// git does not read (unless a test says otherwise).
    fn new() -> Machine {
        let sandbox = Sandbox::new();
        let mut machine = Machine { sandbox, env: Vec::new() };
        machine.set("GIT_CONFIG_NOSYSTEM", "1");
        machine
    }

    fn set(&mut self, key: &str, value: impl Into<OsString>) {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.to_string(), value.into()));
    }

    fn unset(&mut self, key: &str) {
        self.env.retain(|(k, _)| k != key);
    }

    fn home(&self) -> &Path {
        &self.sandbox.home
    }

    fn repo(&self) -> &Path {
        &self.sandbox.repo
    }

    /// A file under the home, written.
    fn file(&self, relative: &str, content: &str) -> PathBuf {
        let path = self.home().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        path
    }

    /// `git` as the user runs it: the sandbox's home and XDG directory, this machine's
    /// variables, nothing of the test runner's git environment.
    fn git(&self, args: &[&str]) -> Output {
        let mut command = Command::new("git");
        for (key, _) in std::env::vars() {
            if key.starts_with("GIT_") || key.starts_with("XDG_") || key == "SSH_AUTH_SOCK" || key == "EMAIL" {
                command.env_remove(key);
            }
        }
        command
            .args(args)
            .current_dir(self.repo())
            .env("HOME", self.home())
            .env("XDG_CONFIG_HOME", self.home().join("config"))
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    fn git_ok(&self, args: &[&str]) -> String {
        let out = self.git(args);
        assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
        text(&out.stdout)
    }

    /// debate in the same environment.
    fn debate(&self, args: &[&str]) -> Output {
        let mut command = self.sandbox.std_cmd();
        for (key, _) in std::env::vars() {
            if key.starts_with("GIT_") || key == "EMAIL" {
                command.env_remove(key);
            }
        }
        command.envs(self.env.iter().map(|(k, v)| (k, v))).args(args).stdin(Stdio::null()).output().unwrap()
    }

    /// `git commit` of nothing, as the user would make it here; then an offline debate's
    /// record committed by debate. The record's path in the repository.
    fn both_commit(&self) -> String {
        self.both_commit_of(QUESTION)
    }

    /// `both_commit` of a debate of `question`.
    fn both_commit_of(&self, question: &str) -> String {
        self.git_ok(&["commit", "-q", "--allow-empty", "-m", "made by git"]);
        let out = self.debate(&["--offline", "--no-checkpoints", "-q", "-r", "1", question]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let path = PathBuf::from(text(&out.stdout).trim());
        path.strip_prefix(self.repo()).unwrap().to_string_lossy().into_owned()
    }

    /// Who the commit at `rev` is by: `author|email committer|email`.
    fn people(&self, rev: &str) -> String {
        self.git_ok(&["log", "-1", "--format=%an|%ae %cn|%ce", rev]).trim().to_string()
    }

    /// Who the commit at `rev` is by, and when: `author|email|date committer|email|date`.
    fn dated(&self, rev: &str) -> String {
        self.git_ok(&["log", "-1", "--date=raw", "--format=%an|%ae|%ad %cn|%ce|%cd", rev]).trim().to_string()
    }

    /// `git verify-commit REV`: whether it passed, and what it said.
    fn verify_commit(&self, rev: &str) -> (bool, String) {
        let out = self.git(&["verify-commit", rev]);
        (out.status.success(), text(&out.stderr))
    }

    /// `debate verify --require-signature RECORD`: exit code and stdout.
    fn verify_record(&self, record: &str) -> (i32, String, String) {
        let out = self.debate(&["verify", "--require-signature", record]);
        (out.status.code().unwrap(), text(&out.stdout), text(&out.stderr))
    }

    /// An ed25519 key of Alice's under the home, and an allowed-signers file naming it.
    fn alices_key(&self, passphrase: &str) -> (PathBuf, PathBuf) {
        let key = keys::ssh_key(&self.home().join("ssh"), "id_ed25519", passphrase);
        let allowed = self.home().join("allowed_signers");
        keys::allowed_signers(&allowed, &[("alice@example.org", &key)], None);
        (key, allowed)
    }
}

/// Both commits are by the same people, both verify with git, and debate's record
/// verifies naming Alice.
fn assert_same_as_git(machine: &Machine, record: &str) {
    assert_eq!(machine.people("HEAD"), machine.people("HEAD~1"), "who and when");
    for rev in ["HEAD~1", "HEAD"] {
        let (good, said) = machine.verify_commit(rev);
        assert!(good && said.contains("Good \"git\" signature for alice@example.org"), "{rev}: {said}");
    }
    let (code, stdout, stderr) = machine.verify_record(record);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("signed by alice@example.org when it was recorded"), "{stdout}");
}

/// The user's git configuration as a dotfile manager writes it: identity, ssh signing,
/// the allowed signers, every commit signed.
fn signing_config(key: &Path, allowed: &Path) -> String {
    format!(
        "[user]\n\tname = Alice Author\n\temail = alice@example.org\n\tsigningkey = {}\n[gpg]\n\tformat = ssh\n[gpg \"ssh\"]\n\tallowedSignersFile = {}\n[commit]\n\tgpgsign = true\n",
        key.display(),
        allowed.display()
    )
}

#[test]
fn git_config_global_is_read_as_git_reads_it_and_the_xdg_file_then_is_not() {
    let mut machine = Machine::new();
    let (key, allowed) = machine.alices_key("");
    let dotfile = machine.file("dotfiles/gitconfig", &signing_config(&key, &allowed));
    // git reads no XDG file when GIT_CONFIG_GLOBAL names the user's file.
    machine.file("config/git/config", "[user]\n\tname = Not Alice\n\temail = xdg@example.org\n");
    machine.set("GIT_CONFIG_GLOBAL", &dotfile);
    let record = machine.both_commit();
    assert!(machine.people("HEAD").starts_with("Alice Author|alice@example.org "), "{}", machine.people("HEAD"));
    assert_same_as_git(&machine, &record);
}

#[test]
fn the_author_and_committer_variables_win_as_they_do_for_git() {
    let mut machine = Machine::new();
    let (key, allowed) = machine.alices_key("");
    let dotfile = machine.file("dotfiles/gitconfig", &signing_config(&key, &allowed));
    machine.set("GIT_CONFIG_GLOBAL", &dotfile);
    for (key, value) in [
        ("GIT_AUTHOR_NAME", "Ann Author"),
        ("GIT_AUTHOR_EMAIL", "ann@example.org"),
        ("GIT_AUTHOR_DATE", "2026-03-01T09:30:00+01:00"),
        ("GIT_COMMITTER_NAME", "Carl Committer"),
        ("GIT_COMMITTER_EMAIL", "carl@example.org"),
        ("GIT_COMMITTER_DATE", "@1772400000 -0500"),
    ] {
        machine.set(key, value);
    }
    let record = machine.both_commit();
    let expected = "Ann Author|ann@example.org|1772353800 +0100 Carl Committer|carl@example.org|1772400000 -0500";
    assert_eq!([machine.dated("HEAD~1"), machine.dated("HEAD")], [expected, expected], "git's and debate's");
    assert_same_as_git(&machine, &record);

    // A date git would refuse is refused by name, before anything is written.
    machine.set("GIT_AUTHOR_DATE", "last tuesday-ish");
    let before = machine.sandbox.files();
    let out = machine.debate(&["--offline", "--no-checkpoints", "-q", "-r", "1", "Kafka or RabbitMQ for events?"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("GIT_AUTHOR_DATE"), "{}", text(&out.stderr));
    let after = machine.sandbox.files();
    assert_eq!(
        before.keys().filter(|p| p.starts_with(machine.repo())).collect::<Vec<_>>(),
        after.keys().filter(|p| p.starts_with(machine.repo())).collect::<Vec<_>>()
    );
}

#[test]
fn a_pub_key_with_no_agent_signs_the_record_and_the_commit_as_ssh_keygen_does() {
    let mut machine = Machine::new();
    let (key, allowed) = machine.alices_key("");
    let dotfile = machine.file("dotfiles/gitconfig", &signing_config(&key.with_extension("pub"), &allowed));
    machine.set("GIT_CONFIG_GLOBAL", &dotfile);
    let record = machine.both_commit();
    let text = std::fs::read_to_string(machine.repo().join(&record)).unwrap();
    assert!(text.contains("*Signed with the SSH key `SHA256:"), "{}", text.lines().last().unwrap_or_default());
    assert_same_as_git(&machine, &record);
}

#[test]
fn include_if_in_either_global_file_is_followed() {
    // ~/.gitconfig, and GIT_CONFIG_GLOBAL's file: each includes the signing set-up for
    // repositories under the sandbox (`includeIf "gitdir:…/"`).
    for through_variable in [false, true] {
        let mut machine = Machine::new();
        let (key, allowed) = machine.alices_key("");
        let work = machine.file("work.gitconfig", &signing_config(&key, &allowed));
        let under = machine.repo().parent().unwrap().display().to_string();
        let including = format!("[includeIf \"gitdir:{under}/\"]\n\tpath = {}\n", work.display());
        match through_variable {
            true => {
                let dotfile = machine.file("dotfiles/gitconfig", &including);
                machine.set("GIT_CONFIG_GLOBAL", &dotfile);
            }
            false => {
                machine.file(".gitconfig", &including);
                machine.unset("GIT_CONFIG_GLOBAL");
            }
        }
        let record = machine.both_commit();
        assert_same_as_git(&machine, &record);
    }
    // The XDG file too.
    let machine = Machine::new();
    let (key, allowed) = machine.alices_key("");
    let work = machine.file("work.gitconfig", &signing_config(&key, &allowed));
    let under = machine.repo().parent().unwrap().display().to_string();
    machine.file("config/git/config", &format!("[includeIf \"gitdir:{under}/\"]\n\tpath = {}\n", work.display()));
    let record = machine.both_commit();
    assert_same_as_git(&machine, &record);
}

#[test]
fn git_config_count_and_the_system_file_are_read_as_git_reads_them() {
    let mut machine = Machine::new();
    let (key, allowed) = machine.alices_key("");
    // The system file holds the signing set-up; the environment's pairs the identity.
    let system = machine.file("etc/gitconfig", &signing_config(&key, &allowed).replace("Alice Author", "System Name"));
    machine.unset("GIT_CONFIG_NOSYSTEM");
    machine.set("GIT_CONFIG_SYSTEM", &system);
    machine.set("GIT_CONFIG_GLOBAL", "/dev/null");
    for (key, value) in [
        ("GIT_CONFIG_COUNT", "2"),
        ("GIT_CONFIG_KEY_0", "User.Name"),
        ("GIT_CONFIG_VALUE_0", "Alice From Env"),
        ("GIT_CONFIG_KEY_1", "user.email"),
        ("GIT_CONFIG_VALUE_1", "alice@example.org"),
    ] {
        machine.set(key, value);
    }
    let record = machine.both_commit();
    assert!(machine.people("HEAD").starts_with("Alice From Env|alice@example.org "), "{}", machine.people("HEAD"));
    assert_same_as_git(&machine, &record);

    // GIT_CONFIG_NOSYSTEM: the system file's signing is gone for both.
    machine.set("GIT_CONFIG_NOSYSTEM", "true");
    machine.git_ok(&["commit", "-q", "--allow-empty", "-m", "made by git"]);
    assert!(!machine.verify_commit("HEAD").0, "git signs no more");
    let out = machine.debate(&["--offline", "--no-checkpoints", "-q", "-r", "1", "Kafka or RabbitMQ for events?"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!machine.verify_commit("HEAD").0, "nor does debate");
    let record = PathBuf::from(text(&out.stdout).trim());
    assert!(std::fs::read_to_string(record).unwrap().contains("*Not signed when it was recorded: no ssh signing key"));
}

#[test]
fn the_default_key_command_and_a_signing_program_of_the_users_sign_as_for_git() {
    let mut machine = Machine::new();
    let (key, allowed) = machine.alices_key("correct horse");
    let agent = Agent::start(machine.home());
    agent.add(&key, "correct horse");
    machine.set("SSH_AUTH_SOCK", &agent.socket);
    // No user.signingkey: the agent's first key, as `ssh-add -L` prints it. A signing
    // program of the user's, which logs how it is called and hands over to ssh-keygen.
    let log = machine.home().join("signer.log");
    let program =
        machine.file("bin/signer", &format!("#!/bin/sh\necho \"$@\" >> '{}'\nexec ssh-keygen \"$@\"\n", log.display()));
    Command::new("chmod").arg("+x").arg(&program).status().unwrap();
    let config = signing_config(&key, &allowed).replace(&format!("\tsigningkey = {}\n", key.display()), "");
    let config =
        format!("{config}[gpg \"ssh\"]\n\tdefaultKeyCommand = ssh-add -L\n\tprogram = {}\n", program.display());
    let dotfile = machine.file("dotfiles/gitconfig", &config);
    machine.set("GIT_CONFIG_GLOBAL", &dotfile);
    let record = machine.both_commit();
    assert_same_as_git(&machine, &record);
    // git called it to sign once for its commit; debate for the record and for its
    // commit, the same way (a literal key, `-U`, a file to sign). (git verify-commit
    // calls it too, to verify.)
    let calls: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|line| line.starts_with("-Y sign"))
        .map(|line| {
            line.split_whitespace()
                .map(|word| if word.starts_with('/') { "FILE" } else { word })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert_eq!(
        calls,
        [
            "-Y sign -n git -f FILE -U FILE",
            "-Y sign -n debate-record@v1 -f FILE -U FILE",
            "-Y sign -n git -f FILE -U FILE",
        ],
        "{calls:?}"
    );

    // git's `key::` literal and its own ssh-keygen: the agent signs for both.
    let literal = format!("key::{}", keys::public_line(&key));
    machine.file("dotfiles/gitconfig", &signing_config(Path::new(&literal), &allowed));
    let record = machine.both_commit_of("Should we use Kafka or RabbitMQ for the order events?");
    assert_same_as_git(&machine, &record);
}

#[test]
fn a_locked_key_is_named_with_how_to_unlock_it_never_asked_for() {
    let mut machine = Machine::new();
    let (key, allowed) = machine.alices_key("correct horse");
    let dotfile = machine.file("dotfiles/gitconfig", &signing_config(&key.with_extension("pub"), &allowed));
    machine.set("GIT_CONFIG_GLOBAL", &dotfile);
    // git cannot sign without a terminal to ask on; debate says how to unlock the key,
    // before it writes anything.
    assert!(!machine.git(&["commit", "-q", "--allow-empty", "-m", "made by git"]).status.success());
    let out = machine.debate(&["--offline", "--no-checkpoints", "-q", "-r", "1", QUESTION]);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    let unlock = format!("ssh-add {}", key.display());
    assert!(stderr.contains("locked with a passphrase") && stderr.contains(&unlock), "{stderr}");
    assert!(!machine.repo().join("docs").exists(), "nothing written");

    // Records alone signed (commits not): the record is written unsigned, the warning
    // saying how to unlock the key; unlocked in an agent, it signs.
    machine.file("dotfiles/gitconfig", &signing_config(&key, &allowed).replace("gpgsign = true", "gpgsign = false"));
    let out = machine.debate(&["--offline", "--no-checkpoints", "-q", "-r", "1", QUESTION]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains(&unlock), "{}", text(&out.stderr));
    let agent = Agent::start(machine.home());
    agent.add(&key, "correct horse");
    machine.set("SSH_AUTH_SOCK", &agent.socket);
    let out = machine.debate(&["--offline", "--no-checkpoints", "-q", "-r", "1", "Kafka or RabbitMQ for events?"]);
    assert!(out.status.success() && !text(&out.stderr).contains("warning"), "{}", text(&out.stderr));
    let record = PathBuf::from(text(&out.stdout).trim());
    assert!(std::fs::read_to_string(record).unwrap().contains("*Signed with the SSH key `SHA256:"));
}

#[test]
fn an_openpgp_repository_keeps_its_signed_commit_and_the_record_says_why_it_has_no_ssh_signature() {
    let mut machine = Machine::new();
    let gnupg = machine.home().join("gnupg");
    std::fs::create_dir_all(&gnupg).unwrap();
    Command::new("chmod").arg("700").arg(&gnupg).status().unwrap();
    machine.set("GNUPGHOME", &gnupg);
    let made = Command::new("gpg")
        .args([
            "--batch",
            "--passphrase",
            "",
            "--quick-gen-key",
            "Alice Author <alice@example.org>",
            "ed25519",
            "sign",
            "never",
        ])
        .env("GNUPGHOME", &gnupg)
        .output()
        .unwrap();
    assert!(made.status.success(), "gpg makes a key (.ci/run installs gnupg): {}", text(&made.stderr));
    let dotfile = machine.file(
        "dotfiles/gitconfig",
        "[user]\n\tname = Alice Author\n\temail = alice@example.org\n[commit]\n\tgpgsign = true\n",
    );
    machine.set("GIT_CONFIG_GLOBAL", &dotfile);
    let record = machine.both_commit();
    let verified = [machine.verify_commit("HEAD~1"), machine.verify_commit("HEAD")];
    Command::new("gpgconf").args(["--kill", "gpg-agent"]).env("GNUPGHOME", &gnupg).status().ok();
    assert_eq!(machine.people("HEAD"), machine.people("HEAD~1"));
    for (good, said) in verified {
        assert!(good && said.contains("Good signature from \"Alice Author <alice@example.org>\""), "{said}");
    }
    let text = std::fs::read_to_string(machine.repo().join(&record)).unwrap();
    assert!(text.contains("*Not signed when it was recorded: this repository signs with OpenPGP"), "{text}");
    let (code, _, stderr) = machine.verify_record(&record);
    assert_eq!(code, 3, "{stderr}");
    let out = machine.debate(&["verify", &record]);
    assert!(text_of(&out).contains("unsigned: this repository signs with OpenPGP"), "{}", text_of(&out));
}

fn text_of(out: &Output) -> String {
    text(&out.stdout)
}
