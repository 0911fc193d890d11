//! Which repository a tool works in: the `repository` argument, else the client's first
//! root, else the directory `debate mcp` runs in. The argument is untrusted input: a path
//! with `..`, one that is no git work tree, or one (links resolved) outside every root
//! the client named is refused before anything is read or written.

use std::path::{Component, Path, PathBuf};

use crate::repo;

/// The client's roots as directories: its `file://` URIs, each percent-decoded; any
/// other URI names no directory here and is left out.
pub fn directories(uris: &[String]) -> Vec<PathBuf> {
    uris.iter().filter_map(|uri| file_path(uri)).collect()
}

fn file_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file:///path`, or `file://host/path` where only this machine's name means here.
    let path = match rest.find('/') {
        Some(0) => rest,
        Some(at) if matches!(&rest[..at], "localhost" | "127.0.0.1") => &rest[at..],
        _ => return None,
    };
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let bytes: Vec<u8> = percent_encoding::percent_decode_str(path).collect();
    crate::platform::path::from_uri(bytes)
}

/// The work tree's root (canonical) the tool works in, or why none: `given` (absolute, or
/// relative to the first root, else to `here`), else the first root, else `here`; within
/// one of `roots` when the client named any.
pub fn choose(given: Option<&str>, roots: &[PathBuf], here: &Path) -> Result<PathBuf, String> {
    let base = roots.first().map_or(here, PathBuf::as_path);
    let wanted = match given {
        None => base.to_path_buf(),
        Some(given) => {
            let given = given.trim();
            if given.is_empty() {
                return Err("repository is empty: give a path, or leave it out for the default".into());
            }
            let path = Path::new(given);
            if path.components().any(|c| c == Component::ParentDir) {
                return Err(format!("repository {given:?} has `..` in it: give the work tree's own path"));
            }
            base.join(path)
        }
    };
    let shown = wanted.display().to_string();
    let dir = dunce::canonicalize(&wanted).map_err(|err| format!("repository {shown}: {err}"))?;
    let roots: Vec<PathBuf> = roots.iter().map(|root| repo::canonical(root)).collect();
    within(&dir, &roots)?;
    let root = match repo::work_tree(&dir) {
        Ok(Some(root)) => repo::canonical(&root),
        Ok(None) => return Err(format!("repository {shown} is no git work tree: the record is committed into one")),
        Err(err) => return Err(format!("repository {shown}: {err}")),
    };
    // The work tree around a directory inside a root may reach above it.
    within(&root, &roots)?;
    Ok(root)
}

/// Refuse `dir` outside every one of `roots` (canonical), when the client named any.
fn within(dir: &Path, roots: &[PathBuf]) -> Result<(), String> {
    if roots.is_empty() || roots.iter().any(|allowed| dir.starts_with(allowed)) {
        return Ok(());
    }
    let named: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
    Err(format!(
        "repository {} is outside the client's roots ({}): debate works only where the client lets it",
        dir.display(),
        named.join(", ")
    ))
}

/// A file `given` names inside the work tree `root` (relative to it, or absolute), links
/// resolved; refused with `..` in it, missing, or once resolved outside the work tree.
pub fn inside(root: &Path, given: &str) -> Result<PathBuf, String> {
    let path = Path::new(given.trim());
    if path.as_os_str().is_empty() {
        return Err("a context file's path is empty".into());
    }
    if path.components().any(|c| c == Component::ParentDir) {
        return Err(format!("the context file {given:?} has `..` in it: give its path in the repository"));
    }
    let file = dunce::canonicalize(root.join(path)).map_err(|err| format!("the context file {given:?}: {err}"))?;
    match file.starts_with(root) {
        true => Ok(file),
        false => Err(format!("the context file {given:?} is outside the repository {}", root.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git_init(dir: &Path) {
        git2::Repository::init(dir).unwrap();
    }

    #[test]
    fn file_uris_are_directories_and_others_are_not() {
        let uris = ["file:///home/me/my%20project", "file://localhost/srv/x", "https://example.com/x", "file://far/x"]
            .map(String::from);
        assert_eq!(directories(&uris), [PathBuf::from("/home/me/my project"), PathBuf::from("/srv/x")]);
    }

    #[test]
    fn the_argument_then_the_first_root_then_here() {
        let dir = tempfile::tempdir().unwrap();
        let (one, two) = (dir.path().join("one"), dir.path().join("two"));
        for repo in [&one, &two] {
            std::fs::create_dir_all(repo.join("src")).unwrap();
            git_init(repo);
        }
        let canonical = |p: &Path| repo::canonical(p);
        assert_eq!(choose(None, &[], &two).unwrap(), canonical(&two));
        assert_eq!(choose(None, &[one.clone(), two.clone()], &two).unwrap(), canonical(&one));
        assert_eq!(
            choose(Some("src"), std::slice::from_ref(&one), &two).unwrap(),
            canonical(&one),
            "a directory in a work tree"
        );
        let named = two.display().to_string();
        assert_eq!(choose(Some(&named), &[one.clone(), two.clone()], &one).unwrap(), canonical(&two));
    }

    #[test]
    fn dot_dot_a_plain_directory_and_a_link_out_of_the_roots_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (inside, outside, plain) = (dir.path().join("in"), dir.path().join("out"), dir.path().join("plain"));
        for repo in [&inside, &outside] {
            std::fs::create_dir_all(repo).unwrap();
            git_init(repo);
        }
        std::fs::create_dir_all(&plain).unwrap();
        std::os::unix::fs::symlink(&outside, inside.join("link")).unwrap();
        let roots = [inside.clone()];
        assert!(choose(Some("../out"), &roots, &inside).unwrap_err().contains("`..`"));
        assert!(choose(Some("link"), &roots, &inside).unwrap_err().contains("outside the client's roots"));
        let plain = plain.display().to_string();
        assert!(choose(Some(&plain), &[], &inside).unwrap_err().contains("no git work tree"));
        assert!(choose(Some(" "), &roots, &inside).unwrap_err().contains("empty"));
        assert!(choose(Some("missing"), &roots, &inside).unwrap_err().contains("missing"));
    }

    #[test]
    fn a_context_file_must_be_in_the_repository() {
        let dir = tempfile::tempdir().unwrap();
        let root = repo::canonical(&dir.path().join("repo"));
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("docs/notes.md"), "notes").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "secret").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), root.join("docs/out.md")).unwrap();
        assert_eq!(inside(&root, "docs/notes.md").unwrap(), root.join("docs/notes.md"));
        assert!(inside(&root, "../secret.txt").unwrap_err().contains("`..`"));
        assert!(inside(&root, "docs/out.md").unwrap_err().contains("outside the repository"));
        assert!(inside(&root, &dir.path().join("secret.txt").display().to_string()).is_err());
        assert!(inside(&root, "").is_err());
    }
}
