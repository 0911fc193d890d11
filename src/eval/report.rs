//! A suite run's report: per model, each question's debate — whether it completed, its
//! wall time, tokens, cost and rounds, the option it chose against the team's, the
//! options it debated beside those expected and which of them it weighed (one to one),
//! the evaluators' marks — and the totals that compare the models; as JSON (the types
//! serialise) and as markdown. Pure.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;
use strum::IntoEnumIterator;

use crate::model::{Baseline, CheckKind, Criterion, Disagreement, Rounds, Scorecard, Usage, dollars};

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The suite file, as given.
    pub suite: String,
    /// When it ran (`YYYY-MM-DD`), and by which debate.
    pub date: String,
    pub tool: String,
    /// The rounds every question was debated for at most, when they were the same.
    pub max_rounds: Option<Rounds>,
    /// What each debate was compared with (`--baseline`), if anything.
    pub baseline: Option<Baseline>,
    /// One per model, in the order they ran.
    pub runs: Vec<Run>,
}

/// The suite debated by one model.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    /// What debated: `offline`, the configured provider's model, or a `--models` entry.
    pub model: String,
    /// Who scored the records.
    pub evaluators: Vec<String>,
    /// A model judged the records (offline marks are composed from their text).
    pub judged_by_a_model: bool,
    pub totals: Totals,
    /// The baselines added up, with `--baseline`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineTotals>,
    /// The records were judged by the debaters' own model family (or by each debate's
    /// moderator): a family tends to favour its own writing.
    pub judged_by_its_family: bool,
    pub debates: Vec<Debated>,
}

/// One question's debate.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Debated {
    pub question: String,
    pub domain: Option<String>,
    pub completed: bool,
    /// What stopped it, when it did not complete.
    pub error: Option<String>,
    pub wall_seconds: f64,
    pub tokens: Usage,
    /// `None` when a model it called has no price in the settings.
    pub cost_usd: Option<f64>,
    pub rounds: u32,
    pub ended_by: Option<String>,
    pub chosen_option: Option<String>,
    /// The option the team chose, as the suite says.
    pub team_chose: Option<String>,
    /// Whether the debate chose it (`None` without a team's choice or a finished debate).
    pub matches_team: Option<bool>,
    /// The options the suite expects weighed, those of them the debate weighed (`weighed`)
    /// and the options it debated.
    pub expected_options: Vec<String>,
    pub weighed_options: Vec<String>,
    pub debated_options: Vec<String>,
    #[serde(flatten)]
    pub marks: Marks,
    /// The question answered without a debate (`--baseline`), scored alike.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Answered>,
}

/// What the evaluators and the checks made of a record.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Marks {
    /// Each criterion's mark: the mean of the evaluators that gave one.
    pub scores: BTreeMap<Criterion, f64>,
    pub disagreements: Vec<Disagreement>,
    /// Every model that scored it gave all criteria one mark: its scores say nothing.
    pub uniform: bool,
    pub checks_passed: usize,
    pub checks: usize,
    /// The checks that found something.
    pub failed_checks: Vec<CheckKind>,
}

impl Marks {
    /// A scorecard's marks (each criterion's evaluators' mean, to a tenth), disagreements
    /// and checks.
    pub fn of(card: &Scorecard) -> Marks {
        Marks {
            scores: Criterion::iter().filter_map(|c| Some((c, (card.mean(c)? * 10.0).round() / 10.0))).collect(),
            disagreements: card.disagreements(),
            uniform: card.uniform(),
            checks_passed: card.checks.iter().filter(|c| c.passed()).count(),
            checks: card.checks.len(),
            failed_checks: card.failed_checks().map(|c| c.kind).collect(),
        }
    }
}

/// One question answered without a debate (`--baseline`), its record scored as the
/// debate's was.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Answered {
    pub completed: bool,
    /// What stopped it, when it did not complete.
    pub error: Option<String>,
    /// The option each answer chose, in the order asked: one for `single`, the vote's
    /// for `vote`.
    pub votes: Vec<Option<String>>,
    pub tokens: Usage,
    /// `None` when its model has no price in the settings.
    pub cost_usd: Option<f64>,
    pub chosen_option: Option<String>,
    pub matches_team: Option<bool>,
    #[serde(flatten)]
    pub marks: Marks,
    /// Each criterion both records were marked on, and whose mark won it.
    pub winners: BTreeMap<Criterion, Winner>,
}

