//! The one way debate reads and writes files in a repository's work tree: a relative
//! path of plain names, every directory on the way opened without following a symbolic
//! link, and the file itself opened the same way, where it is opened (a link put in
//! place after a path was planned is refused just the same). A file appears or is
//! replaced whole, new files take the user's umask, replaced ones keep their mode, and
//! every byte written passes the secret gate first.

use std::io::{ErrorKind, Write};
use std::path::{Component, Path, PathBuf};

use crate::platform::dir::{Dir, Entry};
use crate::record::{RecordError, Result};
use crate::text::secrets;

/// A repository's work tree, opened once at its root.
pub struct WorkTree {
    root: PathBuf,
    dir: Dir,
}

/// How far a walk down a relative path's directories got.
struct Walked {
    /// The deepest directory that exists, open.
    dir: Dir,
    /// Its path under the root.
    at: PathBuf,
    /// Every directory of the path exists (or was made).
    whole: bool,
}

/// The largest file read whole: a record of a 20-round debate is well under it, and a
/// hostile one costs no more.
pub const MAX_FILE_BYTES: usize = 16 << 20;

impl WorkTree {
    /// The work tree at `root`; the root itself is the user's own directory, links and all.
    pub fn open(root: &Path) -> Result<WorkTree> {
        let dir = Dir::open(root).map_err(|source| write_error(root, source))?;
        Ok(WorkTree { root: root.to_path_buf(), dir })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file's bytes, or `None` when it does not exist; a link on the way is an error.
    pub fn read(&self, relative: &Path) -> Result<Option<Vec<u8>>> {
        let (parent, name) = self.split(relative)?;
        let Walked { dir, whole: true, .. } = self.walk(parent, false)? else { return Ok(None) };
        let file = match dir.open_file(name) {
            Ok(file) => file,
            Err(err) if err.kind() == ErrorKind::NotFound => return Ok(None),
            Err(err) => return Err(self.refused(&dir, relative, err)),
        };
        let bytes =
            crate::text::read_bounded(file, MAX_FILE_BYTES).map_err(|source| self.read_error(relative, source))?;
        Ok(Some(bytes))
    }

    /// The file's bytes; a missing file is an error.
    pub fn read_existing(&self, relative: &Path) -> Result<Vec<u8>> {
        self.read(relative)?.ok_or_else(|| self.read_error(relative, ErrorKind::NotFound.into()))
    }

    /// Every existing directory of `directory` is a real one (no link), and the deepest
    /// that exists takes new files.
    pub fn check_directory(&self, directory: &Path) -> Result<()> {
        let Walked { dir, at, .. } = self.walk(directory, false)?;
        dir.check_writable().map_err(|source| self.write_error(&at, source))
    }

    /// Create the file at `relative` with `bytes`, never over an existing file (an
    /// existing one is `Taken`), making its directories as needed.
    pub fn create(&self, relative: &Path, bytes: &[u8]) -> Result<()> {
        let (parent, name) = self.split(relative)?;
        let Walked { dir, .. } = self.walk(parent, true)?;
        let temporary = self.temporary(&dir, relative, name, bytes, None)?;
        let linked = dir.link(&temporary, name);
        let _ = dir.remove_file(&temporary);
        match linked {
            Ok(()) => self.sync(&dir, relative),
            Err(err) if err.kind() == ErrorKind::AlreadyExists => match self.refused(&dir, relative, err) {
                link @ RecordError::Symlink { .. } => Err(link),
                _ => Err(RecordError::Taken(self.root.join(relative))),
            },
            Err(err) => Err(self.write_error(relative, err)),
        }
    }

    /// Write `bytes` to the file at `relative`, whole: a new file, or over a regular file
    /// (keeping its mode), never through or over a link.
    pub fn replace(&self, relative: &Path, bytes: &[u8]) -> Result<()> {
        let (parent, name) = self.split(relative)?;
        let Walked { dir, .. } = self.walk(parent, true)?;
        let keep = match dir.entry(name) {
            Ok(Entry::File(permissions)) => Some(permissions),
            Ok(other) => return Err(self.not_a_file(relative, other)),
            Err(err) if err.kind() == ErrorKind::NotFound => None,
            Err(err) => return Err(self.write_error(relative, err)),
        };
        let temporary = self.temporary(&dir, relative, name, bytes, keep.as_ref())?;
        if let Err(err) = dir.rename(&temporary, name) {
            let _ = dir.remove_file(&temporary);
            return Err(self.write_error(relative, err));
        }
        self.sync(&dir, relative)
    }

    /// Remove the regular file at `relative`, if it is there; never a link or what it
    /// points to.
    pub fn remove(&self, relative: &Path) -> Result<()> {
        let (parent, name) = self.split(relative)?;
        let Walked { dir, whole: true, .. } = self.walk(parent, false)? else { return Ok(()) };
        match dir.entry(name) {
            Ok(Entry::File(_)) => {}
            Ok(other) => return Err(self.not_a_file(relative, other)),
            Err(err) if err.kind() == ErrorKind::NotFound => return Ok(()),
            Err(err) => return Err(self.write_error(relative, err)),
        }
        dir.remove_file(name).map_err(|err| self.write_error(relative, err))?;
        self.sync(&dir, relative)
    }

    /// Each file as it was found, after a command that wrote them could not commit:
    /// nothing of it is left behind. Best effort: the command's own error is the one to
    /// report.
    pub fn put_back(&self, found: &[(&Path, &[u8])]) {
        for (relative, bytes) in found {
            let _ = self.replace(relative, bytes);
        }
    }

    /// A new file beside `name` holding `bytes`, synced: created as the system makes new
    /// files, or with the permissions of the file it replaces (`keep`).
    fn temporary(
        &self,
        dir: &Dir,
        relative: &Path,
        name: &str,
        bytes: &[u8],
        keep: Option<&std::fs::Permissions>,
    ) -> Result<String> {
        // Unique by process and chance; creating it exclusively refuses a name that is
        // taken all the same.
        let temporary = format!(".{name}.{}-{:08x}.partial", std::process::id(), getrandom::u32().unwrap_or_default());
        let mut file = dir.create_new(&temporary, keep).map_err(|err| self.write_error(relative, err))?;
        let gated = secrets::gate_bytes(bytes);
        let written = file.write_all(&gated).and_then(|_| file.sync_all());
        drop(file);
        if let Err(source) = written {
            let _ = dir.remove_file(&temporary);
            return Err(self.write_error(relative, source));
        }
        Ok(temporary)
    }

    fn sync(&self, dir: &Dir, relative: &Path) -> Result<()> {
        dir.sync().map_err(|err| self.write_error(relative, err))
    }

    /// The directory part and the file name of a relative path of plain names.
    fn split<'p>(&self, relative: &'p Path) -> Result<(&'p Path, &'p str)> {
        let mut names = names(relative, &self.root)?;
        let name = names.pop().ok_or_else(|| RecordError::Outside(self.root.join(relative)))?;
        Ok((relative.parent().unwrap_or(Path::new("")), name))
    }

