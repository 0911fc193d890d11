//! Records that sign themselves (docs/guide.md, "Signed records"): a record written with
//! the ssh key git signs with carries its digest and signature; `debate verify` checks
//! them offline from the record alone, names the signer from git's allowed-signers
//! file, and names every record that fails and what failed — with aragora-verify's exit
//! codes. Keys are made by `ssh-keygen` and set up as git sets them up.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::keys::{self, Agent};
use crate::common::*;

/// An offline debate committed in `sandbox`: its record's path in the repository.
fn debated(sandbox: &Sandbox, question: &str) -> String {
    let out = sandbox.cmd().args(["--offline", "--no-checkpoints", "-q", "-r", "1", question]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let path = PathBuf::from(text(&out.stdout).trim());
    path.strip_prefix(&sandbox.repo).unwrap_or(&path).to_string_lossy().into_owned()
}

/// `debate verify <args>` in `dir`: exit code, stdout, stderr.
fn verify(sandbox: &Sandbox, dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = sandbox.cmd().current_dir(dir).arg("verify").args(args).output().unwrap();
    (out.status.code().unwrap(), text(&out.stdout), text(&out.stderr))
}

/// `debate verify <args> --json` in the repository: exit code and the document.
fn verified(sandbox: &Sandbox, args: &[&str]) -> (i32, Value) {
    let (code, stdout, stderr) = verify(sandbox, &sandbox.repo, &[args, &["--json"]].concat());
    let document = serde_json::from_str(&stdout).unwrap_or_else(|err| panic!("{err}: {stdout}{stderr}"));
    (code, document)
}

/// The seal a record carries, as JSON.
fn seal(record: &str) -> Value {
    let line = record.lines().last().unwrap();
    let json = line.strip_prefix("<!-- debate:seal ").and_then(|l| l.strip_suffix(" -->")).expect("a seal");
    serde_json::from_str(json).unwrap()
}

/// The repository with its user (who has no signing key) and a first commit.
fn started(sandbox: &Sandbox) {
    git(&sandbox.repo, &["config", "user.name", "Ada Author"]);
    git(&sandbox.repo, &["config", "user.email", "ada@example.com"]);
    git(&sandbox.repo, &["commit", "-q", "--allow-empty", "-m", "start"]);
}

fn commit_all(repo: &Path, message: &str) {
    git(repo, &["commit", "-q", "-a", "--no-gpg-sign", "-m", message]);
}

#[test]
fn a_signed_record_verifies_names_its_signer_and_still_verifies_copied_elsewhere() {
    let sandbox = Sandbox::new();
    let (_, allowed) = keys::alices(&sandbox);
    let relative = debated(&sandbox, QUESTION);
    let record = std::fs::read_to_string(sandbox.repo.join(&relative)).unwrap();
    assert!(record.contains("\n*Signed with the SSH key `SHA256:"), "{record}");

    let (code, stdout, _) = verify(&sandbox, &sandbox.repo, &[&relative]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("signed by alice@example.org when it was recorded"), "{stdout}");
    let (code, document) = verified(&sandbox, &[&sandbox.only_id()]);
    assert_eq!(code, 0);
    assert_eq!(document["records"][0]["verdict"], "verified");
    assert_eq!(document["records"][0]["signature"]["signer"], "alice@example.org");
    assert_eq!(sandbox.shown()["record_signature"]["verdict"], "verified");

    // ssh-keygen, which git uses, agrees: the signature is Alice's, of the digest.
    let sealed = seal(&record);
    let signature = sandbox.home.join("record.sig");
    std::fs::write(&signature, sealed["signature"]["sshsig"].as_str().unwrap()).unwrap();
    let checked = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "printf %s '{}' | ssh-keygen -Y verify -f '{}' -I alice@example.org -n debate-record@v1 -s '{}'",
            sealed["digest"].as_str().unwrap(),
            allowed.display(),
            signature.display()
        ))
        .output()
        .unwrap();
    assert!(checked.status.success(), "{}", text(&checked.stderr));

    // Copied into another repository (no signing set up there): still verified, with
    // the allowed-signers file given; signed but unnamed without it.
    let other = sandbox.home.join("elsewhere");
    std::fs::create_dir_all(other.join("docs/decisions")).unwrap();
    git(&other, &["init", "-q", "-b", "main"]);
    std::fs::write(other.join("docs/decisions/copied.md"), &record).unwrap();
    let copied = ["docs/decisions/copied.md", "--allowed-signers", allowed.to_str().unwrap()];
    let (code, stdout, _) = verify(&sandbox, &other, &copied);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("signed by alice@example.org"), "{stdout}");
    let (code, stdout, _) = verify(&sandbox, &other, &["docs/decisions/copied.md"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("no allowed-signers file names it"), "{stdout}");
    let (code, _, stderr) = verify(&sandbox, &other, &["docs/decisions/copied.md", "--require-signature"]);
    assert_eq!(code, 3, "a signer nobody names is no signature to require: {stderr}");
    assert!(stderr.contains("--allowed-signers"), "{stderr}");
}