/// Whose record a criterion's marks favour: a difference under half a mark is a tie.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Winner {
    Debate,
    Baseline,
    Tie,
}

impl Winner {
    pub fn of(debate: f64, baseline: f64) -> Winner {
        match debate - baseline {
            gap if gap >= 0.5 => Winner::Debate,
            gap if gap <= -0.5 => Winner::Baseline,
            _ => Winner::Tie,
        }
    }

    /// Per criterion both were marked on.
    pub fn each(debate: &Marks, baseline: &Marks) -> BTreeMap<Criterion, Winner> {
        debate.scores.iter().filter_map(|(c, d)| Some((*c, Winner::of(*d, *baseline.scores.get(c)?)))).collect()
    }
}

/// A run's baselines added up beside its debates.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BaselineTotals {
    pub completed: usize,
    pub tokens: Usage,
    /// `None` when any baseline's cost is not known.
    pub cost_usd: Option<f64>,
    /// Completed baselines whose question names the team's choice, and those that chose it.
    pub team_choices: usize,
    pub matching: usize,
    /// Each criterion's mean over the scored baselines.
    pub scores: BTreeMap<Criterion, f64>,
    /// Per criterion, how many questions each record won.
    pub wins: BTreeMap<Criterion, Wins>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Wins {
    pub debate: usize,
    pub baseline: usize,
    pub tie: usize,
}

impl BaselineTotals {
    /// `None` when no debate was compared with a baseline.
    pub fn of(debates: &[Debated]) -> Option<BaselineTotals> {
        let answered: Vec<&Answered> = debates.iter().filter_map(|d| d.baseline.as_ref()).collect();
        if answered.is_empty() {
            return None;
        }
        let done: Vec<&Answered> = answered.iter().copied().filter(|a| a.completed).collect();
        let mut wins: BTreeMap<Criterion, Wins> = BTreeMap::new();
        for (criterion, winner) in done.iter().flat_map(|a| &a.winners) {
            let tally = wins.entry(*criterion).or_default();
            match winner {
                Winner::Debate => tally.debate += 1,
                Winner::Baseline => tally.baseline += 1,
                Winner::Tie => tally.tie += 1,
            }
        }
        Some(BaselineTotals {
            completed: done.len(),
            tokens: answered.iter().fold(Usage::default(), |sum, a| sum + a.tokens),
            cost_usd: answered.iter().map(|a| a.cost_usd).sum(),
            team_choices: done.iter().filter(|a| a.matches_team.is_some()).count(),
            matching: done.iter().filter(|a| a.matches_team == Some(true)).count(),
            scores: means(done.iter().map(|a| &a.marks)),
            wins,
        })
    }
}

/// Each criterion's mean over the marks that have one.
fn means<'a>(marks: impl Iterator<Item = &'a Marks> + Clone) -> BTreeMap<Criterion, f64> {
    Criterion::iter()
        .filter_map(|criterion| {
            let given: Vec<f64> = marks.clone().filter_map(|m| m.scores.get(&criterion).copied()).collect();
            (!given.is_empty()).then(|| (criterion, given.iter().sum::<f64>() / given.len() as f64))
        })
        .collect()
}

/// A run's debates added up.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Totals {
    pub questions: usize,
    pub completed: usize,
    pub wall_seconds: f64,
    pub tokens: Usage,
    /// `None` when any debate's cost is not known.
    pub cost_usd: Option<f64>,
    pub rounds: u32,
    /// Completed debates whose question names the team's choice, and those that chose it.
    pub team_choices: usize,
    pub matching: usize,
    pub expected_options: usize,
    pub weighed_options: usize,
    /// Each criterion's mean over the scored debates.
    pub scores: BTreeMap<Criterion, f64>,
    pub disagreements: usize,
    /// Scored records whose every mark was the same, by every model that scored them.
    pub uniform: usize,
    pub checks_passed: usize,
    pub checks: usize,
}

/// Whether a debated option is the expected one: the same words, case, punctuation and
/// articles aside ("an outbox table" is "outbox table"). Holding its words is not being
/// it: "Write the new CLI in Go" is not "Go".
pub fn is_option(debated: &str, expected: &str) -> bool {
    let expected = plain(expected);
    !expected.is_empty() && plain(debated) == expected
}

