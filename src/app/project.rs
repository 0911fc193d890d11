//! What a new debate tells the debaters about the project: the repository as
//! `context::gather` reads it (unless turned off) and the `--context` files, masked,
//! ranked and fitted to the budget; and where the record goes when the repository
//! already keeps decisions its own way.

use std::path::Path;

use crate::context::{self, Gathered};
use crate::model::{
    ContextFile, Convention, FilenameTemplate, ProjectContext, RecordDirectory, RecordSettings, tokens,
};
use crate::moderator::briefing;
use crate::settings::{Chosen, ContextSettings};
use crate::terminal::Terminal;
use crate::text::secrets::Masker;

/// The project context of a new debate, and the `--context` files as the debaters read
/// them. `pinned` are the records this debate supersedes: the debaters read them first.
pub(super) fn brief(
    root: &Path,
    question: &str,
    files: Vec<ContextFile>,
    settings: &ContextSettings,
    pinned: &[String],
    keys: &Masker,
    terminal: &Terminal,
) -> (ProjectContext, Vec<ContextFile>) {
    let gathered = match settings.repository {
        true => context::gather(root, keys),
        false => Gathered::default(),
    };
    for (file, what) in &gathered.masked {
        super::warn_masked(file, what, terminal);
    }
    let decisions = briefing::rank(question, gathered.decisions, settings.decisions.0, pinned);
    let (project, files) = briefing::compose(&gathered.facts, decisions, files, settings.budget_tokens.0);
    let project = ProjectContext {
        facts: gathered.facts,
        convention: gathered.convention,
        notes: gathered.notes,
        budget: settings.budget_tokens.0,
        repository: settings.repository,
        ..project
    };
    (project, files)
}

/// Say what the debaters read, loudly where a part was cut.
pub(super) fn report(project: &ProjectContext, terminal: &Terminal) {
    let whole: Vec<String> = project.sources.iter().filter(|s| !s.cut()).map(|s| s.describe()).collect();
    if !whole.is_empty() {
        terminal.say(&format!("Project context: {}.", whole.join(", ")));
    }
    for source in project.sources.iter().filter(|s| s.cut()) {
        terminal.warn(&format!("{} (the context budget is {})", source.describe(), tokens(project.budget)));
    }
    for note in &project.notes {
        terminal.say(&format!("Not read: {note}"));
    }
}

/// Put the record where the repository keeps its decisions, numbered as they are,
/// unless the settings chose a directory or a file name. Says what it did.
pub(super) fn follow_convention(
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
