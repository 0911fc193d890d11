//! Servers and gateways as they are (issue 31), and the process around the calls: what
//! a run costs besides them.

use std::os::unix::fs::PermissionsExt;

use crate::common::*;

/// Output without a terminal asks no program for the terminal's size: a `tput` first on
/// the PATH records every call, and a whole debate makes none.
#[test]
fn a_run_without_a_terminal_spawns_no_tput() {
    let sandbox = Sandbox::new();
    let bin = sandbox.home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let calls = sandbox.home.join("tput-calls");
    let tput = bin.join("tput");
    std::fs::write(&tput, format!("#!/bin/sh\necho \"$@\" >> '{}'\necho 80\n", calls.display())).unwrap();
    std::fs::set_permissions(&tput, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let out =
        sandbox.cmd().env("PATH", path).args(["--offline", "--no-checkpoints", "-r", "2", QUESTION]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!calls.exists(), "tput was run: {}", std::fs::read_to_string(&calls).unwrap_or_default());
}