/// Whether a finished record chose the team's option; `None` without a team's choice or
/// a finished record.
pub fn chose_the_teams(team: Option<&str>, chosen: Option<&str>, finished: bool) -> Option<bool> {
    let team = team.filter(|_| finished)?;
    Some(chosen.is_some_and(|chosen| is_option(chosen, team)))
}

/// The expected options a debate weighed, read one to one: each that exactly one debated
/// option is, and that one no other expected option. A debated option that holds two
/// ("Write the new CLI in Go or in Rust") is neither of them.
pub fn weighed(expected: &[String], debated: &[String]) -> Vec<String> {
    let one_to_one = |wanted: &String| match debated.iter().filter(|d| is_option(d, wanted)).collect::<Vec<_>>()[..] {
        [one] => expected.iter().filter(|other| is_option(one, other)).count() == 1,
        _ => false,
    };
    expected.iter().filter(|wanted| one_to_one(wanted)).cloned().collect()
}

/// An option's words, lowercase, without punctuation or articles.
fn plain(option: &str) -> String {
    let lower = option.to_lowercase();
    let words =
        lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty() && !["a", "an", "the"].contains(w));
    words.collect::<Vec<_>>().join(" ")
}

impl Totals {
    pub fn of(debates: &[Debated]) -> Totals {
        let done: Vec<&Debated> = debates.iter().filter(|d| d.completed).collect();
        let scores = means(done.iter().map(|d| &d.marks));
        Totals {
            questions: debates.len(),
            completed: done.len(),
            wall_seconds: debates.iter().map(|d| d.wall_seconds).sum(),
            tokens: debates.iter().fold(Usage::default(), |sum, d| sum + d.tokens),
            cost_usd: debates.iter().map(|d| d.cost_usd).sum(),
            rounds: debates.iter().map(|d| d.rounds).sum(),
            team_choices: done.iter().filter(|d| d.matches_team.is_some()).count(),
            matching: done.iter().filter(|d| d.matches_team == Some(true)).count(),
            expected_options: done.iter().map(|d| d.expected_options.len()).sum(),
            weighed_options: done.iter().map(|d| d.weighed_options.len()).sum(),
            scores,
            disagreements: done.iter().map(|d| d.marks.disagreements.len()).sum(),
            uniform: done.iter().filter(|d| d.marks.uniform).count(),
            checks_passed: done.iter().map(|d| d.marks.checks_passed).sum(),
            checks: done.iter().map(|d| d.marks.checks).sum(),
        }
    }
}