#[test]
fn an_edit_fails_naming_its_section_and_a_digest_made_again_fails_on_the_signature() {
    let sandbox = Sandbox::new();
    keys::alices(&sandbox);
    let relative = debated(&sandbox, QUESTION);
    let path = sandbox.repo.join(&relative);
    let record = std::fs::read_to_string(&path).unwrap();

    // One word of the recommendation, committed.
    let recommendation = record.split("\n## Recommendation\n\n").nth(1).unwrap().lines().next().unwrap().to_string();
    let word = recommendation.split_whitespace().last().unwrap();
    let edited = record.replacen(&recommendation, &recommendation.replacen(word, "never.", 1), 1);
    std::fs::write(&path, &edited).unwrap();
    commit_all(&sandbox.repo, "a one-word edit");
    let (code, stdout, stderr) = verify(&sandbox, &sandbox.repo, &[&relative]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(&format!("FAILED {relative}: does not verify: edited since it was sealed, in: Recommendation")),
        "{stdout}"
    );
    assert!(stderr.contains(&relative), "the failure names the record: {stderr}");

    // The digest made again over the edit (the seal's parts and digest), the signature
    // kept: the signature no longer matches.
    let opened = debate::record::seal::block::open(&edited);
    let (note, mut forged) = opened.seal.unwrap().unwrap();
    forged.parts = debate::record::seal::parts::parts(opened.body, None);
    forged.digest = debate::record::seal::make::digest_of(&forged, &note);
    std::fs::write(&path, debate::record::seal::block::close(opened.body, &note, &forged)).unwrap();
    let (code, document) = verified(&sandbox, &[&relative]);
    assert_eq!(code, 1);
    let failures = document["records"][0]["failures"].to_string();
    assert!(
        failures.contains("its signature by SHA256:") && failures.contains("does not match its digest"),
        "{failures}"
    );
    assert_eq!(document["records"][0]["edited"], serde_json::json!([]));
}

#[test]
fn an_unsigned_record_passes_unless_a_signature_is_required() {
    let sandbox = Sandbox::new();
    started(&sandbox);
    let relative = debated(&sandbox, QUESTION);
    let record = std::fs::read_to_string(sandbox.repo.join(&relative)).unwrap();
    assert!(record.contains("\n*Not signed when it was recorded: no ssh signing key is set up"), "{record}");
    let (code, stdout, _) = verify(&sandbox, &sandbox.repo, &[&relative]);
    let expected = format!("--     {relative}: unsigned: no ssh signing key is set up");
    assert_eq!((code, stdout.starts_with(&expected)), (0, true), "{stdout}");
    let (code, _, stderr) = verify(&sandbox, &sandbox.repo, &["--all", "--require-signature"]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains(&relative) && stderr.contains("user.signingkey"), "{stderr}");
    assert_eq!(sandbox.shown()["record_signature"]["verdict"], "unsigned");
}

