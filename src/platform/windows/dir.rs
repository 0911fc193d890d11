//! A directory opened without following a link or a junction, and the files in it opened
//! the same way, where they are opened: each is opened as the reparse point itself
//! (`FILE_FLAG_OPEN_REPARSE_POINT`) and refused when the handle says it is a link or a
//! junction (a name surrogate; a cloud or deduplicated file is read as itself). Every
//! directory on the way stays open without `FILE_SHARE_DELETE` while it is used, so
//! none of them can be renamed or replaced by a junction behind the checked handles.

use std::fs::{File, OpenOptions, Permissions};
use std::io;
use std::os::windows::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use windows_sys::Win32::Storage::FileSystem::{
    DELETE, FILE_ATTRIBUTE_REPARSE_POINT, FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_DELETE_ON_CLOSE,
    FILE_FLAG_OPEN_REPARSE_POINT, FILE_GENERIC_WRITE, FILE_SHARE_READ, FILE_SHARE_WRITE,
};

/// An open directory: its path, and it and every directory above it (to the root the
/// caller gave) held open.
pub struct Dir {
    path: PathBuf,
    held: Vec<Arc<File>>,
}

/// What a name in a directory is, as the name itself (a link not followed).
pub enum Entry {
    /// A regular file, with what a file replacing it keeps: nothing on Windows, where a
    /// new file takes its directory's permissions.
    File(Permissions),
    Directory,
    /// A symbolic link, a junction or another reparse point, and where it points when
    /// that can be read.
    Link(Option<PathBuf>),
    Other,
}

impl Dir {
    /// The directory at `path`, links on the way to it followed: the caller's own.
    pub fn open(path: &Path) -> io::Result<Dir> {
        let handle = directory().open(path)?;
        if !handle.metadata()?.is_dir() {
            return Err(io::ErrorKind::NotADirectory.into());
        }
        Ok(Dir { path: path.to_path_buf(), held: vec![Arc::new(handle)] })
    }

    pub fn try_clone(&self) -> io::Result<Dir> {
        Ok(Dir { path: self.path.clone(), held: self.held.clone() })
    }

    /// The directory `name` in this one; a link or junction there is refused.
    pub fn open_dir(&self, name: &str) -> io::Result<Dir> {
        let path = self.path.join(name);
        let handle = directory().custom_flags(FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT).open(&path)?;
        let metadata = handle.metadata()?;
        if metadata.file_type().is_symlink() {
            return Err(link_refused());
        }
        if !metadata.is_dir() {
            return Err(io::ErrorKind::NotADirectory.into());
        }
        let mut held = self.held.clone();
        held.push(Arc::new(handle));
        Ok(Dir { path, held })
    }

    pub fn make_dir(&self, name: &str) -> io::Result<()> {
        std::fs::create_dir(self.path.join(name))
    }

    /// The file `name`, for reading; a link there is refused. Another reparse point
    /// (a cloud file, a deduplicated one) is opened again as the system serves it, while
    /// the first handle, which does not share delete, keeps the name on that same file.
    pub fn open_file(&self, name: &str) -> io::Result<File> {
        let path = self.path.join(name);
        let file = OpenOptions::new()
            .read(true)
            .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE)
            .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
            .open(&path)?;
        let file = checked(file)?;
        if file.metadata()?.file_attributes() & FILE_ATTRIBUTE_REPARSE_POINT == 0 {
            return Ok(file);
        }
        let served = File::open(&path)?;
        drop(file);
        Ok(served)
    }

    /// A new file `name` for writing, never over anything already there (a link
    /// included). `keep` is for Unix: a new file here takes its directory's permissions.
    pub fn create_new(&self, name: &str, _keep: Option<&Permissions>) -> io::Result<File> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
            .open(self.path.join(name))?;
        checked(file)
    }

    /// What `name` is; a missing name is `NotFound`.
    pub fn entry(&self, name: &str) -> io::Result<Entry> {
        let path = self.path.join(name);
        let metadata = std::fs::symlink_metadata(&path)?;
        Ok(if metadata.file_type().is_symlink() {
            Entry::Link(std::fs::read_link(&path).ok())
        } else if metadata.is_dir() {
            Entry::Directory
        } else if metadata.is_file() {
            Entry::File(metadata.permissions())
        } else {
            Entry::Other
        })
    }

    /// A second name `to` for the file `from` (a hard link, never replacing);
    /// `AlreadyExists` when `to` is taken.
    pub fn link(&self, from: &str, to: &str) -> io::Result<()> {
        std::fs::hard_link(self.path.join(from), self.path.join(to))
    }

    /// `from` renamed to `to`, replacing what `to` named (a link itself, never what it
    /// points to).
    pub fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        std::fs::rename(self.path.join(from), self.path.join(to))
    }

    pub fn remove_file(&self, name: &str) -> io::Result<()> {
        std::fs::remove_file(self.path.join(name))
    }

    /// Nothing to do: NTFS journals a directory's entries itself, and Windows has no
    /// call that syncs a directory.
    pub fn sync(&self) -> io::Result<()> {
        Ok(())
    }

    /// New files can be made here: one is made, and the system deletes it as it closes.
    pub fn check_writable(&self) -> io::Result<()> {
        let probe = format!(".debate-probe.{}-{:08x}", std::process::id(), getrandom::u32().unwrap_or_default());
        OpenOptions::new()
            .write(true)
            .access_mode(FILE_GENERIC_WRITE | DELETE)
            .create_new(true)
            .custom_flags(FILE_FLAG_DELETE_ON_CLOSE | FILE_FLAG_OPEN_REPARSE_POINT)
            .open(self.path.join(probe))
            .map(drop)
    }
}

/// Options that open a directory, and hold it: read and write shared, never delete,
/// so it cannot be renamed or removed while it is held.
fn directory() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.read(true).share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE).custom_flags(FILE_FLAG_BACKUP_SEMANTICS);
    options
}

/// `file` when it is a file itself, not a link or junction opened as one.
fn checked(file: File) -> io::Result<File> {
    let metadata = file.metadata()?;
    if metadata.file_type().is_symlink() {
        return Err(link_refused());
    }
    if metadata.is_dir() {
        return Err(io::ErrorKind::IsADirectory.into());
    }
    Ok(file)
}

fn link_refused() -> io::Error {
    io::Error::other("a link or junction, which debate does not follow")
}

/// Whether Windows holds `name` as that very name: not a device (`CON`, `NUL`, `COM1`,
/// with any extension), nothing it trims (a trailing dot or space), no stream (`:`) and
/// none of the characters it refuses.
pub fn holds_name(name: &str) -> bool {
    const RESERVED: [&str; 4] = ["CON", "PRN", "AUX", "NUL"];
    let stem = name.split('.').next().unwrap_or_default().trim_end_matches(' ');
    let device = RESERVED.iter().any(|r| stem.eq_ignore_ascii_case(r))
        || (stem.len() == 4
            && stem.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("COM") || p.eq_ignore_ascii_case("LPT"))
            && stem.as_bytes()[3].is_ascii_digit());
    !name.is_empty()
        && !device
        && !name.ends_with(['.', ' '])
        && !name.chars().any(|c| c.is_control() || "<>:\"|?*\\/".contains(c))
}
