//! `debate trust`: trust a repository settings file as it is now, or stop trusting it.

use std::path::Path;

use crate::error::{Error, Result};
use crate::settings::{self, TrustStore};
use crate::terminal::Terminal;

/// `debate trust`: trust a repository settings file as it is now, or stop trusting it.
pub fn run(path: Option<&Path>, revoke: bool, terminal: &Terminal) -> Result<()> {
    let file = match path {
        Some(path) => path.to_path_buf(),
        None => settings::repository_settings(&crate::repo::around_working_directory()?),
    };
    let mut store = TrustStore::load()?;
    if revoke {
        let said = match store.revoke(&file) {
            true => "is no longer trusted",
            false => "was not trusted",
        };
        store.save()?;
        terminal.say(&format!("{} {said}.", file.display()));
        return Ok(());
    }
    if !file.is_file() {
        return Err(Error::input(format!("cannot read {}: no such file", file.display()))
            .with_hint("run `debate trust` inside the repository, or name the settings file"));
    }
    // A file that does not parse is not trusted: it is reported as any settings error.
    let settings::Trustable { sensitive, content } = settings::trustable(&file)?;
    store.trust(&file, &content);
    store.save()?;
    let digest = &settings::digest(&content)[..16];
    terminal.say(&format!("Trusted {} and the scripts it names as they are now (sha256 {digest}).", file.display()));
    match sensitive.is_empty() {
        true => terminal.say("It sets nothing that needs trust."),
        false => {
            terminal.say("It may now set:");
            for setting in sensitive {
                terminal.say(&format!("  {setting}"));
            }
        }
    }
    terminal.say("Any change to the file needs `debate trust` again.");
    Ok(())
}
