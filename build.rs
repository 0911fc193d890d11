//! Which of the outside tools some tests drive are on PATH. A test whose tool is missing
//! is built ignored (`cfg(missing_chromium)`, `missing_npm`, `missing_adr`), so `cargo
//! test` reports it as not run instead of `ok`; under CI (`CI` set, not `false` or `0`)
//! nothing is marked, and a missing tool fails its test.

/// Each cfg and the tools it needs, each one of several names.
const TOOLS: &[(&str, &[&[&str]])] = &[
    ("missing_chromium", &[&["chromium", "chromium-browser"], &["chromedriver"]]),
    ("missing_npm", &[&["npm"]]),
    ("missing_adr", &[&["adr"]]),
];

fn main() {
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-env-changed=CI");
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = |name: &&str| std::env::split_paths(&path).any(|dir| dir.join(name).is_file());
    for (cfg, needs) in TOOLS {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        if !ci && !needs.iter().all(|names| names.iter().any(found)) {
            println!("cargo::rustc-cfg={cfg}");
        }
    }
}
