//! `debate ci github`: the workflow that runs the review loop in pull requests
//! (`templates/github-review.yml`), written into this repository for the user to commit.

use std::path::Path;

use crate::error::{Error, Result};
use crate::record::{RecordError, WorkTree};
use crate::terminal::Terminal;

const WORKFLOW: &str = include_str!("../../templates/github-review.yml");
pub const WORKFLOW_PATH: &str = ".github/workflows/debate-review.yml";
const INSTALL: &str = "cargo install --locked debate";

/// The workflow, installing debate with `install`.
pub fn workflow(install: Option<&str>) -> Result<String> {
    let install = install.unwrap_or(INSTALL).trim();
    if install.is_empty() || install.contains(['\n', '\r']) {
        return Err(Error::input("--install takes one command on one line"));
    }
    Ok(WORKFLOW.replace("{{ install }}", install))
}

pub fn write(install: Option<&str>, force: bool, terminal: &Terminal) -> Result<()> {
    let root = crate::repo::around_working_directory()?;
    let text = workflow(install)?;
    let tree = WorkTree::open(&root)?;
    let path = Path::new(WORKFLOW_PATH);
    match force {
        true => tree.replace(path, text.as_bytes())?,
        false => tree.create(path, text.as_bytes()).map_err(|err| match err {
            RecordError::Taken(_) => {
                Error::input(format!("{WORKFLOW_PATH} is already there")).with_hint("give --force to write it again")
            }
            err => err.into(),
        })?,
    }
    terminal.say(&format!("Wrote {WORKFLOW_PATH}. Commit it to the default branch, and add the keys of the providers your records use as repository secrets (OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENROUTER_API_KEY)."));
    Ok(())
}