/// The report as markdown: how it ran, the models side by side, then each model's
/// questions.
pub fn markdown(report: &Report) -> String {
    let mut out = String::from("# Evaluation suite report\n\n");
    let questions = report.runs.first().map_or(0, |r| r.totals.questions);
    let rounds = match report.max_rounds.map(Rounds::get) {
        Some(1) => "at most 1 round each".to_string(),
        Some(n) => format!("at most {n} rounds each"),
        None => "the rounds each question and the settings allow".to_string(),
    };
    let _ = writeln!(
        out,
        "Suite `{}`: {questions} questions, run {} by {}, each debated in a throwaway repository with checkpoints \
         off, for {rounds}. Scores are from 1 to 10: each criterion's mark, the evaluators' mean, averaged over the \
         completed debates.\n",
        // A code span shows anything but a backtick as it is.
        crate::text::untrusted::one_line(&report.suite).replace('`', "'"),
        report.date,
        report.tool
    );
    out.push_str("## Models\n\n");
    let _ = writeln!(
        out,
        "| Model | Completed | Wall time | Tokens | Cost | Rounds | Chose the team's option | Expected options weighed |{} Disagreements | Checks passed |",
        criteria_header()
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|{}---|---|", "---|".repeat(Criterion::iter().count()));
    for run in &report.runs {
        let t = &run.totals;
        let _ = writeln!(
            out,
            "| {} | {}/{} | {} | {} | {} | {} | {} | {}/{} |{} {} | {}/{} |",
            cell(&run.model),
            t.completed,
            t.questions,
            seconds(t.wall_seconds),
            tokens(&t.tokens),
            cost(t.cost_usd),
            t.rounds,
            ratio(t.matching, t.team_choices),
            t.weighed_options,
            t.expected_options,
            criteria_cells(&t.scores),
            t.disagreements,
            t.checks_passed,
            t.checks,
        );
    }
    for run in report.runs.iter().filter(|run| !run.judged_by_a_model) {
        let _ = writeln!(
            out,
            "\n> **{}**: the marks were composed from the records' text by the offline provider — not a model's judgement.",
            cell(&run.model)
        );
    }
    for run in report.runs.iter().filter(|run| run.totals.uniform > 0) {
        let _ = writeln!(
            out,
            "\n> **{}**: in {} of {} scored records the evaluators gave every criterion the same mark — marks that \
             do not tell the criteria apart say nothing about a record.",
            cell(&run.model),
            run.totals.uniform,
            run.totals.completed
        );
    }
    if let Some(kind) = report.baseline {
        against_baseline(&mut out, report, kind);
    }
    for run in &report.runs {
        let _ = writeln!(out, "\n## {}\n", cell(&run.model));
        let _ = writeln!(out, "Scored by {}.\n", cell(&run.evaluators.join(", ")));
        let _ = writeln!(
            out,
            "| # | Domain | Question | Result | Time | Tokens | Rounds | Chosen | Team chose |{} Checks | Expected \
             options | Debated options |",
            criteria_header()
        );
        let _ = writeln!(
            out,
            "|---|---|---|---|---|---|---|---|---|{}---|---|---|",
            "---|".repeat(Criterion::iter().count())
        );
        for (at, d) in run.debates.iter().enumerate() {
            let result = match (&d.error, d.completed) {
                (Some(error), _) => format!("failed: {error}"),
                (None, true) => d.ended_by.clone().unwrap_or_else(|| "complete".into()),
                (None, false) => "not complete".into(),
            };
            let team = match (&d.team_chose, d.matches_team) {
                (Some(team), Some(true)) => format!("{team} ✓"),
                (Some(team), _) => format!("{team} ✗"),
                (None, _) => "—".into(),
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |{} {} | {} | {} |",
                at + 1,
                cell(d.domain.as_deref().unwrap_or("—")),
                cell(&d.question),
                cell(&result),
                seconds(d.wall_seconds),
                tokens(&d.tokens),
                d.rounds,
                cell(d.chosen_option.as_deref().unwrap_or("—")),
                cell(&team),
                criteria_cells(&d.marks.scores),
                checks(&d.marks),
                cell(&expected(d)),
                cell(&listed(&d.debated_options)),
            );
        }
        let disagreements: Vec<String> = run
            .debates
            .iter()
            .enumerate()
            .flat_map(|(at, d)| d.marks.disagreements.iter().map(move |x| (at, x)))
            .map(|(at, x)| {
                format!(
                    "- Question {}: the evaluators disagree on {}: {} ({}) and {} ({}).",
                    at + 1,
                    x.criterion.as_str(),
                    x.lowest,
                    cell(&x.lowest_by),
                    x.highest,
                    cell(&x.highest_by)
                )
            })
            .collect();
        if !disagreements.is_empty() {
            let _ = writeln!(out, "\n{}", disagreements.join("\n"));
        }
        if run.baseline.is_some() {
            baseline_questions(&mut out, run);
        }
    }
    out
}

/// The debates against the baselines, per model: each criterion's marks and who won it
/// how often, then tokens, cost and the team's choice side by side.
fn against_baseline(out: &mut String, report: &Report, kind: Baseline) {
    let how = match kind {
        Baseline::Single => "one answer of the same model (`single`)",
        Baseline::Vote => "the majority of as many answers of the same model as the debate's tokens paid for (`vote`)",
    };
    let _ = writeln!(
        out,
        "\n## Debate against {how}\n\nEach question was also answered without a debate, from the same question, \
         options and project context, and its record scored as the debate's was. A criterion goes to the record marked \
         higher by half a mark or more; closer is a tie.\n"
    );
    let _ = writeln!(out, "| Model | Criterion | Debate | Baseline | Debate won | Baseline won | Tie |");
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    for run in &report.runs {
        let Some(baseline) = &run.baseline else { continue };
        for criterion in Criterion::iter() {
            let wins = baseline.wins.get(&criterion).copied().unwrap_or_default();
            let mark =
                |scores: &BTreeMap<Criterion, f64>| scores.get(&criterion).map_or("—".into(), |s| format!("{s:.1}"));
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} |",
                cell(&run.model),
                title(criterion),
                mark(&run.totals.scores),
                mark(&baseline.scores),
                wins.debate,
                wins.baseline,
                wins.tie
            );
        }
    }
    let _ = writeln!(out, "\n| Model | Completed | Tokens | Cost | Chose the team's option |");
    let _ = writeln!(out, "|---|---|---|---|---|");
    for run in &report.runs {
        let Some(baseline) = &run.baseline else { continue };
        let (t, b) = (&run.totals, baseline);
        let _ = writeln!(
            out,
            "| {} | debate {}/{} · baseline {}/{} | {} · {} | {} · {} | {} · {} |",
            cell(&run.model),
            t.completed,
            t.questions,
            b.completed,
            t.questions,
            tokens(&t.tokens),
            tokens(&b.tokens),
            cost(t.cost_usd),
            cost(b.cost_usd),
            ratio(t.matching, t.team_choices),
            ratio(b.matching, b.team_choices),
        );
    }
    for run in report.runs.iter().filter(|run| run.baseline.is_some() && run.judged_by_its_family) {
        let _ = writeln!(
            out,
            "\n> **{}**: the records were judged by the debaters' own model family. A family tends to favour its own \
             writing; run the suite again with `--evaluators` naming a model of another family for a fairer verdict.",
            cell(&run.model)
        );
    }
}