    /// Open each directory of `parent` in turn, refusing links; `create` makes the
    /// missing ones, else the walk stops at the first that is missing.
    fn walk(&self, parent: &Path, create: bool) -> Result<Walked> {
        let mut dir = self.dir.try_clone().map_err(|source| self.write_error(parent, source))?;
        let mut at = PathBuf::new();
        for name in names(parent, &self.root)? {
            let next = at.join(name);
            let mut opened = dir.open_dir(name);
            if matches!(&opened, Err(err) if err.kind() == ErrorKind::NotFound) {
                if !create {
                    return Ok(Walked { dir, at, whole: false });
                }
                match dir.make_dir(name) {
                    Ok(()) => {}
                    Err(err) if err.kind() == ErrorKind::AlreadyExists => {}
                    Err(err) => return Err(self.write_error(&next, err)),
                }
                opened = dir.open_dir(name);
            }
            dir = opened.map_err(|err| self.refused(&dir, &next, err))?;
            at = next;
        }
        Ok(Walked { dir, at, whole: true })
    }

    /// Why `relative` (whose last part is in `dir`) could not be opened: a link, a file
    /// where a directory was wanted, or the system's own reason.
    fn refused(&self, dir: &Dir, relative: &Path, err: std::io::Error) -> RecordError {
        let path = self.root.join(relative);
        let name = relative.file_name().and_then(|name| name.to_str()).unwrap_or_default();
        let not_a_directory = err.kind() == ErrorKind::NotADirectory;
        match dir.entry(name) {
            Ok(Entry::Link(target)) => RecordError::Symlink { path, target },
            Ok(Entry::Directory) if !not_a_directory => write_error(&path, err),
            Ok(_) if not_a_directory => RecordError::NotADirectory(path),
            Ok(_) => RecordError::NotAFile(path),
            Err(_) => write_error(&path, err),
        }
    }

    /// What `relative` is, where a regular file was wanted.
    fn not_a_file(&self, relative: &Path, found: Entry) -> RecordError {
        let path = self.root.join(relative);
        match found {
            Entry::Link(target) => RecordError::Symlink { path, target },
            _ => RecordError::NotAFile(path),
        }
    }

    fn write_error(&self, relative: &Path, source: std::io::Error) -> RecordError {
        write_error(&self.root.join(relative), source)
    }

    fn read_error(&self, relative: &Path, source: std::io::Error) -> RecordError {
        match source.kind() {
            ErrorKind::FileTooLarge => RecordError::TooLarge { path: self.root.join(relative), limit: MAX_FILE_BYTES },
            _ => RecordError::Read { path: self.root.join(relative), source },
        }
    }
}

fn write_error(path: &Path, source: std::io::Error) -> RecordError {
    RecordError::Write { path: path.to_path_buf(), source }
}

