//! One answer at the debate's budget (`debate eval --suite --baseline`): a suite's
//! question answered without a debate by the debaters' model — once, or as a majority
//! vote of as many answers as the debate's tokens pay for —, its record written beside
//! the debate's in the same throwaway repository, and scored as the debate's was.

use std::path::Path;

use futures::future::join_all;

use crate::app::commands::eval::{self, Evaluators};
use crate::engine::calls::{self, Ask, Asked};
use crate::engine::step;
use crate::error::{Error, Result};
use crate::eval::baseline;
use crate::eval::report::{Answered, Marks, Winner};
use crate::model::{Baseline, Completion, Cost, DebateState, Source, Status, Synthesis, Usage};
use crate::moderator::synthesis;
use crate::providers;
use crate::record::{Templates, WorkTree};
use crate::settings::Settings;
use crate::store::Store;
use crate::terminal::Terminal;

/// What a baseline is compared with and scored by: the suite's own scoring of the debate.
pub struct Scoring<'a> {
    pub who: Evaluators<'a>,
    pub store: &'a Store,
    pub settings: &'a Settings,
    pub templates: &'a Templates,
    pub terminal: &'a Terminal,
}

/// The baseline of `debated` (a completed debate whose record was scored as `marks`),
/// answered, written into `repo` and scored. Only an interruption is an error: a
/// baseline that fails is reported as such.
pub async fn compare(
    kind: Baseline,
    debated: &DebateState,
    marks: &Marks,
    repo: &Path,
    scoring: &Scoring<'_>,
) -> Result<Answered> {
    let (state, votes) = match answer(kind, debated, scoring.settings).await {
        Ok(answered) => answered,
        Err(err) if err.exit_code() >= 128 => return Err(err),
        Err(err) => return Ok(Answered { error: Some(err.to_string()), ..Answered::default() }),
    };
    let chosen_option = state.outcome.as_ref().and_then(|o| o.synthesis.chosen_option.clone());
    let mut answered = Answered {
        votes,
        tokens: state.totals,
        cost_usd: Cost::of(&state).known(),
        chosen_option,
        ..Answered::default()
    };
    let written = write_record(&state, repo, scoring.templates);
    let scored = match written {
        Ok(state) => {
            eval::score(scoring.who, scoring.store, &state, scoring.settings, scoring.templates, scoring.terminal).await
        }
        Err(err) => Err(err),
    };
    match scored {
        Ok(card) => {
            answered.completed = true;
            answered.marks = Marks::of(&card);
            answered.winners = Winner::each(marks, &answered.marks);
            Ok(answered)
        }
        Err(err) if err.exit_code() >= 128 => Err(err),
        Err(err) => {
            answered.error = Some(format!("the record could not be scored: {err}"));
            Ok(answered)
        }
    }
}

/// The question answered without a debate, as a completed state with its outcome, and
/// the option each answer chose.
async fn answer(
    kind: Baseline,
    debated: &DebateState,
    settings: &Settings,
) -> Result<(DebateState, Vec<Option<String>>)> {
    let mut state = baseline::starting_point(debated, kind);
    let role = state.snapshot.debater.clone();
    let built = providers::build_panel(&role, std::slice::from_ref(&role), &state.snapshot.providers, settings)?;
    let provider = built.moderator.as_ref();
    let decisions: Vec<String> = state.snapshot.project.decisions.iter().map(|d| d.path.clone()).collect();
    let known = synthesis::Known { panel: &[], options: &state.analysis.options, decisions: &decisions };
    let read = |text: &str| synthesis::parse(text, &known).ok();
    let asked = || Asked { provider, secrets: &built.secrets, strict: &built.strict, retries: &built.retries };
    let mut answers = vec![calls::ask_structured(asked(), &state, &Ask::Single, read).await?];
    if kind == Baseline::Vote {
        let debate_tokens = spent(&debated.totals);
        let more = baseline::votes(debate_tokens, spent(&answers[0].0.usage)) - 1;
        let sampled = join_all((0..more).map(|_| calls::ask_structured(asked(), &state, &Ask::Single, read))).await;
        for sample in sampled {
            answers.push(sample?);
        }
    }
    let votes: Vec<Option<String>> =
        answers.iter().map(|(_, parsed)| parsed.as_ref().and_then(|(s, _)| s.chosen_option.clone())).collect();
    for (completion, _) in &answers {
        spend(&mut state, completion);
    }
    let at = baseline::majority(&votes);
    let (synthesis, source) = pick(answers, at)
        .ok_or_else(|| Error::input("no answer of the model could be read as a decision, even asked again strictly"))?;
    let unreasoned: Vec<String> = match provider.identity().reasoned {
        true => Vec::new(),
        false => {
            let by = providers::label(provider.identity().kind).unwrap_or("a provider no model stands behind");
            vec![format!("The answer came from {by}.")]
        }
    };
    state.outcome = Some(step::outcome(&state, synthesis, source, &unreasoned));
    state.status = Status::Complete;
    Ok((state, votes))
}

/// The answer at `at`, or the first that could be read.
fn pick(answers: Vec<(Completion, Option<(Synthesis, Source)>)>, at: usize) -> Option<(Synthesis, Source)> {
    let mut readable: Vec<(usize, (Synthesis, Source))> =
        answers.into_iter().enumerate().filter_map(|(i, (_, parsed))| Some((i, parsed?))).collect();
    let chosen = readable.iter().position(|(i, _)| *i == at).unwrap_or(0);
    (!readable.is_empty()).then(|| readable.swap_remove(chosen).1)
}

fn spent(usage: &Usage) -> u64 {
    usage.prompt_tokens + usage.completion_tokens
}

fn spend(state: &mut DebateState, completion: &Completion) {
    state.totals = state.totals + completion.usage;
    match state.usage_by_model.iter_mut().find(|(model, _)| *model == completion.model) {
        Some((_, usage)) => *usage = *usage + completion.usage,
        None => state.usage_by_model.push((completion.model.clone(), completion.usage)),
    }
}

/// The baseline's record, rendered as any record is and written beside the debate's.
fn write_record(state: &DebateState, repo: &Path, templates: &Templates) -> Result<DebateState> {
    let relative = Path::new("docs/decisions").join(format!("baseline-{}.md", state.id.to_lowercase()));
    let rendered = templates.decision(state, &relative)?;
    WorkTree::open(repo)?.create(&relative, rendered.decision.as_bytes())?;
    let mut state = state.clone();
    state.record_path = Some(repo.join(&relative).to_string_lossy().into_owned());
    Ok(state)
}
