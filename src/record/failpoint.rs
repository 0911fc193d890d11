//! Crash points for the tests that check recording repairs itself on `--resume`.

/// Test hook, in test builds only (the `failpoints` feature): `DEBATE_FAILPOINT=<name>`
/// aborts the process at that point, as a crash would, so tests can check that
/// `--resume` repairs every half-finished recording; `<name>:sleep=<ms>` waits there
/// instead, so a test can make another process act in between.
#[cfg(feature = "failpoints")]
pub fn failpoint(name: &str) {
    let Ok(set) = std::env::var("DEBATE_FAILPOINT") else { return };
    match set.split_once(":sleep=") {
        Some((at, ms)) if at == name => std::thread::sleep(std::time::Duration::from_millis(ms.parse().unwrap_or(0))),
        None if set == name => std::process::abort(),
        _ => {}
    }
}

#[cfg(not(feature = "failpoints"))]
pub fn failpoint(_name: &str) {}