/// One model's baselines, question by question.
fn baseline_questions(out: &mut String, run: &Run) {
    let _ = writeln!(out, "\nWithout a debate:\n");
    let _ = writeln!(out, "| # | Result | Tokens | Chosen | Votes |{} Checks | Won by the debate |", criteria_header());
    let _ = writeln!(out, "|---|---|---|---|---|{}---|---|", "---|".repeat(Criterion::iter().count()));
    for (at, answered) in run.debates.iter().enumerate().filter_map(|(at, d)| Some((at, d.baseline.as_ref()?))) {
        let result = match (&answered.error, answered.completed) {
            (Some(error), _) => format!("failed: {error}"),
            (None, true) => "complete".into(),
            (None, false) => "not complete".into(),
        };
        let votes: Vec<String> =
            answered.votes.iter().map(|v| v.clone().unwrap_or_else(|| "no choice".into())).collect();
        let won: Vec<&str> =
            answered.winners.iter().filter(|(_, w)| **w == Winner::Debate).map(|(c, _)| title(*c)).collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |{} {} | {} |",
            at + 1,
            cell(&result),
            tokens(&answered.tokens),
            cell(answered.chosen_option.as_deref().unwrap_or("—")),
            cell(&listed(&votes)),
            criteria_cells(&answered.marks.scores),
            checks(&answered.marks),
            cell(&listed(&won.iter().map(|w| w.to_string()).collect::<Vec<_>>())),
        );
    }
}

fn criteria_header() -> String {
    Criterion::iter().map(|c| format!(" {} |", title(c))).collect()
}

fn criteria_cells(scores: &BTreeMap<Criterion, f64>) -> String {
    Criterion::iter().map(|c| format!(" {} |", scores.get(&c).map_or("—".into(), |s| format!("{s:.1}")))).collect()
}

/// A criterion as a column is headed.
fn title(criterion: Criterion) -> &'static str {
    match criterion {
        Criterion::Decision => "Decision",
        Criterion::Options => "Options",
        Criterion::Context => "Context",
        Criterion::Dissent => "Dissent",
        Criterion::FollowThrough => "Follow-through",
    }
}

/// Text for a table cell, as a record's are: one line, no markup or HTML of its own, no
/// `|` that would end it (a suite's question is anyone's text).
fn cell(text: &str) -> String {
    crate::text::markdown::cell(text)
}

fn seconds(s: f64) -> String {
    format!("{s:.1} s")
}

fn tokens(usage: &Usage) -> String {
    (usage.prompt_tokens + usage.completion_tokens).to_string()
}

fn cost(usd: Option<f64>) -> String {
    match usd {
        None => "unknown".into(),
        Some(0.0) => "none".into(),
        Some(usd) => dollars(usd),
    }
}

/// The expected options, each marked weighed or not: "Redis ✓ · Postgres ✗".
fn expected(d: &Debated) -> String {
    let marked = d.expected_options.iter().map(|o| match d.weighed_options.contains(o) {
        true => format!("{o} ✓"),
        false => format!("{o} ✗"),
    });
    listed(&marked.collect::<Vec<_>>())
}

