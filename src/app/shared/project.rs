//! What a new debate tells the debaters about the project: the repository as
//! `context::gather` reads it (unless turned off) and the `--context` files, masked,
//! ranked and fitted to the budget; and where the record goes when the repository
//! already keeps decisions its own way.

use std::path::{Path, PathBuf};

use crate::app::invocation::request::StartRequest;
use crate::app::shared::input;
use crate::context::{self, Gathered};
use crate::error::{Error, Result};
use crate::model::{
    ContextFile, Convention, EarlierDecision, FilenameTemplate, ProjectContext, RecordDirectory, RecordSettings, tokens,
};
use crate::moderator::briefing::{self, Parts};
use crate::record;
use crate::settings::{self, Chosen, ContextSettings};
use crate::terminal::Terminal;
use crate::text::secrets::Masker;

/// What a new debate (or its preview) settles before any model is called: what the
/// debaters read about the project, the `--context` files as they read them, the
/// records it supersedes, and where its record goes.
pub struct Groundwork {
    pub project: ProjectContext,
    pub context: Vec<ContextFile>,
    pub supersedes: Vec<EarlierDecision>,
    pub record: RecordSettings,
}

pub fn groundwork(
    request: &StartRequest,
    root: &Path,
    loaded: &settings::Loaded,
    question: &str,
    keys: &Masker,
    terminal: &Terminal,
) -> Result<Groundwork> {
    let options = &request.flags.options;
    let files = read_context(&options.context, root, keys, terminal)?;
    let committed = loaded.settings.record.commit && options.branch.is_none();
    let supersedes = superseded(root, &options.supersedes, &loaded.settings.record, committed, keys)?;
    let mut settings = loaded.settings.context.clone();
    settings.repository &= !options.no_repo_context;
    let (project, context) = brief(root, question, files, &settings, &supersedes, keys, terminal);
    let mut record = loaded.settings.record.clone();
    follow_convention(&mut record, project.convention.as_ref(), loaded.chosen, terminal);
    Ok(Groundwork { project, context, supersedes, record })
}

/// The `--context` files, whole and with secrets masked; the budget cuts them later.
fn read_context(paths: &[PathBuf], root: &Path, keys: &Masker, terminal: &Terminal) -> Result<Vec<ContextFile>> {
    paths
        .iter()
        .map(|path| {
            let text = input::read_context_file(path)?;
            let path = recorded_name(path, root);
            Ok(ContextFile { text: input::without_secrets(&text, &path, keys, terminal), path })
        })
        .collect()
}

/// How the prompts and the record name a `--context` file: by its path in the repository,
/// or by its file name alone when it is outside (the layout of the author's machine is
/// nobody's business, and means nothing in a clone).
fn recorded_name(path: &Path, root: &Path) -> String {
    let canonical = |p: &Path| dunce::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let file = canonical(path);
    match file.strip_prefix(canonical(root)) {
        Ok(inside) => inside.display().to_string(),
        Err(_) => file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
    }
}

/// The project context of a new debate, and the `--context` files as the debaters read
/// them. The records this debate supersedes are read first, wherever they are.
fn brief(
    root: &Path,
    question: &str,
    files: Vec<ContextFile>,
    settings: &ContextSettings,
    superseded: &[EarlierDecision],
    keys: &Masker,
    terminal: &Terminal,
) -> (ProjectContext, Vec<ContextFile>) {
    let gathered = match settings.repository {
        true => context::gather(root, keys),
        false => Gathered::default(),
    };
    for (file, what) in &gathered.masked {
        input::warn_masked(file, what, terminal);
    }
    let others: Vec<EarlierDecision> =
        gathered.decisions.into_iter().filter(|d| superseded.iter().all(|s| s.path != d.path)).collect();
    let decisions = briefing::rank(question, others, settings.decisions.0);
    let parts = Parts { facts: gathered.facts.clone(), superseded: superseded.to_vec(), decisions, files };
    let (project, files) = briefing::compose(parts, settings.budget_tokens.0);
    let project = ProjectContext {
        facts: gathered.facts,
        convention: context::convention(root),
        notes: gathered.notes,
        budget: settings.budget_tokens.0,
        repository: settings.repository,
        ..project
    };
    (project, files)
}

/// The earlier records `--supersedes` names, each checked before any model is called:
/// a path to a decision record inside this repository, or the debate id its front
/// matter carries. `committed` says whether the mark will be committed on this branch.
fn superseded(
    root: &Path,
    targets: &[String],
    record: &RecordSettings,
    committed: bool,
    keys: &Masker,
) -> Result<Vec<EarlierDecision>> {
    let mut found: Vec<EarlierDecision> = Vec::new();
    for target in targets {
        let relative = locate(root, target, record, "--supersedes")?;
        let earlier = context::record_at(root, &relative, keys)
            .map_err(|why| Error::input(format!("--supersedes {target}: {why}")))?;
        if earlier.superseded() {
            return Err(Error::input(format!("--supersedes {target}: it is already {}", earlier.status))
                .with_hint("name the record that superseded it instead"));
        }
        record::lifecycle::supersede::check(root, Path::new(&relative), committed).map_err(|err| {
            let hint = match &err {
                record::RecordError::Modified(_) => {
                    "commit or stash those changes first, then run the debate again".into()
                }
                err => err.hint().unwrap_or_default(),
            };
            Error::input(format!("--supersedes {target}: {err}")).with_hint(hint)
        })?;
        if !found.iter().any(|f| f.path == earlier.path) {
            found.push(earlier);
        }
    }
    Ok(found)
}