#[test]
fn usage_errors_exit_2() {
    let sandbox = Sandbox::new();
    started(&sandbox);
    let relative = debated(&sandbox, QUESTION);
    for args in [
        vec![],
        vec!["--since", "main"],
        vec!["--all", relative.as_str()],
        vec!["docs/decisions/nothing-here.md"],
        vec![relative.as_str(), "--allowed-signers", "/nonexistent/allowed_signers"],
        vec!["--all", "--since", "no-such-branch"],
    ] {
        let (code, stdout, stderr) = verify(&sandbox, &sandbox.repo, &args);
        assert_eq!(code, 2, "verify {args:?}: {stdout}{stderr}");
        assert!(stderr.contains("error:") && !stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn an_unknown_signer_or_a_signature_from_another_record_fails() {
    let sandbox = Sandbox::new();
    keys::alices(&sandbox);
    let first = debated(&sandbox, QUESTION);
    // Mallory signs the next record with a key of hers no allowed signer has.
    let mallory = keys::ssh_key(&sandbox.home.join("keys"), "mallory", "");
    keys::sign_with(&sandbox.repo, &mallory, "Mallory", "mallory@example.org");
    let second = debated(&sandbox, "Should we use Kafka or RabbitMQ for the order events?");
    let (code, stdout, _) = verify(&sandbox, &sandbox.repo, &[&second]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("its signer is unknown: no allowed signer has the key SHA256:"), "{stdout}");

    // Alice's signature of the first record, pasted into the second: it signs another digest.
    let alices_seal = seal(&std::fs::read_to_string(sandbox.repo.join(&first)).unwrap());
    let path = sandbox.repo.join(&second);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut forged = seal(&text);
    forged["signature"] = alices_seal["signature"].clone();
    let line = text.lines().last().unwrap();
    std::fs::write(&path, text.replace(line, &format!("<!-- debate:seal {forged} -->"))).unwrap();
    let (code, stdout, _) = verify(&sandbox, &sandbox.repo, &[&second]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("does not match its digest"), "{stdout}");
}

#[test]
fn accepting_and_reviewing_sign_again_and_keep_the_earlier_signatures() {
    let sandbox = Sandbox::new();
    let (alice, allowed) = keys::alices(&sandbox);
    let relative = debated(&sandbox, QUESTION);
    // Bob, the reviewer, signs with his own key in the same repository.
    let bob = keys::ssh_key(&sandbox.home.join("keys"), "bob", "");
    keys::allowed_signers(&allowed, &[("alice@example.org", &alice), ("bob@example.org", &bob)], None);
    keys::sign_with(&sandbox.repo, &bob, "Bob Reviewer", "bob@example.org");
    let accepted = sandbox.cmd().args(["accept", &relative]).output().unwrap();
    assert!(accepted.status.success(), "{}", text(&accepted.stderr));
    assert_eq!(git(&sandbox.repo, &["status", "--porcelain"]), "", "the new seal is committed with the status");
    let (code, document) = verified(&sandbox, &[&relative]);
    assert_eq!(code, 0, "{document:#}");
    let checked = &document["records"][0];
    assert_eq!(checked["signature"]["signer"], "bob@example.org");
    assert_eq!(checked["signature"]["act"], "accepted");
    assert_eq!(checked["earlier"][0]["signer"], "alice@example.org");
    assert_eq!(checked["earlier"][0]["act"], "recorded");

    let id = sandbox.only_id();
    let reviewed = sandbox
        .cmd()
        .args(["review", &id, "--guide", "Reviewer: what about operating cost?", "--no-checkpoints", "--offline"])
        .output()
        .unwrap();
    assert!(reviewed.status.success(), "{}", text(&reviewed.stderr));
    let (code, document) = verified(&sandbox, &[&relative]);
    assert_eq!(code, 0, "{document:#}");
    let checked = &document["records"][0];
    assert_eq!(checked["signature"]["act"], "revised");
    let earlier: Vec<&str> =
        checked["earlier"].as_array().unwrap().iter().map(|e| e["act"].as_str().unwrap()).collect();
    assert_eq!(earlier, ["recorded", "accepted"]);
    let (stdout, _) = (verify(&sandbox, &sandbox.repo, &[&relative]).1, ());
    assert!(stdout.contains("earlier: signed by alice@example.org when it was recorded"), "{stdout}");
}

#[test]
fn a_key_that_cannot_sign_leaves_the_record_unsigned_with_a_warning_never_a_prompt() {
    let sandbox = Sandbox::new();
    let key = keys::ssh_key(&sandbox.home.join("keys"), "locked", "correct horse");
    keys::sign_with(&sandbox.repo, &key, "Alice Author", "alice@example.org");
    git(&sandbox.repo, &["commit", "-q", "--allow-empty", "-m", "start"]);
    let out = sandbox
        .std_cmd()
        .args(["--offline", "--no-checkpoints", "-r", "1", QUESTION])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("warning: records are written unsigned") && stderr.contains("passphrase"), "{stderr}");
    assert!(!stderr.to_lowercase().contains("enter passphrase"), "{stderr}");
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(
        record.contains("*Not signed when it was recorded: the signing key that is set up could not be used"),
        "{record}"
    );
    assert!(!record.contains(sandbox.home.to_str().unwrap()), "no path of this machine in the record");

    // The same key held by an ssh-agent signs, without its passphrase being asked for.
    let agent = Agent::start(&sandbox.home);
    agent.add(&key, "correct horse");
    let out = sandbox
        .std_cmd()
        .env("SSH_AUTH_SOCK", &agent.socket)
        .args(["--offline", "--no-checkpoints", "-q", "-r", "1", "Should we use Kafka or RabbitMQ for events?"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success() && !text(&out.stderr).contains("warning"), "{}", text(&out.stderr));
    let signed = text(&out.stdout);
    assert!(std::fs::read_to_string(signed.trim()).unwrap().contains("*Signed with the SSH key `SHA256:"));
}

#[test]
fn all_records_or_those_a_branch_changed_are_checked_and_each_failure_named() {
    let sandbox = Sandbox::new();
    keys::alices(&sandbox);
    let first = debated(&sandbox, QUESTION);
    git(&sandbox.repo, &["checkout", "-q", "-b", "topic"]);
    let second = debated(&sandbox, "Should we use Kafka or RabbitMQ for the order events?");
    let (code, document) = verified(&sandbox, &["--all"]);
    assert_eq!((code, document["verified"].as_u64()), (0, Some(2)), "{document:#}");
    let (_, document) = verified(&sandbox, &["--all", "--since", "main"]);
    let paths: Vec<&str> =
        document["records"].as_array().unwrap().iter().map(|r| r["path"].as_str().unwrap()).collect();
    assert_eq!(paths, [second.as_str()], "only what the branch changed");

    let path = sandbox.repo.join(&first);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("## Question\n\n", "## Question\n\nReally: ", 1)).unwrap();
    let (code, stdout, stderr) = verify(&sandbox, &sandbox.repo, &["--all"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains(&format!("FAILED {first}")) && stdout.contains(&format!("ok     {second}")), "{stdout}");
    assert!(stderr.contains(&format!("1 of 2 records did not verify: {first}")), "{stderr}");
    // The index the records' directory keeps is no record.
    assert!(!stdout.contains("README.md"), "{stdout}");
}

/// A record written before records were sealed: no seal, and the debate it carries.
#[test]
fn a_record_written_before_seals_reads_back_and_verifies_by_rendering_again() {
    let sandbox = Sandbox::new();
    started(&sandbox);
    let relative = debated(&sandbox, QUESTION);
    let path = sandbox.repo.join(&relative);
    let sealed = std::fs::read_to_string(&path).unwrap();
    let old = debate::record::seal::unsealed(&sealed).to_string();
    assert!(!old.contains("debate:seal") && old.contains("<!-- debate:state {"));
    std::fs::write(&path, &old).unwrap();
    commit_all(&sandbox.repo, "as an older debate wrote it");

    let (code, stdout, _) = verify(&sandbox, &sandbox.repo, &[&relative]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("written before records were sealed") && stdout.contains("renders again"), "{stdout}");
    let (code, _, _) = verify(&sandbox, &sandbox.repo, &[&relative, "--require-signature"]);
    assert_eq!(code, 3);

    // It reads back in a clone that never ran it, and is sealed when next written.
    let clone = sandbox.home.join("clone");
    git(&sandbox.home, &["clone", "-q", sandbox.repo.to_str().unwrap(), clone.to_str().unwrap()]);
    let home = sandbox.home.join("reviewer");
    let shown = sandbox.std_cmd_as(&clone, &home).args(["show", &relative, "--json"]).output().unwrap();
    assert!(shown.status.success(), "{}", text(&shown.stderr));
    let accepted = sandbox.std_cmd_as(&clone, &home).args(["accept", &relative]).output().unwrap();
    assert!(accepted.status.success(), "{}", text(&accepted.stderr));
    assert!(std::fs::read_to_string(clone.join(&relative)).unwrap().contains("<!-- debate:seal {"));

    // Edited by hand: refused, the section named.
    std::fs::write(&path, old.replacen("## Question\n\n", "## Question\n\nReally: ", 1)).unwrap();
    let (code, stdout, _) = verify(&sandbox, &sandbox.repo, &[&relative]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("edited since debate wrote it, in: Question"), "{stdout}");
}

/// The pull-request workflow's verify step (`debate ci github`), run by bash as the
/// runner runs it: in a clone of the pull request's branch, `origin`'s base branch
/// holding the allowed-signers file.
#[test]
fn the_pull_request_workflows_verify_step_checks_the_records_it_changes() {
    let sandbox = Sandbox::new();
    let (alice, _) = keys::alices(&sandbox);
    let out = sandbox.cmd().args(["ci", "github"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let workflow: Value = serde_saphyr::from_str(
        &std::fs::read_to_string(sandbox.repo.join(".github/workflows/debate-review.yml")).unwrap(),
    )
    .unwrap();
    let verify = &workflow["jobs"]["verify"];
    assert_eq!(verify["if"], "github.event_name == 'pull_request'");
    assert_eq!(verify["permissions"], serde_json::json!({"contents": "read"}));
    let script = verify["steps"].as_array().unwrap().last().unwrap()["run"].as_str().unwrap().to_string();
    assert!(script.contains("debate verify --all --since"), "{script}");

    std::fs::create_dir_all(sandbox.repo.join(".debate")).unwrap();
    keys::allowed_signers(&sandbox.repo.join(".debate/allowed_signers"), &[("alice@example.org", &alice)], None);
    git(&sandbox.repo, &["add", ".debate/allowed_signers"]);
    git(&sandbox.repo, &["commit", "-q", "-m", "who signs decisions"]);
    debated(&sandbox, "Should we use Redis or Postgres for caching?");
    git(&sandbox.repo, &["checkout", "-q", "-b", "decisions/events"]);
    let relative = debated(&sandbox, "Should we use Kafka or RabbitMQ for the order events?");
    let clone = sandbox.home.join("runner");
    git(
        &sandbox.home,
        &["clone", "-q", "-b", "decisions/events", sandbox.repo.to_str().unwrap(), clone.to_str().unwrap()],
    );
    git(&clone, &["config", "user.name", "Mallory"]);
    git(&clone, &["config", "user.email", "mallory@example.org"]);
    let temp = sandbox.home.join("runner-temp");
    std::fs::create_dir_all(&temp).unwrap();
    let step = || {
        let out = sandbox
            .bash(&clone)
            .env("BASE_REF", "main")
            .env("RUNNER_TEMP", &temp)
            .args(["-c", &script])
            .output()
            .unwrap();
        (out.status.code().unwrap(), text(&out.stdout), text(&out.stderr))
    };
    let (code, stdout, stderr) = step();
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(stdout.lines().count(), 1, "only the record the pull request changes: {stdout}");
    assert!(stdout.contains(&relative) && stdout.contains("signed by alice@example.org"), "{stdout}");

    // The pull request names its own author a signer: the base branch's file decides.
    let mallory = keys::ssh_key(&sandbox.home.join("keys"), "mallory", "");
    keys::allowed_signers(&clone.join(".debate/allowed_signers"), &[("mallory@example.org", &mallory)], None);
    keys::sign_with(&clone, &mallory, "Mallory", "mallory@example.org");
    let out = sandbox.std_cmd_as(&clone, &sandbox.home.join("mallory")).args(["accept", &relative]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    git(&clone, &["commit", "-q", "-a", "--no-gpg-sign", "-m", "mallory signs"]);
    let (code, stdout, _) = step();
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("its signer is unknown"), "{stdout}");

    // An edit by hand, committed to the pull request: the section named.
    git(&clone, &["reset", "-q", "--hard", "HEAD~2"]);
    let path = clone.join(&relative);
    let record = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, record.replacen("## Question\n\n", "## Question\n\nReally: ", 1)).unwrap();
    git(&clone, &["commit", "-q", "-a", "--no-gpg-sign", "-m", "a small fix"]);
    let (code, stdout, _) = step();
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("edited since it was sealed, in: Question"), "{stdout}");
}

/// A key held by an ssh-agent signs as its file does: byte for byte the signature
/// `ssh-keygen -Y sign` makes with the file, which `ssh-keygen -Y verify` accepts; the
/// agent's own protocol spoken by debate (for ed25519 keys only).
#[test]
fn a_key_held_by_an_ssh_agent_signs_as_its_file_does() {
    use debate::attest::{Signer, SshSignature, sshsig};
    let dir = tempfile::tempdir().unwrap();
    let key = keys::ssh_key(dir.path(), "id", "correct horse");
    let agent = Agent::start(dir.path());
    agent.add(&key, "correct horse");
    let message = b"sha256:0123456789abcdef";
    let unlocked = keys::ssh_key(dir.path(), "plain", "");
    let allowed = dir.path().join("allowed_signers");
    keys::allowed_signers(&allowed, &[("alice@example.org", &key), ("bob@example.org", &unlocked)], None);
    for file in [key.clone(), key.with_extension("pub")] {
        let signer = Signer::from_file(&file, Some(&agent.socket)).unwrap();
        let signature = sshsig::sign(&signer, message).unwrap();
        SshSignature::from_armored(&signature).unwrap().verify(&signer.public(), message).unwrap();
        let sig = dir.path().join("message.sig");
        std::fs::write(&sig, &signature).unwrap();
        let checked = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "printf %s '{}' | ssh-keygen -Y verify -f '{}' -I alice@example.org -n debate-record@v1 -s '{}'",
                String::from_utf8_lossy(message),
                allowed.display(),
                sig.display()
            ))
            .output()
            .unwrap();
        assert!(checked.status.success(), "{}", text(&checked.stderr));
    }
    // A public key whose private half is neither beside it nor in the agent is named; a
    // `.pub` beside its private key signs as ssh-keygen signs with it, without the agent.
    let alone = dir.path().join("elsewhere.pub");
    std::fs::copy(unlocked.with_extension("pub"), &alone).unwrap();
    let err = Signer::from_file(&alone, Some(&agent.socket)).err().unwrap().to_string();
    assert!(err.contains("not beside it") && err.contains("does not hold the key"), "{err}");
    assert!(Signer::from_file(&unlocked.with_extension("pub"), Some(&agent.socket)).is_ok());
    let without = sshsig::sign(&Signer::from_file(&unlocked, None).unwrap(), message).unwrap();
    let ssh_keygen = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "printf %s '{}' | ssh-keygen -Y sign -q -f '{}' -n debate-record@v1",
            String::from_utf8_lossy(message),
            unlocked.display()
        ))
        .output()
        .unwrap();
    assert_eq!(text(&ssh_keygen.stdout), without, "Ed25519 is deterministic: ssh-keygen's very bytes");
}

