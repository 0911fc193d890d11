//! A directory opened without following a symbolic link, and the files in it opened the
//! same way, where they are opened (`openat` and its family, with `O_NOFOLLOW`).

use std::fs::{File, Permissions};
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use rustix::fs::{Access, AtFlags, FileType, Mode, OFlags};

/// An open directory.
pub struct Dir(OwnedFd);

/// What a name in a directory is, as the name itself (a link not followed).
pub enum Entry {
    /// A regular file, with what a file replacing it keeps: its permissions.
    File(Permissions),
    Directory,
    /// A symbolic link, and where it points when that can be read.
    Link(Option<PathBuf>),
    /// A device, a socket, a pipe.
    Other,
}

const DIRECTORY: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::NOFOLLOW).union(OFlags::CLOEXEC);

impl Dir {
    /// The directory at `path`, links on the way to it followed: the caller's own.
    pub fn open(path: &Path) -> io::Result<Dir> {
        Ok(Dir(rustix::fs::open(path, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())?))
    }

    pub fn try_clone(&self) -> io::Result<Dir> {
        Ok(Dir(self.0.try_clone()?))
    }

    /// The directory `name` in this one; a link there is refused.
    pub fn open_dir(&self, name: &str) -> io::Result<Dir> {
        Ok(Dir(rustix::fs::openat(&self.0, name, DIRECTORY, Mode::empty())?))
    }

    /// Make the directory `name`, as the umask allows.
    pub fn make_dir(&self, name: &str) -> io::Result<()> {
        Ok(rustix::fs::mkdirat(&self.0, name, Mode::from_raw_mode(0o777))?)
    }

    /// The file `name`, for reading; a link there is refused, and so is anything but a
    /// regular file (opened without waiting: a FIFO in a file's place is not waited on).
    pub fn open_file(&self, name: &str) -> io::Result<File> {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let file = File::from(rustix::fs::openat(&self.0, name, flags, Mode::empty())?);
        match file.metadata()?.is_file() {
            true => Ok(file),
            false => Err(io::Error::new(io::ErrorKind::InvalidInput, "it is not a regular file")),
        }
    }

    /// A new file `name` for writing, never over anything already there: created with
    /// the umask, or given `keep`'s permissions.
    pub fn create_new(&self, name: &str, keep: Option<&Permissions>) -> io::Result<File> {
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let file = File::from(rustix::fs::openat(&self.0, name, flags, Mode::from_raw_mode(0o666))?);
        if let Some(permissions) = keep {
            file.set_permissions(permissions.clone())?;
        }
        Ok(file)
    }

    /// What `name` is; a missing name is `NotFound`.
    pub fn entry(&self, name: &str) -> io::Result<Entry> {
        let stat = rustix::fs::statat(&self.0, name, AtFlags::SYMLINK_NOFOLLOW)?;
        Ok(match FileType::from_raw_mode(stat.st_mode) {
            FileType::RegularFile => Entry::File(Permissions::from_mode(stat.st_mode & 0o7777)),
            FileType::Directory => Entry::Directory,
            FileType::Symlink => Entry::Link(
                rustix::fs::readlinkat(&self.0, name, Vec::new())
                    .ok()
                    .map(|target| PathBuf::from(target.to_string_lossy().into_owned())),
            ),
            _ => Entry::Other,
        })
    }

    /// A second name `to` for the file `from`; `AlreadyExists` when `to` is taken.
    pub fn link(&self, from: &str, to: &str) -> io::Result<()> {
        Ok(rustix::fs::linkat(&self.0, from, &self.0, to, AtFlags::empty())?)
    }

    /// `from` renamed to `to`, replacing what `to` named.
    pub fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        Ok(rustix::fs::renameat(&self.0, from, &self.0, to)?)
    }

    pub fn remove_file(&self, name: &str) -> io::Result<()> {
        Ok(rustix::fs::unlinkat(&self.0, name, AtFlags::empty())?)
    }

    /// The directory's entries on disk, so a file created or renamed in it stays.
    pub fn sync(&self) -> io::Result<()> {
        Ok(rustix::fs::fsync(&self.0)?)
    }

    /// New files can be made here.
    pub fn check_writable(&self) -> io::Result<()> {
        Ok(rustix::fs::accessat(&self.0, ".", Access::WRITE_OK, AtFlags::empty())?)
    }
}

/// Any name the system can hold: every name but `.`, `..` and those with `/` (which a
/// path's components never are) is a file name on Unix.
pub fn holds_name(_name: &str) -> bool {
    true
}