/// Options in a cell, apart by a dot: an option may hold a comma of its own.
fn listed(options: &[String]) -> String {
    match options.is_empty() {
        true => "—".into(),
        false => options.join(" · "),
    }
}

/// "3/4", and the checks that failed: "2/4: placeholders, options".
fn checks(m: &Marks) -> String {
    let failed: Vec<&str> = m.failed_checks.iter().map(|c| c.as_str()).collect();
    match failed.is_empty() {
        true => ratio(m.checks_passed, m.checks),
        false => format!("{}: {}", ratio(m.checks_passed, m.checks), failed.join(", ")),
    }
}

fn ratio(part: usize, whole: usize) -> String {
    match whole {
        0 => "—".into(),
        _ => format!("{part}/{whole}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn debated(question: &str, completed: bool, decision: f64, matches: Option<bool>) -> Debated {
        Debated {
            question: question.into(),
            domain: Some("data".into()),
            completed,
            error: (!completed).then(|| "the server is down".into()),
            wall_seconds: 1.5,
            tokens: Usage { prompt_tokens: 100, cached_tokens: 0, completion_tokens: 20, latency_ms: 0, retries: 0 },
            cost_usd: Some(0.01),
            rounds: u32::from(completed),
            ended_by: completed.then(|| "max-rounds".into()),
            chosen_option: completed.then(|| "Postgres".into()),
            team_chose: Some("Postgres".into()),
            matches_team: matches,
            expected_options: vec!["Redis".into(), "Postgres".into()],
            weighed_options: vec!["Postgres".into()],
            debated_options: vec!["Redis as a cache".into(), "Postgres".into()],
            marks: Marks {
                scores: [(Criterion::Decision, decision), (Criterion::Options, 6.0)].into_iter().collect(),
                disagreements: Vec::new(),
                uniform: false,
                checks_passed: 3,
                checks: 4,
                failed_checks: vec![CheckKind::Placeholders],
            },
            baseline: None,
        }
    }

    #[test]
    fn an_expected_option_is_weighed_when_one_debated_option_is_it() {
        let strings = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let weighs = |expected: &[&str], debated: &[&str]| weighed(&strings(expected), &strings(debated));
        assert_eq!(weighs(&["Redis", "Postgres"], &["redis", "Postgres."]), ["Redis", "Postgres"], "case, punctuation");
        assert_eq!(weighs(&["outbox table"], &["SQS", "an outbox table"]), ["outbox table"], "articles");
        assert_eq!(
            weighs(&["Go", "Rust"], &["Write the new CLI in Go or in Rust", "Keep what we have"]),
            Vec::<String>::new(),
            "a debated option that holds both is neither"
        );
        assert_eq!(
            weighs(&["Go", "Rust"], &["Write the new CLI in Go", "Rust"]),
            ["Rust"],
            "holding its words is not being it"
        );
        assert_eq!(
            weighs(&["Redis"], &["Redis", "redis"]),
            Vec::<String>::new(),
            "two debated options for one: no one to one"
        );
        assert!(is_option("Keep Python", "keep Python") && !is_option("Keep Python", "Python"));
        assert!(!is_option("", "") && !is_option("The", "a"), "no words is no option");
    }

    #[test]
    fn totals_count_what_completed_and_average_the_scores() {
        let debates = [
            debated("A or B?", true, 8.0, Some(true)),
            debated("C or D?", true, 5.0, Some(false)),
            debated("E | F?", false, 1.0, None),
        ];
        let t = Totals::of(&debates);
        assert_eq!((t.questions, t.completed, t.rounds), (3, 2, 2));
        assert_eq!((t.team_choices, t.matching), (2, 1));
        assert_eq!((t.expected_options, t.weighed_options, t.checks_passed, t.checks), (4, 2, 6, 8));
        assert_eq!(t.scores[&Criterion::Decision], 6.5, "the failed debate's marks are left out");
        assert_eq!(t.tokens.prompt_tokens, 300, "tokens and time count every debate");
        assert!((t.cost_usd.unwrap() - 0.03).abs() < 1e-9);
        let unknown = Debated { cost_usd: None, ..debated("G?", true, 1.0, None) };
        assert_eq!(Totals::of(&[unknown]).cost_usd, None);
    }

    #[test]
    fn records_a_model_marked_alike_on_every_criterion_are_counted_and_said() {
        let debates = vec![
            {
                let mut alike = debated("A or B?", true, 10.0, None);
                alike.marks.uniform = true;
                alike
            },
            debated("C or D?", true, 7.0, None),
        ];
        let totals = Totals::of(&debates);
        assert_eq!(totals.uniform, 1);
        let run = Run {
            model: "gemma".into(),
            evaluators: vec!["gemma".into()],
            judged_by_a_model: true,
            totals,
            baseline: None,
            judged_by_its_family: true,
            debates,
        };
        let report = Report {
            suite: "s.yaml".into(),
            date: "2026-11-27".into(),
            tool: "debate".into(),
            max_rounds: None,
            baseline: None,
            runs: vec![run],
        };
        let text = markdown(&report);
        assert!(
            text.contains("> **gemma**: in 1 of 2 scored records the evaluators gave every criterion the same mark"),
            "{text}"
        );
    }

    #[test]
    fn what_the_report_quotes_is_text_never_markup() {
        let mut report = Report {
            suite: "suites/`odd`.yaml".into(),
            date: "2026-11-27".into(),
            tool: "debate 0.1.0".into(),
            max_rounds: None,
            baseline: None,
            runs: Vec::new(),
        };
        let mut hostile = debated("Redis <script>alert(1)</script> | or\n# Postgres?", true, 7.0, None);
        hostile.chosen_option = Some("<img src=x onerror=alert(1)>".into());
        report.runs.push(Run {
            model: "m<b>".into(),
            evaluators: vec!["e".into()],
            judged_by_a_model: true,
            totals: Totals::of(std::slice::from_ref(&hostile)),
            baseline: None,
            judged_by_its_family: false,
            debates: vec![hostile],
        });
        let text = markdown(&report);
        assert!(!text.contains("<script>") && !text.contains("<img") && !text.contains("<b>"), "{text}");
        assert!(!text.contains("\n# Postgres"), "{text}");
        assert!(text.contains("Suite `suites/'odd'.yaml`"), "{text}");
        let row = text.lines().find(|l| l.contains("alert(1)") && l.contains("Redis")).unwrap();
        assert_eq!(
            row.matches(" | ").count() + 2,
            text.lines().find(|l| l.starts_with("| # |")).unwrap().matches('|').count(),
            "{row}"
        );
    }

    #[test]
    fn the_markdown_compares_the_models_then_lists_each_question() {
        let debates = vec![debated("A or B?", true, 8.0, Some(true)), debated("E | F?", false, 1.0, None)];
        let run = Run {
            model: "offline".into(),
            evaluators: vec!["offline".into()],
            judged_by_a_model: false,
            totals: Totals::of(&debates),
            baseline: None,
            judged_by_its_family: false,
            debates,
        };
        let report = Report {
            suite: "docs/eval/suite.yaml".into(),
            date: "2026-11-27".into(),
            tool: "debate 0.1.0".into(),
            max_rounds: Rounds::try_from(1).ok(),
            baseline: None,
            runs: vec![run],
        };
        let text = markdown(&report);
        assert!(text.contains("Suite `docs/eval/suite.yaml`: 2 questions, run 2026-11-27 by debate 0.1.0"), "{text}");
        assert!(
            text.contains(
                "| offline | 1/2 | 3.0 s | 240 | $0.0200 | 1 | 1/1 | 1/2 | 8.0 | 6.0 | — | — | — | 0 | 3/4 |"
            ),
            "{text}"
        );
        assert!(text.contains("> **offline**: the marks were composed from the records' text"), "{text}");
        assert!(!text.contains("the same mark"), "{text}");
        assert!(
            text.contains("| 1 | data | A or B? | max-rounds | 1.5 s | 120 | 1 | Postgres | Postgres ✓ | 8.0 |"),
            "{text}"
        );
        assert!(text.contains("| 2 | data | E \\| F? | failed: the server is down |"), "{text}");
        assert!(text.contains("| 3/4: placeholders |"), "{text}");
        assert!(text.contains("| Checks | Expected options | Debated options |"), "{text}");
        assert!(
            text.contains("| Redis ✗ · Postgres ✓ | Redis as a cache · Postgres |"),
            "the debated beside the expected: {text}"
        );
    }
}
