//! Single files by path: opened without following a link or junction at their name, or
//! for reading as they are, and whether git would run one as a hook.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::windows::fs::OpenOptionsExt;
use std::path::Path;

use windows_sys::Win32::Storage::FileSystem::FILE_FLAG_OPEN_REPARSE_POINT;

/// The file at `path` opened with `options`, refused when the name is a link or a
/// junction: opened as the reparse point itself, and checked on the handle.
pub fn open_no_follow(path: &Path, mut options: OpenOptions) -> io::Result<File> {
    let file = options.custom_flags(FILE_FLAG_OPEN_REPARSE_POINT).open(path)?;
    if file.metadata()?.file_type().is_symlink() {
        return Err(io::Error::other("a link or junction, which debate does not follow"));
    }
    Ok(file)
}

/// The file at `path`, links followed, opened for reading (a named pipe is no file name
/// here; the caller refuses anything but a regular file).
pub fn open_for_reading(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// A new file at `path` (never over one), for this user's eyes: a key's copy. Windows
/// gives a new file in the user's own temporary folder that folder's owner-only access.
pub fn create_private(path: &Path) -> io::Result<File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// A hook Git for Windows runs: any file of the hook's name (Windows has no
/// executable bit).
pub fn runs_as_hook(metadata: &Metadata) -> bool {
    metadata.is_file()
}
