//! Single files by path: opened without following a link or junction at their name, and
//! whether git would run one as a hook.

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

/// A hook Git for Windows runs: any file of the hook's name (Windows has no
/// executable bit).
pub fn runs_as_hook(metadata: &Metadata) -> bool {
    metadata.is_file()
}
