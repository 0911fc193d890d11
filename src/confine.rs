//! Confinement: the repositories a door that serves someone else (an agent's MCP client)
//! may touch, asked by every tool and resource before anything is read or written. The
//! door's own allowed set — the repository it was started in, or the directories it was
//! given — is narrowed, never widened, by the roots a client sends; a root that names no
//! directory on this machine narrows it to nothing. A path a caller gives is untrusted
//! input: `..`, a link out, a work tree reaching above what is allowed are refused, and a
//! relative path is the repository's, never the server's working directory's.

use std::path::{Component, Path, PathBuf};

use crate::repo;

/// The directories a door may touch (canonical); a repository is touched when its work
/// tree is within one of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confinement {
    allowed: Vec<PathBuf>,
    /// Why the set is empty, when a client's roots emptied it.
    emptied: Option<String>,
}

impl Confinement {
    /// The door's own set: each of `allow`, or else the repository around `here` (`here`
    /// itself outside any). A directory that does not exist is refused.
    pub fn new(allow: &[PathBuf], here: &Path) -> Result<Confinement, String> {
        let allowed = match allow {
            [] => vec![repo::canonical(&repo::work_tree(here).ok().flatten().unwrap_or_else(|| here.to_path_buf()))],
            given => given
                .iter()
                .map(|dir| match here.join(dir).is_dir() {
                    true => Ok(repo::canonical(&here.join(dir))),
                    false => Err(format!("--allow {}: no such directory", dir.display())),
                })
                .collect::<Result<_, _>>()?,
        };
        Ok(Confinement { allowed, emptied: None })
    }

    /// The directories allowed, the default repository's first.
    pub fn allowed(&self) -> &[PathBuf] {
        &self.allowed
    }

    /// This set narrowed by a client's roots (URIs): what lies within both. A root that
    /// names no directory here (a remote host, another scheme) adds nothing, so roots
    /// that name none leave nothing allowed. The roots' order is kept: the first is the
    /// default repository.
    pub fn narrowed(&self, roots: &[String]) -> Confinement {
        let mut allowed: Vec<PathBuf> = Vec::new();
        for root in roots.iter().filter_map(|uri| file_path(uri)).map(|dir| repo::canonical(&dir)) {
            for dir in &self.allowed {
                let within = match (root.starts_with(dir), dir.starts_with(&root)) {
                    (true, _) => root.clone(),
                    (_, true) => dir.clone(),
                    _ => continue,
                };
                if !allowed.contains(&within) {
                    allowed.push(within);
                }
            }
        }
        let emptied = allowed.is_empty().then(|| {
            format!(
                "the client's roots name no directory this server may touch (roots: {}; allowed: {})",
                roots.join(", "),
                shown(&self.allowed)
            )
        });
        Confinement { allowed, emptied }
    }

    /// `dir` (canonical), or why it is outside.
    pub fn admit(&self, dir: &Path) -> Result<(), String> {
        if let Some(why) = &self.emptied {
            return Err(format!("{why}: debate works only where both allow it"));
        }
        match self.allowed.iter().any(|allowed| dir.starts_with(allowed)) {
            true => Ok(()),
            false => Err(format!(
                "{} is outside what this server may touch ({}): start `debate mcp` there, or allow it \
                 with `debate mcp --allow DIR`",
                dir.display(),
                shown(&self.allowed)
            )),
        }
    }

    /// The work tree's root (canonical) a call works in: `given` (absolute, or relative to
    /// the first allowed directory), else that directory; refused with `..`, outside what
    /// is allowed (links resolved), or no git work tree.
    pub fn repository(&self, given: Option<&str>) -> Result<PathBuf, String> {
        if let Some(why) = &self.emptied {
            return Err(format!("{why}: debate works only where both allow it"));
        }
        let base = self.allowed.first().ok_or("this server may touch no directory")?;
        let wanted = match given {
            None => base.clone(),
            Some(given) => base.join(relative("repository", given)?),
        };
        let shown = wanted.display().to_string();
        let dir = dunce::canonicalize(&wanted).map_err(|err| format!("repository {shown}: {err}"))?;
        self.admit(&dir).map_err(|why| format!("repository {why}"))?;
        let root = match repo::work_tree(&dir) {
            Ok(Some(root)) => repo::canonical(&root),
            Ok(None) => {
                return Err(format!("repository {shown} is no git work tree: the record is committed into one"));
            }
            Err(err) => return Err(format!("repository {shown}: {err}")),
        };
        // The work tree around a directory that is allowed may reach above it.
        self.admit(&root).map_err(|why| format!("repository {why}"))?;
        Ok(root)
    }

