//! The record's templates: debate's own or the repository's `.debate/templates/…`, read
//! and checked once, and rendered with minijinja into the record and its transcript.
//! Every value a template prints is escaped as one line of markdown.

use std::path::Path;

use minijinja::{AutoEscape, Environment, Value};
use serde::Serialize;

use crate::model::{DebateState, TranscriptPlacement};
use crate::record::read::carried;
use crate::record::render::context::{self, SidecarLink};
use crate::record::render::layout::{compose, log_before_transcript, shows_plainly};
use crate::record::render::transcript::transcript;
use crate::record::render::{front_matter, links};
use crate::record::write::worktree::WorkTree;
use crate::record::{RecordError, Result};
use crate::text::markdown;

/// A template the repository may override in `.debate/templates/<name>`.
struct Template {
    name: &'static str,
    built_in: &'static str,
}

const DECISION: Template = Template { name: "decision.md", built_in: include_str!("../../../templates/decision.md") };
const ISSUE: Template = Template { name: "issue.md", built_in: include_str!("../../../templates/issue.md") };
const TRANSCRIPT: Template =
    Template { name: "transcript.md", built_in: include_str!("../../../templates/transcript.md") };
/// The parts of a record no template writes: the notices of who wrote it and what
/// degraded it, and its provenance.
const HONESTY: &str = include_str!("../../../templates/honesty.md");
const PROVENANCE: &str = include_str!("../../../templates/provenance.md");

/// The record and issue templates of a repository, read and checked once, before a
/// debate starts or resumes, so a broken override is reported before any model call
/// and what is rendered later is exactly what was checked.
pub struct Templates {
    pub(super) decision: String,
    pub(super) issue: String,
    pub(super) transcript: String,
}

/// A debate's record as written: the decision, and the transcript file beside it when
/// the transcript is not inline.
pub struct Rendered {
    pub decision: String,
    pub sidecar: Option<String>,
}

impl Templates {
    pub fn load(repo_root: &Path) -> Result<Templates> {
        Ok(Templates {
            decision: read(repo_root, &DECISION)?,
            issue: read(repo_root, &ISSUE)?,
            transcript: read(repo_root, &TRANSCRIPT)?,
        })
    }

    /// The decision record of a debate that has its outcome, and its transcript.
    pub fn decision(&self, state: &DebateState, path: &Path) -> Result<Rendered> {
        // The debate itself travels at the transcript's end, for a clone that never ran it.
        let transcript = render(&self.transcript, TRANSCRIPT.name, &transcript(state))? + &carried::block(state) + "\n";
        let sidecar_name = sidecar_path(path).and_then(|p| Some(p.file_name()?.to_string_lossy().into_owned()));
        let (inline, sidecar) = match (state.snapshot.record.transcript, sidecar_name) {
            (TranscriptPlacement::Sidecar, Some(name)) => {
                let heading = format!("# Transcript of {}: {}\n\n", state.id, markdown::line(state.decision_title()));
                (None, Some((name, heading + &transcript)))
            }
            _ => (Some(transcript), None),
        };
        let mut context = context::of(state)?;
        context.transcript = inline.map(Value::from_safe_string);
        context.transcript_file =
            sidecar.as_ref().map(|(name, _)| SidecarLink { link: links::relative("", name), name: name.clone() });
        let rendered = render(&self.decision, DECISION.name, &context)?;
        let (extra, body) = front_matter::split(&rendered).map_err(|why| RecordError::Render {
            name: DECISION.name,
            source: minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, why),
        })?;
        let front = front_matter::write(&context::front_matter_fields(&context), &extra);
        context.log_above = log_before_transcript(body);
        let notes = render(HONESTY, "honesty.md", &context)?;
        let provenance = render(PROVENANCE, "provenance.md", &context)?;
        let decision = compose(&front, body, &notes, &provenance);
        if !shows_plainly(&decision, !notes.trim().is_empty()) {
            return Err(RecordError::Hides);
        }
        Ok(Rendered { decision, sidecar: sidecar.map(|(_, text)| text) })
    }

    pub fn issue<S: Serialize>(&self, context: &S) -> Result<String> {
        render(&self.issue, ISSUE.name, context)
    }

    /// debate's own templates, as in a repository that overrides none.
    #[cfg(test)]
    pub fn built_in() -> Templates {
        Templates {
            decision: DECISION.built_in.into(),
            issue: ISSUE.built_in.into(),
            transcript: TRANSCRIPT.built_in.into(),
        }
    }
}