/// The plain names of `relative`; one that is not a plain name (or is one this system
/// would take for something else: a device, a stream), or is a git directory (this
/// repository's or a nested one's), refuses the whole path.
fn names<'p>(relative: &'p Path, root: &Path) -> Result<Vec<&'p str>> {
    relative
        .components()
        .filter(|c| *c != Component::CurDir)
        .map(|c| match c {
            Component::Normal(name) => match name.to_str() {
                Some(name) if name.eq_ignore_ascii_case(".git") => Err(RecordError::InsideGit(root.join(relative))),
                Some(name) if crate::platform::dir::holds_name(name) => Ok(name),
                _ => Err(RecordError::Outside(root.join(relative))),
            },
            _ => Err(RecordError::Outside(root.join(relative))),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{PermissionsExt, symlink};

    use super::*;

    fn tree() -> (tempfile::TempDir, tempfile::TempDir, WorkTree) {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let tree = WorkTree::open(root.path()).unwrap();
        (root, outside, tree)
    }

    #[test]
    fn files_are_created_whole_and_never_over_another() {
        let (root, _outside, tree) = tree();
        tree.create(Path::new("docs/decisions/a.md"), b"first").unwrap();
        assert_eq!(std::fs::read(root.path().join("docs/decisions/a.md")).unwrap(), b"first");
        let again = tree.create(Path::new("docs/decisions/a.md"), b"second");
        assert!(matches!(again, Err(RecordError::Taken(_))), "{again:?}");
        tree.replace(Path::new("docs/decisions/a.md"), b"second").unwrap();
        assert_eq!(tree.read(Path::new("docs/decisions/a.md")).unwrap().unwrap(), b"second");
        let left: Vec<_> = std::fs::read_dir(root.path().join("docs/decisions")).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file is left behind");
    }

    #[test]
    fn nothing_inside_a_git_directory_is_read_or_written() {
        let (root, _outside, tree) = tree();
        std::fs::create_dir_all(root.path().join(".git")).unwrap();
        std::fs::write(root.path().join(".git/x.md"), "git's own").unwrap();
        for relative in [".git/x.md", ".GIT/x.md", "vendor/lib/.git/config", "docs/.git"] {
            let relative = Path::new(relative);
            for result in [tree.create(relative, b"x"), tree.replace(relative, b"x"), tree.read(relative).map(drop)] {
                assert!(matches!(result, Err(RecordError::InsideGit(_))), "{relative:?}: {result:?}");
            }
        }
        assert_eq!(std::fs::read_to_string(root.path().join(".git/x.md")).unwrap(), "git's own");
    }

    #[test]
    fn a_link_at_any_level_is_refused_and_nothing_is_written_outside() {
        for level in ["docs", "docs/decisions", "docs/decisions/a.md"] {
            let (root, outside, tree) = tree();
            let link = root.path().join(level);
            std::fs::create_dir_all(link.parent().unwrap()).unwrap();
            std::fs::write(outside.path().join("a.md"), "outside").unwrap();
            symlink(outside.path(), &link).unwrap();
            if level.ends_with(".md") {
                std::fs::remove_file(&link).unwrap();
                symlink(outside.path().join("a.md"), &link).unwrap();
            }
            let relative = Path::new("docs/decisions/a.md");
            for result in [tree.create(relative, b"x"), tree.replace(relative, b"x"), tree.read(relative).map(drop)] {
                assert!(matches!(result, Err(RecordError::Symlink { .. })), "{level}: {result:?}");
            }
            if level != "docs/decisions/a.md" {
                let checked = tree.check_directory(Path::new("docs/decisions"));
                assert!(matches!(checked, Err(RecordError::Symlink { .. })), "{level}: {checked:?}");
            }
            assert_eq!(std::fs::read_to_string(outside.path().join("a.md")).unwrap(), "outside", "{level}");
            assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1, "{level}: nothing new outside");
        }
    }

    #[test]
    fn a_full_disk_says_the_debate_can_be_resumed() {
        let full = RecordError::Write { path: "x.md".into(), source: ErrorKind::StorageFull.into() };
        let hint = full.hint().unwrap();
        assert!(hint.contains("disk is full") && hint.contains("debate resume"), "{hint}");
    }

    #[test]
    fn paths_that_climb_out_are_refused() {
        let (_root, _outside, tree) = tree();
        for path in ["../x.md", "/etc/x.md", "docs/../../x.md", ".."] {
            let result = tree.replace(Path::new(path), b"x");
            assert!(matches!(result, Err(RecordError::Outside(_))), "{path}: {result:?}");
        }
    }

    #[test]
    fn new_files_follow_the_umask_and_replaced_ones_keep_their_mode() {
        let (root, _outside, tree) = tree();
        tree.replace(Path::new("README.md"), b"index").unwrap();
        let mode = std::fs::metadata(root.path().join("README.md")).unwrap().permissions().mode() & 0o777;
        // Read, not set: setting it would race the other tests' files.
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let umask = status.lines().find_map(|l| l.strip_prefix("Umask:")).unwrap().trim();
        let umask = u32::from_str_radix(umask, 8).unwrap();
        assert_eq!(mode, 0o666 & !umask, "a new file takes the umask, not 0600");
        std::fs::set_permissions(root.path().join("README.md"), std::fs::Permissions::from_mode(0o640)).unwrap();
        tree.replace(Path::new("README.md"), b"index again").unwrap();
        let mode = std::fs::metadata(root.path().join("README.md")).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }
}
