//! The one way debate reads and writes files in a repository's work tree: a relative
//! path of plain names, every directory on the way opened without following a symbolic
//! link, and the file itself opened the same way, where it is opened (a link put in
//! place after a path was planned is refused just the same). A file appears or is
//! replaced whole, new files take the user's umask, replaced ones keep their mode, and
//! every byte written passes the secret gate first.

use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use crate::record::{RecordError, Result};
use crate::text::secrets;

/// A repository's work tree, opened once at its root.
pub struct WorkTree {
    root: PathBuf,
    dir: OwnedFd,
}

/// How far a walk down a relative path's directories got.
struct Walked {
    /// The deepest directory that exists, open.
    dir: OwnedFd,
    /// Its path under the root.
    at: PathBuf,
    /// Every directory of the path exists (or was made).
    whole: bool,
}

/// The largest file read whole: a record of a 20-round debate is well under it, and a
/// hostile one costs no more.
pub const MAX_FILE_BYTES: usize = 16 << 20;

const DIRECTORY: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::NOFOLLOW).union(OFlags::CLOEXEC);

impl WorkTree {
    /// The work tree at `root`; the root itself is the user's own directory, links and all.
    pub fn open(root: &Path) -> Result<WorkTree> {
        let dir = rustix::fs::open(root, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
            .map_err(|errno| write_error(root, errno))?;
        Ok(WorkTree { root: root.to_path_buf(), dir })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file's bytes, or `None` when it does not exist; a link on the way is an error.
    pub fn read(&self, relative: &Path) -> Result<Option<Vec<u8>>> {
        let (parent, name) = self.split(relative)?;
        let Walked { dir, whole: true, .. } = self.walk(parent, false)? else { return Ok(None) };
        let file =
            // Opened without waiting, so a FIFO in a file's place is refused, not waited on.
            match rustix::fs::openat(&dir, name, OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC, Mode::empty()) {
                Ok(file) => file,
                Err(Errno::NOENT) => return Ok(None),
                Err(errno) => return Err(self.refused(&dir, relative, errno)),
            };
        match rustix::fs::fstat(&file) {
            Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile => {}
            Ok(_) => {
                return Err(self.read_error(
                    relative,
                    std::io::Error::new(std::io::ErrorKind::InvalidInput, "it is not a regular file"),
                ));
            }
            Err(errno) => return Err(self.read_error(relative, errno.into())),
        }
        let bytes = crate::text::read_bounded(std::fs::File::from(file), MAX_FILE_BYTES)
            .map_err(|source| self.read_error(relative, source))?;
        Ok(Some(bytes))
    }

    /// The file's bytes; a missing file is an error.
    pub fn read_existing(&self, relative: &Path) -> Result<Vec<u8>> {
        self.read(relative)?.ok_or_else(|| self.read_error(relative, std::io::ErrorKind::NotFound.into()))
    }

    /// Every existing directory of `directory` is a real one (no link), and the deepest
    /// that exists takes new files.
    pub fn check_directory(&self, directory: &Path) -> Result<()> {
        let Walked { dir, at, .. } = self.walk(directory, false)?;
        rustix::fs::accessat(&dir, ".", rustix::fs::Access::WRITE_OK, AtFlags::empty())
            .map_err(|errno| self.write_error(&at, errno))
    }

    /// Create the file at `relative` with `bytes`, never over an existing file (an
    /// existing one is `Taken`), making its directories as needed.
    pub fn create(&self, relative: &Path, bytes: &[u8]) -> Result<()> {
        let (parent, name) = self.split(relative)?;
        let Walked { dir, .. } = self.walk(parent, true)?;
        let temporary = self.temporary(&dir, relative, name, bytes, None)?;
        let linked = rustix::fs::linkat(&dir, &temporary, &dir, name, AtFlags::empty());
        let _ = rustix::fs::unlinkat(&dir, &temporary, AtFlags::empty());
        match linked {
            Ok(()) => self.sync(&dir, relative),
            Err(Errno::EXIST) => match self.refused(&dir, relative, Errno::EXIST) {
                link @ RecordError::Symlink { .. } => Err(link),
                _ => Err(RecordError::Taken(self.root.join(relative))),
            },
            Err(errno) => Err(self.write_error(relative, errno)),
        }
    }

    /// Write `bytes` to the file at `relative`, whole: a new file, or over a regular file
    /// (keeping its mode), never through or over a link.
    pub fn replace(&self, relative: &Path, bytes: &[u8]) -> Result<()> {
        let (parent, name) = self.split(relative)?;
        let Walked { dir, .. } = self.walk(parent, true)?;
        let mode = match rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile => {
                Some(Mode::from_raw_mode(stat.st_mode & 0o7777))
            }
            Ok(_) => return Err(self.refused(&dir, relative, Errno::LOOP)),
            Err(Errno::NOENT) => None,
            Err(errno) => return Err(self.write_error(relative, errno)),
        };
        let temporary = self.temporary(&dir, relative, name, bytes, mode)?;
        if let Err(errno) = rustix::fs::renameat(&dir, &temporary, &dir, name) {
            let _ = rustix::fs::unlinkat(&dir, &temporary, AtFlags::empty());
            return Err(self.write_error(relative, errno));
        }
        self.sync(&dir, relative)
    }

    /// Remove the regular file at `relative`, if it is there; never a link or what it
    /// points to.
    pub fn remove(&self, relative: &Path) -> Result<()> {
        let (parent, name) = self.split(relative)?;
        let Walked { dir, whole: true, .. } = self.walk(parent, false)? else { return Ok(()) };
        match rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile => {}
            Ok(_) => return Err(self.refused(&dir, relative, Errno::LOOP)),
            Err(Errno::NOENT) => return Ok(()),
            Err(errno) => return Err(self.write_error(relative, errno)),
        }
        rustix::fs::unlinkat(&dir, name, AtFlags::empty()).map_err(|errno| self.write_error(relative, errno))?;
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

    /// A new file beside `name` holding `bytes`, synced: created with the umask, then
    /// given `mode` when it replaces a file that had one.
    fn temporary(
        &self,
        dir: &OwnedFd,
        relative: &Path,
        name: &str,
        bytes: &[u8],
        mode: Option<Mode>,
    ) -> Result<String> {
        // Unique by process and chance; O_EXCL refuses a name that is taken all the same.
        let temporary = format!(".{name}.{}-{:08x}.partial", std::process::id(), getrandom::u32().unwrap_or_default());
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(dir, &temporary, flags, Mode::from_raw_mode(0o666))
            .map_err(|errno| self.write_error(relative, errno))?;
        let mut file = std::fs::File::from(fd);
        let gated = secrets::gate_bytes(bytes);
        let written = file.write_all(&gated).and_then(|_| {
            if let Some(mode) = mode {
                rustix::fs::fchmod(file.as_fd(), mode)?;
            }
            file.sync_all()
        });
        if let Err(source) = written {
            let _ = rustix::fs::unlinkat(dir, &temporary, AtFlags::empty());
            return Err(self.write_error_io(relative, source));
        }
        Ok(temporary)
    }

    fn sync(&self, dir: &OwnedFd, relative: &Path) -> Result<()> {
        rustix::fs::fsync(dir).map_err(|errno| self.write_error(relative, errno))
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
        let mut dir = self.dir.try_clone().map_err(|source| self.write_error_io(parent, source))?;
        let mut at = PathBuf::new();
        for name in names(parent, &self.root)? {
            let next = at.join(name);
            let mut opened = rustix::fs::openat(&dir, name, DIRECTORY, Mode::empty());
            if matches!(opened, Err(Errno::NOENT)) {
                if !create {
                    return Ok(Walked { dir, at, whole: false });
                }
                match rustix::fs::mkdirat(&dir, name, Mode::from_raw_mode(0o777)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(errno) => return Err(self.write_error(&next, errno)),
                }
                opened = rustix::fs::openat(&dir, name, DIRECTORY, Mode::empty());
            }
            dir = opened.map_err(|errno| self.refused(&dir, &next, errno))?;
            at = next;
        }
        Ok(Walked { dir, at, whole: true })
    }

    /// Why `relative` (whose last part is in `dir`) could not be opened: a link, a file
    /// where a directory was wanted, or the system's own reason.
    fn refused(&self, dir: &OwnedFd, relative: &Path, errno: Errno) -> RecordError {
        let path = self.root.join(relative);
        let name = relative.file_name().unwrap_or_default();
        match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::Symlink => {
                let target = rustix::fs::readlinkat(dir, name, Vec::new()).ok();
                let target = target.map(|t| PathBuf::from(t.to_string_lossy().into_owned()));
                RecordError::Symlink { path, target }
            }
            Ok(stat) if errno == Errno::NOTDIR || FileType::from_raw_mode(stat.st_mode) != FileType::Directory => {
                match errno {
                    Errno::NOTDIR => RecordError::NotADirectory(path),
                    _ => RecordError::NotAFile(path),
                }
            }
            _ => write_error(&path, errno),
        }
    }

