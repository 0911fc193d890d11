//! The pull request's branch, fetched and checked out, and pushed back, with the `git`
//! command: Actions gives git its credentials (`actions/checkout` keeps them in the
//! repository's config), which libgit2 does not read.

use std::path::Path;
use std::process::Command;

use super::{GithubError, Result};
use crate::text::secrets;

fn git(root: &Path, args: &[&str]) -> Result<String> {
    let failed = |message: String| GithubError::Git { args: args.join(" "), message: secrets::gate(&message) };
    let out = Command::new("git").args(args).current_dir(root).output().map_err(|err| failed(err.to_string()))?;
    if !out.status.success() {
        return Err(failed(String::from_utf8_lossy(&out.stderr).trim().to_string()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Fetch `head` and `base` from `origin` and check `head` out as a local branch of the
/// same name, at the tip the pull request has now.
pub fn check_out(root: &Path, head: &str, base: &str) -> Result<()> {
    let spec = |branch: &str| format!("+refs/heads/{branch}:refs/remotes/origin/{branch}");
    git(root, &["fetch", "--quiet", "origin", &spec(head), &spec(base)])?;
    git(root, &["checkout", "--quiet", "-B", head, &format!("refs/remotes/origin/{head}")])?;
    Ok(())
}

/// The files the pull request changes: what `head` has that its merge base with `base`
/// does not, as paths in the repository.
pub fn changed(root: &Path, base: &str) -> Result<Vec<String>> {
    let range = format!("refs/remotes/origin/{base}...HEAD");
    let names = git(root, &["diff", "--name-only", "--no-renames", "-z", &range, "--"])?;
    Ok(names.split('\0').filter(|n| !n.is_empty()).map(str::to_string).collect())
}

/// Push the checked-out `head` to the pull request's branch.
pub fn push(root: &Path, head: &str) -> Result<()> {
    git(root, &["push", "--quiet", "origin", &format!("HEAD:refs/heads/{head}")])?;
    Ok(())
}

/// The commit HEAD is at.
pub fn head(root: &Path) -> Result<String> {
    Ok(git(root, &["rev-parse", "HEAD"])?.trim().to_string())
}