    /// The repository a record's path names when no repository is given: the work tree
    /// around an absolute path, checked as `repository` checks one; `None` for a debate
    /// id or a relative path (the call's repository holds it).
    pub fn repository_of_record(&self, target: &str) -> Option<Result<PathBuf, String>> {
        let path = Path::new(target.trim());
        if !is_record_path(target) || !path.is_absolute() {
            return None;
        }
        let dir = path.parent().unwrap_or(path);
        let around = repo::work_tree(dir).ok().flatten().unwrap_or_else(|| dir.to_path_buf());
        Some(self.repository(Some(&around.display().to_string())))
    }
}

/// Whether a tool's `id` names a record by its path rather than a debate by its id.
pub fn is_record_path(target: &str) -> bool {
    target.contains('/') || target.trim().ends_with(".md")
}

/// A record's path as the call names it, made absolute in the repository `root`: a
/// relative path is the repository's, never the working directory's; `..`, or a path
/// (links resolved) outside the repository, is refused.
pub fn record_in(root: &Path, target: &str) -> Result<String, String> {
    let path = Path::new(target.trim());
    let joined = match path.is_absolute() {
        true => path.to_path_buf(),
        false => root.join(relative("the record's path", target)?),
    };
    let resolved = dunce::canonicalize(&joined).unwrap_or_else(|_| joined.clone());
    match resolved.starts_with(root) {
        true => Ok(joined.display().to_string()),
        false => Err(format!("the record {target} is outside the repository {}", root.display())),
    }
}

/// A file `given` names inside the work tree `root` (relative to it, or absolute), links
/// resolved; refused with `..` in it, missing, or once resolved outside the work tree.
pub fn file_in(root: &Path, given: &str) -> Result<PathBuf, String> {
    let what = format!("the context file {given:?}");
    let path = Path::new(given.trim());
    if path.as_os_str().is_empty() {
        return Err("a context file's path is empty".into());
    }
    let path = match path.is_absolute() {
        true => path.to_path_buf(),
        false => relative(&what, given)?,
    };
    if path.components().any(|c| c == Component::ParentDir) {
        return Err(format!("{what} has `..` in it: give its path in the repository"));
    }
    let file = dunce::canonicalize(root.join(path)).map_err(|err| format!("{what}: {err}"))?;
    match file.starts_with(root) {
        true => Ok(file),
        false => Err(format!("{what} is outside the repository {}", root.display())),
    }
}

/// `given` as a path with no `..` in it, or why not.
fn relative(what: &str, given: &str) -> Result<PathBuf, String> {
    let given = given.trim();
    if given.is_empty() {
        return Err(format!("{what} is empty: give a path, or leave it out for the default"));
    }
    let path = Path::new(given);
    match path.components().any(|c| c == Component::ParentDir) {
        true => Err(format!("{what} {given:?} has `..` in it: give the path itself")),
        false => Ok(path.to_path_buf()),
    }
}

fn shown(dirs: &[PathBuf]) -> String {
    match dirs {
        [] => "nothing".into(),
        dirs => dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", "),
    }
}

