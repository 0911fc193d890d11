//! Crash points and gates for the tests that check recording repairs itself on
//! `--resume` and that two processes committing at once both land.

/// Test hook, in test builds only (the `failpoints` feature): `DEBATE_FAILPOINT=<name>`
/// aborts the process at that point, as a crash would, so tests can check that
/// `--resume` repairs every half-finished recording. `<name>:wait=<path>` holds it
/// there instead: it creates `<path>.reached` and goes on once `<path>` exists (or
/// aborts after a minute), so a test can make another process act in between.
/// `<name>:panic` panics there, as a bug would.
#[cfg(feature = "failpoints")]
pub fn failpoint(name: &str) {
    let Ok(set) = std::env::var("DEBATE_FAILPOINT") else { return };
    match set.split_once(":wait=") {
        Some((at, gate)) if at == name => wait_at(std::path::Path::new(gate)),
        None if set == name => std::process::abort(),
        None if set.strip_suffix(":panic") == Some(name) => panic!("the failpoint {name}"),
        _ => {}
    }
}

#[cfg(feature = "failpoints")]
fn wait_at(gate: &std::path::Path) {
    let mut reached = gate.as_os_str().to_owned();
    reached.push(".reached");
    if std::fs::write(&reached, b"").is_err() {
        std::process::abort();
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !gate.exists() {
        if std::time::Instant::now() > deadline {
            std::process::abort();
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

#[cfg(not(feature = "failpoints"))]
pub fn failpoint(_name: &str) {}
