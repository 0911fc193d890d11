//! Single files by path: opened without following a link at their name, or without
//! waiting on what is not a regular file, and whether git would run one as a hook.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// The file at `path` opened with `options`, refused when the name is a symbolic link.
pub fn open_no_follow(path: &Path, mut options: OpenOptions) -> io::Result<File> {
    options.custom_flags(libc::O_NOFOLLOW).open(path)
}

/// The file at `path`, links followed, opened for reading without waiting on it: a FIFO
/// or a device would block or never end (the caller refuses anything but a regular file).
pub fn open_for_reading(path: &Path) -> io::Result<File> {
    OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)
}

/// A new file at `path` (never over one) that only this user may read: a key's copy.
pub fn create_private(path: &Path) -> io::Result<File> {
    OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)
}

/// A hook git runs: a file with an executable bit.
pub fn runs_as_hook(metadata: &Metadata) -> bool {
    metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
}
