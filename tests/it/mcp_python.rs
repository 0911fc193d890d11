//! `debate mcp` driven by the official MCP Python SDK (`mcp` on PyPI), as coding agents
//! drive it, in both eras: at 2025-11-25 `tests/mcp/client.py` initializes, lists the
//! tools, runs an offline debate with progress, finds it every way (tool, search,
//! resource), answers checkpoints through elicitation (guide; cancel, then resume),
//! cancels a call, and is refused a repository with nothing written; then with its roots,
//! without elicitation, and as the high-level client's legacy mode. At 2026-07-28 the
//! high-level client's default negotiates without `initialize` and checks every result's
//! `resultType` and cache hints as they came over the wire, every tool's title,
//! annotations and output schema (the SDK validates each result against it), progress
//! toward its total, checkpoints through input-required results (guided, then ended, the
//! guidance in the committed record), search by a question's words, the confinement,
//! and a debate as a task. `.ci/run` installs the SDK into a cache outside the
//! repository and names its Python in `DEBATE_MCP_PYTHON`; without it the test says it
//! did not run, and under CI it fails.

use std::process::Command;

use crate::common::*;

#[test]
fn the_official_python_client_drives_every_tool() {
    let Some(python) = std::env::var_os("DEBATE_MCP_PYTHON") else {
        let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
        assert!(!ci, "DEBATE_MCP_PYTHON is not set: .ci/run installs the MCP Python SDK (.ci/mcp-client)");
        eprintln!("skipped: set DEBATE_MCP_PYTHON to a Python with the `mcp` package (.ci/mcp-client install)");
        return;
    };
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    let plain = tempfile::tempdir().unwrap();
    let repository = std::fs::canonicalize(&sandbox.repo).unwrap();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let mut cmd = Command::new(python);
    cmd.arg(script).arg(assert_cmd::cargo::cargo_bin!("debate")).arg(&repository).arg(plain.path());
    // The environment the binary gets in every test: its own home and state database.
    for (key, value) in sandbox.std_cmd().get_envs() {
        match value {
            Some(value) => cmd.env(key, value),
            None => cmd.env_remove(key),
        };
    }
    let out = cmd.current_dir(&sandbox.repo).output().expect("python runs");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    println!("{stdout}");
    assert!(out.status.success(), "the Python client's scenarios failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}
