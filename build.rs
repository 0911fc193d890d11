//! Which of the outside tools some tests drive are on PATH. A test whose tool is missing
//! is built ignored (`cfg(missing_chromium)`, `missing_npm`, `missing_adr`), so `cargo
//! test` reports it as not run instead of `ok`; under CI (`CI` set, not `false` or `0`)
//! nothing is marked, and a missing tool fails its test.
//!
//! And the commit a published crate was packaged from: `cargo publish` records it in
//! `.cargo_vcs_info.json`, and the release is tagged at that commit (docs/guide.md,
//! "Making a release"), so `cargo install debate-cli` builds a binary whose `debate ci
//! github` installs the release binary with the action pinned to it (src/app/commands/ci.rs),
//! as the release's own binaries do (release.yml sets `DEBATE_RELEASE_SHA`).

/// Each cfg and the tools it needs, each one of several names.
const TOOLS: &[(&str, &[&[&str]])] = &[
    ("missing_chromium", &[&["chromium", "chromium-browser"], &["chromedriver"]]),
    ("missing_npm", &[&["npm"]]),
    ("missing_adr", &[&["adr"]]),
];

fn main() {
    println!("cargo::rerun-if-env-changed=DEBATE_RELEASE_SHA");
    if std::env::var_os("DEBATE_RELEASE_SHA").is_none()
        && let Some(commit) = packaged_from()
    {
        println!("cargo::rustc-env=DEBATE_RELEASE_SHA={commit}");
    }
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-env-changed=CI");
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = |name: &&str| std::env::split_paths(&path).any(|dir| dir.join(name).is_file());
    for (cfg, needs) in TOOLS {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        if !ci && !needs.iter().all(|names| names.iter().any(found)) {
            println!("cargo::rustc-cfg={cfg}");
        }
    }
}

/// The commit `.cargo_vcs_info.json` names, when the crate was packaged from a clean
/// checkout (a crate from crates.io); none in a checkout of the repository.
fn packaged_from() -> Option<String> {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")?;
    let info = std::fs::read_to_string(std::path::Path::new(&dir).join(".cargo_vcs_info.json")).ok()?;
    let compact: String = info.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.contains("\"dirty\":true") {
        return None;
    }
    let at = compact.find("\"sha1\":\"")? + "\"sha1\":\"".len();
    let commit = compact.get(at..at + 40)?;
    commit.chars().all(|c| c.is_ascii_hexdigit()).then(|| commit.to_string())
}