/// A record whose transcript is a file beside it is sealed with it; a record another
/// debate supersedes is sealed again, its author's signature kept.
#[test]
fn a_transcript_file_is_covered_and_a_superseded_record_is_sealed_again() {
    let sandbox = Sandbox::new();
    keys::alices(&sandbox);
    let first = debated(&sandbox, QUESTION);
    let out = sandbox
        .cmd()
        .env("DEBATE_RECORD_TRANSCRIPT", "sidecar")
        .args(["--offline", "--no-checkpoints", "-q", "-r", "1", "--supersedes", &first])
        .arg("Should we cache product pages in Redis after all?")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (code, document) = verified(&sandbox, &["--all"]);
    assert_eq!((code, document["verified"].as_u64()), (0, Some(2)), "{document:#}");
    let superseded = document["records"].as_array().unwrap().iter().find(|r| r["path"] == first.as_str()).unwrap();
    assert_eq!(superseded["signature"]["act"], "superseded");
    assert_eq!(superseded["earlier"][0]["act"], "recorded");

    let sidecar = std::fs::read_dir(sandbox.repo.join("docs/decisions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".transcript.md"))
        .expect("a transcript file");
    let transcript = std::fs::read_to_string(&sidecar).unwrap();
    std::fs::write(&sidecar, transcript.replacen("**Performance Advocate", "**Cost Control", 1)).unwrap();
    let (code, stdout, _) = verify(&sandbox, &sandbox.repo, &["--all"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("edited since it was sealed, in: the transcript file"), "{stdout}");
}