fn read(repo_root: &Path, template: &Template) -> Result<String> {
    let relative = Path::new(".debate").join("templates").join(template.name);
    let path = repo_root.join(&relative);
    // A repository's template is read as any file in it is: never through a link.
    let text = match WorkTree::open(repo_root).and_then(|tree| tree.read(&relative)) {
        Ok(Some(bytes)) => String::from_utf8(bytes).map_err(|_| RecordError::ReadTemplate {
            path: path.clone(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8"),
        })?,
        Ok(None) => template.built_in.to_string(),
        Err(RecordError::Read { source, .. } | RecordError::Write { source, .. }) => {
            return Err(RecordError::ReadTemplate { path, source });
        }
        Err(err) => return Err(err),
    };
    environment().template_from_str(&text).map_err(|source| RecordError::Template { path: path.clone(), source })?;
    // No loader stands behind a template, so an include could only fail after every
    // model call, and `safe` would print a value unescaped: both are refused now.
    let refused = [
        (&*INCLUDES, "a record template cannot include, import or extend other templates"),
        (&*UNESCAPED, "a record template prints values escaped only"),
    ];
    if let Some((tag, why)) = refused.iter().find_map(|(pattern, why)| Some((pattern.find(&text)?, why))) {
        let source =
            minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, format!("`{}`: {why}", tag.as_str()));
        return Err(RecordError::Template { path, source });
    }
    Ok(text)
}

static INCLUDES: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"\{%[-+]?\s*(?:include|import|from|extends)\b[^%]*%\}").expect("a valid pattern")
});
static UNESCAPED: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"\|\s*safe\b").expect("a valid pattern"));

fn render<S: Serialize>(text: &str, name: &'static str, context: &S) -> Result<String> {
    environment().render_str(text, context).map_err(|source| RecordError::Render { name, source })
}

/// `<record>.transcript.md` beside the record at `path`.
pub fn sidecar_path(path: &Path) -> Option<std::path::PathBuf> {
    let stem = path.file_stem()?.to_string_lossy();
    Some(path.with_file_name(format!("{stem}.transcript.md")))
}

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.set_keep_trailing_newline(true);
    // Every value a template prints is made safe as one line of markdown unless a
    // filter below already made it safe its own way: a repository's template that
    // prints `{{ recommendation }}` bare still cannot break the record's structure.
    env.set_auto_escape_callback(|_| AutoEscape::Custom("markdown"));
    env.set_formatter(|out, _state, value| {
        match value.as_str() {
            Some(text) if !value.is_safe() => out.write_str(&markdown::line(text))?,
            _ if value.is_undefined() => {}
            _ => write!(out, "{value}")?,
        }
        Ok(())
    });
    let safe = |f: fn(&str) -> String| move |value: String| Value::from_safe_string(f(&value));
    // For a repository template's own front matter keys: one line of YAML, read back as
    // the value whatever quotes or colons it holds.
    env.add_filter("yaml", |value: Value| {
        let json = serde_json::to_value(&value).unwrap_or(serde_json::Value::Null);
        Value::from_safe_string(front_matter::flow(&json))
    });
    env.add_filter("line", safe(markdown::line));
    env.add_filter("link_text", safe(markdown::link_text));
    env.add_filter("cell", safe(markdown::cell));
    env.add_filter("block", safe(markdown::block));
    // A template prints escaped values only.
    env.remove_filter("safe");
    env
}
