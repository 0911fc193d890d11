//! The commands (`commands/`, one file each) over typed requests resolved once from the
//! command line (`invocation/`), with what several of them share (`shared/`). Each checks
//! every input before it writes anything.

pub mod commands;
pub mod invocation;
mod shared;

use crate::cli::Cli;
use crate::error::Result;
use crate::providers;
use crate::terminal::{self, Terminal};
use crate::text::secrets;
use crate::view::Paused;
use commands::{
    check, ci, completion, config, dashboard, doctor, eval, export, github_review, give_up, guard, lifecycle, list,
    manual, mcp, resume, search, show, start, suite, trust, usage, verify,
};
use invocation::request::{Invocation, Mode};
use shared::report;

pub async fn run(cli: Cli) -> Result<()> {
    // Whatever the command, no key in the environment leaves the process.
    secrets::guard(providers::environment_keys());
    let invocation = Invocation::from_cli(cli)?;
    let json = invocation.json;
    let result = command(invocation).await;
    if let (true, Err(err)) = (json, &result)
        && let Some(id) = err.paused()
    {
        // A script reading --json learns which debate paused and how to go on.
        terminal::print_json(&Paused::new(id, err.to_string(), err.hint(), err.exit_code(), err.resume_command(id)))?;
    }
    result
}

async fn command(invocation: Invocation) -> Result<()> {
    let Invocation { mode, db, json, verbosity } = invocation;
    let mut terminal = Terminal::new(verbosity);
    let db_path = || -> Result<std::path::PathBuf> {
        Ok(match &db {
            Some(path) => path.clone(),
            None => crate::store::default_path()?,
        })
    };
    match mode {
        Mode::Config { config } => config::run(config.as_deref(), db.as_deref(), json),
        Mode::Doctor { provider, config } => {
            doctor::run(provider.as_deref(), config.as_deref(), &db_path()?, json, &terminal).await
        }
        Mode::Usage { since, by, config } => usage::run(since.as_deref(), &by, config.as_deref(), &db_path()?, json),
        Mode::Man { command, dir: None } => manual::print(command.as_deref()),
        Mode::Man { dir: Some(dir), .. } => manual::write_all(&dir),
        Mode::Completions(shell) => completion::script(shell),
        Mode::Ci { install, force, config } => ci::write(install.as_deref(), force, config.as_deref(), &terminal),
        Mode::GithubReview(request) => github_review::run(&request, &db_path()?, &mut terminal).await,
        Mode::Trust { path, revoke } => trust::run(path.as_deref(), revoke, &terminal),
        Mode::Lifecycle(request) => lifecycle::run(&request, &db_path()?, json, &terminal),
        Mode::Eval(request) => eval::run(&request, &db_path()?, json, &terminal).await,
        Mode::Suite(request) => suite::run(&request, json, &terminal).await,
        Mode::Verify(request) => verify::run(&request, json, &terminal),
        Mode::Check(request) => check::run(&request, json, &terminal).await,
        Mode::Export(request) => export::run(&request, &db_path()?, &terminal),
        Mode::Serve(request) => dashboard::serve(request, db_path()?).await,
        Mode::Mcp { config, allow } => mcp::serve(db_path()?, config, &allow, verbosity).await,
        Mode::List { all, limit } => list::list(&db_path()?, all, limit, json),
        Mode::Guard(request) => guard::run(&request, &db_path()?, json, &terminal),
        Mode::Due { github_issue, config } => list::due(config.as_deref(), github_issue, json, &terminal).await,
        Mode::Show { id, paged } => show::run(&db_path()?, &id, json, paged, &terminal),
        Mode::Search { query, limit, config } => search::run(&query, limit, config.as_deref(), &db_path()?, json),
        Mode::GiveUp { id, delete } => give_up::run(&db_path()?, &id, delete, &terminal),
        Mode::Preview(request) => start::preview(&request, json, &terminal),
        Mode::Resume(request) => {
            let state = resume::run(&request, &db_path()?, &mut terminal, None).await?;
            report::outcome(&state, json)
        }
        Mode::Start(request) => {
            let root = crate::repo::around_working_directory()?;
            let state = start::run(&request, &db_path()?, &root, &mut terminal, None).await?;
            report::outcome(&state, json)
        }
    }
}