/// The directory a `file://` URI names on this machine, percent-decoded: `file:///path`,
/// or `file://localhost/path`; any other host or scheme names none here.
fn file_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let path = match rest.find('/') {
        Some(0) => rest,
        Some(at) if matches!(&rest[..at], "localhost" | "127.0.0.1") => &rest[at..],
        _ => return None,
    };
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let bytes: Vec<u8> = percent_encoding::percent_decode_str(path).collect();
    crate::platform::path::from_uri(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git_init(dir: &Path) -> PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        git2::Repository::init(dir).unwrap();
        repo::canonical(dir)
    }

    #[test]
    fn file_uris_name_directories_here_and_nothing_else_does() {
        assert_eq!(file_path("file:///home/me/my%20project"), Some(PathBuf::from("/home/me/my project")));
        assert_eq!(file_path("file://localhost/srv/x"), Some(PathBuf::from("/srv/x")));
        assert_eq!(file_path("https://example.com/x"), None);
        assert_eq!(file_path("file://far/x"), None);
    }

    #[test]
    fn the_servers_own_set_is_the_repository_it_started_in_or_what_it_was_given() {
        let dir = tempfile::tempdir().unwrap();
        let a = git_init(&dir.path().join("a"));
        std::fs::create_dir_all(a.join("src")).unwrap();
        assert_eq!(Confinement::new(&[], &a.join("src")).unwrap().allowed(), std::slice::from_ref(&a));
        let plain = repo::canonical(dir.path());
        assert_eq!(Confinement::new(&[], &plain).unwrap().allowed(), std::slice::from_ref(&plain));
        let given = Confinement::new(&[a.join("src"), plain.clone()], &a).unwrap();
        assert_eq!(given.allowed(), [a.join("src"), plain]);
        assert!(Confinement::new(&[dir.path().join("missing")], &a).unwrap_err().contains("no such directory"));
    }

    #[test]
    fn roots_narrow_and_never_widen_and_roots_from_elsewhere_narrow_to_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let parent = repo::canonical(dir.path());
        let (a, b) = (git_init(&parent.join("a")), git_init(&parent.join("b")));
        let own = Confinement::new(std::slice::from_ref(&a), &a).unwrap();
        let uri = |p: &Path| format!("file://{}", p.display());
        // A root above what is allowed narrows nothing more; one beside it adds nothing.
        assert_eq!(own.narrowed(&[uri(&parent), uri(&b)]).allowed(), std::slice::from_ref(&a));
        let wide = Confinement::new(std::slice::from_ref(&parent), &parent).unwrap();
        assert_eq!(wide.narrowed(&[uri(&b), uri(&a)]).allowed(), [b.clone(), a.clone()], "the roots' order");
        let remote = own.narrowed(&[format!("file://far-host{}", a.display()), "https://example.com/a".into()]);
        assert!(remote.allowed().is_empty());
        assert!(remote.repository(None).unwrap_err().contains("the client's roots name no directory"));
        assert!(remote.admit(&a).is_err());
    }

    #[test]
    fn a_repository_is_given_or_the_first_allowed_and_nothing_outside() {
        let dir = tempfile::tempdir().unwrap();
        let parent = repo::canonical(dir.path());
        let (a, b) = (git_init(&parent.join("a")), git_init(&parent.join("b")));
        std::fs::create_dir_all(a.join("src")).unwrap();
        std::fs::create_dir_all(parent.join("plain")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&b, a.join("link")).unwrap();
        let own = Confinement::new(std::slice::from_ref(&a), &a).unwrap();
        assert_eq!(own.repository(None).unwrap(), a);
        assert_eq!(own.repository(Some("src")).unwrap(), a, "a directory in the work tree");
        assert!(own.repository(Some(&b.display().to_string())).unwrap_err().contains("outside what this server"));
        assert!(own.repository(Some("../b")).unwrap_err().contains("`..`"));
        #[cfg(unix)]
        assert!(own.repository(Some("link")).unwrap_err().contains("outside what this server"));
        assert!(own.repository(Some(" ")).unwrap_err().contains("empty"));
        assert!(own.repository(Some("missing")).unwrap_err().contains("missing"));
        let wide = Confinement::new(std::slice::from_ref(&parent), &parent).unwrap();
        assert_eq!(wide.repository(Some("b")).unwrap(), b);
        assert!(wide.repository(None).unwrap_err().contains("no git work tree"));
        // A directory allowed inside a work tree does not let the work tree in.
        let inner = Confinement::new(&[a.join("src")], &a).unwrap();
        assert!(inner.repository(None).unwrap_err().contains("outside what this server"));
    }

    #[test]
    fn a_records_path_is_the_repositorys() {
        let dir = tempfile::tempdir().unwrap();
        let a = git_init(&dir.path().join("a"));
        std::fs::create_dir_all(a.join("docs/decisions")).unwrap();
        std::fs::write(a.join("docs/decisions/0001-x.md"), "# X\n").unwrap();
        let record = a.join("docs/decisions/0001-x.md").display().to_string();
        assert_eq!(record_in(&a, "docs/decisions/0001-x.md").unwrap(), record);
        assert_eq!(record_in(&a, &record).unwrap(), record);
        assert!(record_in(&a, "../a/docs/decisions/0001-x.md").unwrap_err().contains("`..`"));
        assert!(record_in(&a, "/etc/passwd").unwrap_err().contains("outside the repository"));
        let own = Confinement::new(std::slice::from_ref(&a), &a).unwrap();
        assert_eq!(own.repository_of_record(&record), Some(Ok(a.clone())));
        assert_eq!(own.repository_of_record("docs/decisions/0001-x.md"), None);
        assert_eq!(own.repository_of_record("DEB-abc123"), None);
        assert!(is_record_path("0001-x.md") && !is_record_path("deb-abc1"));
    }

    #[test]
    fn a_context_file_must_be_in_the_repository() {
        let dir = tempfile::tempdir().unwrap();
        let root = repo::canonical(&dir.path().join("repo"));
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("docs/notes.md"), "notes").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "secret").unwrap();
        assert_eq!(file_in(&root, "docs/notes.md").unwrap(), root.join("docs/notes.md"));
        assert!(file_in(&root, "../secret.txt").unwrap_err().contains("`..`"));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("secret.txt"), root.join("docs/out.md")).unwrap();
            assert!(file_in(&root, "docs/out.md").unwrap_err().contains("outside the repository"));
        }
        assert!(file_in(&root, &dir.path().join("secret.txt").display().to_string()).is_err());
        assert!(file_in(&root, "").is_err());
    }
}