    fn write_error(&self, relative: &Path, errno: Errno) -> RecordError {
        write_error(&self.root.join(relative), errno)
    }

    fn write_error_io(&self, relative: &Path, source: std::io::Error) -> RecordError {
        RecordError::Write { path: self.root.join(relative), source }
    }

    fn read_error(&self, relative: &Path, source: std::io::Error) -> RecordError {
        match source.kind() {
            std::io::ErrorKind::FileTooLarge => {
                RecordError::TooLarge { path: self.root.join(relative), limit: MAX_FILE_BYTES }
            }
            _ => RecordError::Read { path: self.root.join(relative), source },
        }
    }
}

fn write_error(path: &Path, errno: Errno) -> RecordError {
    RecordError::Write { path: path.to_path_buf(), source: errno.into() }
}

/// The names of a relative path, each a plain name (no `..`, root or prefix).
/// The plain names of `relative`; one that is not a plain name, or is a git directory
/// (this repository's or a nested one's), refuses the whole path.
fn names<'p>(relative: &'p Path, root: &Path) -> Result<Vec<&'p str>> {
    relative
        .components()
        .filter(|c| *c != Component::CurDir)
        .map(|c| match c {
            Component::Normal(name) => match name.to_str() {
                Some(name) if name.eq_ignore_ascii_case(".git") => Err(RecordError::InsideGit(root.join(relative))),
                Some(name) => Ok(name),
                None => Err(RecordError::Outside(root.join(relative))),
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
        let full = RecordError::Write { path: "x.md".into(), source: Errno::NOSPC.into() };
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
