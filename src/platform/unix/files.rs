//! Single files by path: opened without following a link at their name, and whether
//! git would run one as a hook.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// The file at `path` opened with `options`, refused when the name is a symbolic link.
pub fn open_no_follow(path: &Path, mut options: OpenOptions) -> io::Result<File> {
    options.custom_flags(libc::O_NOFOLLOW).open(path)
}

/// A hook git runs: a file with an executable bit.
pub fn runs_as_hook(metadata: &Metadata) -> bool {
    metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
}