/// A record named on the command line (`what`: `--supersedes`, `accept`, …) as a path
/// relative to the root: an id is looked up in the records' front matter; a path must
/// lead to a markdown file inside the repository, not through a link.
/// Where the repository at `root` keeps its records, and how: only that is read of the
/// settings by a command that reads records alone (`verify`, `check`), so a repository's
/// file that is not trusted (a pull request's, in CI) leaves the usual decision
/// directories, with a warning; settings named by `--config` must load.
pub fn record_settings(root: &Path, config: Option<&Path>, terminal: &Terminal) -> Result<RecordSettings> {
    match settings::load(root, config) {
        Ok(loaded) => Ok(loaded.settings.record),
        Err(err) if config.is_none() => {
            terminal.warn(&format!("{err}; records are looked for in the usual decision directories"));
            Ok(settings::Settings::default().record)
        }
        Err(err) => Err(err.into()),
    }
}

pub fn locate(root: &Path, target: &str, record: &RecordSettings, what: &str) -> Result<String> {
    let unknown = |why: String| Error::input(format!("{what} {target}: {why}"));
    // A whole id, with or without its `DEB-`.
    let bare = target.get(target.len().saturating_sub(6)..).unwrap_or_default();
    let whole_id = bare.len() == 6
        && bare.chars().all(|c| c.is_ascii_alphanumeric())
        && (target.len() == 6 || target.len() == 10 && target.to_ascii_lowercase().starts_with("deb-"));
    // A record found by its id gets the checks a path on the command line gets.
    let given = match whole_id && !Path::new(target).exists() {
        true => {
            let hint = "give the record's path instead (e.g. docs/decisions/0001-use-postgres.md)";
            match context::records_with_id(root, &format!("DEB-{bare}"), &record.directory.0).as_slice() {
                [one] => root.join(one),
                [] => return Err(unknown("no decision record here carries that id".into()).with_hint(hint)),
                many => {
                    let many = many.join(", ");
                    return Err(unknown(format!("several records carry that id: {many}")).with_hint(hint));
                }
            }
        }
        false => std::env::current_dir().map_err(crate::repo::RepoError::WorkingDirectory)?.join(target),
    };
    let meta = std::fs::symlink_metadata(&given).map_err(|err| unknown(err.to_string()))?;
    if meta.file_type().is_symlink() || !meta.is_file() {
        return Err(unknown("not a file (debate follows no links here)".into()));
    }
    let canonical = dunce::canonicalize(&given).map_err(|err| unknown(err.to_string()))?;
    // The path as given, not only where it leads: a link on the way is refused too.
    if given.starts_with(root) && given != canonical {
        return Err(unknown("reached through a symbolic link (debate follows no links here)".into()));
    }
    let inside =
        canonical.strip_prefix(root).map_err(|_| unknown(format!("not inside the repository {}", root.display())))?;
    if inside.components().any(|c| c.as_os_str().to_string_lossy().eq_ignore_ascii_case(".git")) {
        return Err(unknown("inside .git, which holds no decision records".into()));
    }
    // A directory with its own .git is another repository (a submodule or a nested
    // clone): its files are not this repository's to commit.
    let nested = inside
        .ancestors()
        .skip(1)
        .take_while(|a| !a.as_os_str().is_empty())
        .any(|a| root.join(a).join(".git").exists());
    if nested {
        return Err(unknown("inside a nested repository or submodule".into()));
    }
    let relative = inside.to_string_lossy().replace('\\', "/");
    match relative.ends_with(".md") {
        true => Ok(relative),
        false => Err(unknown("not a markdown decision record".into())),
    }
}

/// Say what the debaters read, loudly where a part was cut.
pub fn report(project: &ProjectContext, terminal: &Terminal) {
    let whole: Vec<String> = project.sources.iter().filter(|s| !s.cut()).map(|s| s.describe()).collect();
    if !whole.is_empty() {
        terminal.say(&format!("Project context: {}.", whole.join(", ")));
    }
    for source in project.sources.iter().filter(|s| s.cut()) {
        terminal.warn(&format!("{} (the context budget is {})", source.describe(), tokens(project.budget)));
    }
    match project.notes.len() {
        0 => {}
        1 => terminal.say(&format!("Not read: {}", project.notes[0])),
        n => terminal.say(&format!("{n} files could not be read; `debate --context-preview` lists them.")),
    }
}

/// Put the record where the repository keeps its decisions, numbered as they are,
/// unless the settings chose a directory or a file name. Says what it did.
fn follow_convention(
    record: &mut RecordSettings,
    convention: Option<&Convention>,
    chosen: Chosen,
    terminal: &Terminal,
) {
    let Some(convention) = convention else { return };
    let mut followed = Vec::new();
    if !chosen.record_directory
        && let Ok(directory) = RecordDirectory::try_from(convention.directory.clone())
    {
        record.directory = directory;
        followed.push(format!("goes to {}/", convention.directory));
    }
    if convention.numbered
        && !chosen.record_filename
        && let Ok(template) = FilenameTemplate::try_from("{number}-{slug}.md".to_string())
    {
        record.filename = template;
        followed.push("continues their numbering".into());
    }
    let numbered = if convention.numbered { "numbered 0001-…" } else { "not numbered" };
    let what = match followed.is_empty() {
        true => "the settings choose where this record goes".to_string(),
        false => format!("this record {}", followed.join(" and ")),
    };
    terminal.say(&format!(
        "Decision records here: {} in {}/, {numbered}; {what}.",
        convention.records, convention.directory
    ));
}
