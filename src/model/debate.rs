//! A debate as stored: its status, the rules it runs under, the panel, the rounds and
//! their contributions. The store reads and writes it; the engine derives its next step
//! from it.

use std::collections::BTreeMap;

use super::budget::Cap;

use serde::{Deserialize, Serialize};
use strum::{Display, EnumString, IntoStaticStr};

use super::{
    Analysis, Confidence, DebateSettings, EarlierDecision, Evaluation, Outcome, PerspectiveDef, Price, ProjectContext,
    ProviderDef, RecordSettings, RoleChoice, RoundMeasures, Scorecard, Stance, Usage,
};

/// Where a debate stands (docs/guide.md, "State, interruptions, resume").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Display, IntoStaticStr, EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Status {
    Analyzing,
    InRound,
    Checkpoint,
    Paused,
    Synthesizing,
    Recording,
    Complete,
    Failed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Why a debate ended (docs/guide.md, "What a debate does").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Display, IntoStaticStr, EnumString)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum EndReason {
    Agreement,
    ClearWinner,
    Stagnation,
    MaxRounds,
    Human,
    Timeout,
}

impl EndReason {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Display, IntoStaticStr, EnumString)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum ContributionKind {
    Argument,
    Rebuttal,
}

impl ContributionKind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// What was fixed when the debate started; stored with it so a resumed debate keeps
/// its rules whatever the settings say now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub debate: DebateSettings,
    pub record: RecordSettings,
    pub moderator: RoleChoice,
    pub debater: RoleChoice,
    /// A heterogeneous panel: the debaters' providers and models, handed out to the
    /// seats in turn. Empty: every seat is `debater`.
    #[serde(default)]
    pub seat_models: Vec<RoleChoice>,
    /// Who ran the debate (git's user.name), for the record's `decision-makers`.
    #[serde(default)]
    pub decision_makers: Vec<String>,
    pub context: Vec<ContextFile>,
    /// `--perspectives` or the setting, if any.
    pub requested_size: Option<u8>,
    pub forced: Vec<String>,
    /// `--branch`: the new branch the record is committed to.
    #[serde(default)]
    pub branch: Option<String>,
    /// The providers the roles use, by name (without keys), so a resumed debate needs
    /// no settings file to find them.
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderDef>,
    /// The commit HEAD was on when the debate started, to know the repository again if
    /// it moves.
    #[serde(default)]
    pub started_on: Option<String>,
    /// What the debaters are told about the project, exactly as they read it.
    #[serde(default)]
    pub project: ProjectContext,
    /// Earlier records this debate's record supersedes (`--supersedes`), as they were
    /// when it started.
    #[serde(default)]
    pub supersedes: Vec<EarlierDecision>,
    /// The prices of the providers the debate used, by model, once they stay home: a
    /// record carries them so that a clone estimates its cost as the author's did.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prices: BTreeMap<String, Price>,
    /// What the debate may spend in all (`--max-cost`, `--max-tokens`, `budget:`).
    #[serde(default, skip_serializing_if = "Cap::is_none")]
    pub cap: Cap,
}

impl Snapshot {
    /// The debaters' roles: the seat models, or the one debater role.
    pub fn debater_roles(&self) -> Vec<RoleChoice> {
        match self.seat_models.is_empty() {
            true => vec![self.debater.clone()],
            false => self.seat_models.clone(),
        }
    }

    /// The model `role` asks for: its own, else its provider's (none for a provider
    /// without a model, or one this debate does not store).
    pub fn model_of<'a>(&'a self, role: &'a RoleChoice) -> Option<&'a str> {
        match self.providers.get(&role.provider) {
            Some(definition) => definition.model_for(role),
            None => role.model.as_deref(),
        }
    }

    /// Who argues at `seat`: the seat models in turn, or the one debater role.
    pub fn debater_for(&self, seat: usize) -> &RoleChoice {
        match self.seat_models.is_empty() {
            true => &self.debater,
            false => &self.seat_models[seat % self.seat_models.len()],
        }
    }
}

/// A `--context` file as the debaters read it (cut to the context budget).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextFile {
    pub path: String,
    pub text: String,
}

/// One seat on the panel: the perspective chosen and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Seat {
    pub perspective: PerspectiveDef,
    pub reason: String,
    /// Why the debater left the panel, if it did (repeated provider failures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<String>,
}

impl Seat {
    pub fn name(&self) -> &str {
        &self.perspective.name
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contribution {
    pub seat: usize,
    pub kind: ContributionKind,
    pub text: String,
    pub model: String,
    pub usage: Usage,
    /// The answer stopped at the completion limit (asked again for less, unless the model
    /// looped or ignored the length it was asked for).
    pub truncated: bool,
    /// It said nothing of its own (only the prompt's placeholders), even asked again.
    pub failed: bool,
    /// It began to repeat itself and was stopped there: its text is what came before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub looped: bool,
    /// Where the debater stands after it: `None` until it is read (the contribution's
    /// own last line, or one question more).
    pub stance: Option<Stance>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Round {
    pub number: u32,
    pub framing: String,
    pub guidance: Option<String>,
    /// The seats that speak in this round, fixed when it opened (see
    /// [`DebateState::roster_for`]); a seat dropped since no longer speaks.
    pub seats: Vec<usize>,
    /// In seat order, whatever order they completed in.
    pub arguments: Vec<Contribution>,
    pub rebuttals: Vec<Contribution>,
    pub measures: Option<RoundMeasures>,
    pub evaluation: Option<Evaluation>,
}

impl Round {
    pub fn argument(&self, seat: usize) -> Option<&Contribution> {
        self.arguments.iter().find(|c| c.seat == seat)
    }

    pub fn rebuttal(&self, seat: usize) -> Option<&Contribution> {
        self.rebuttals.iter().find(|c| c.seat == seat)
    }

    /// Arguments, then rebuttals, each in seat order.
    pub fn contributions(&self) -> impl Iterator<Item = &Contribution> {
        self.arguments.iter().chain(&self.rebuttals)
    }

    /// Where the debater at `seat` stood at the end of this round: its rebuttal's stance,
    /// else its argument's.
    pub fn stance(&self, seat: usize) -> Option<&Stance> {
        [self.rebuttal(seat), self.argument(seat)].into_iter().flatten().find_map(|c| c.stance.as_ref())
    }
}

/// A round-1 argument written while the moderator read the question: it joins round 1
/// when the debate the moderator confirms asks the debater exactly what it was asked
/// (`request`, the digest of that request), and is discarded otherwise. Paid for either
/// way, and counted once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Early {
    /// Where it is stored, to settle it.
    pub row: i64,
    /// The perspective it argues: its seat may move when the moderator refines the panel.
    pub perspective: String,
    pub request: String,
    /// The answer as it came, its stance line still in it (`kind` is `Argument`,
    /// `stance` is `None`): it is read when it is kept.
    pub contribution: Contribution,
}

/// Arguments written for a round the debate ended before: how many, and their tokens.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Discarded {
    pub round: u32,
    pub arguments: usize,
    pub tokens: u64,
}

/// The moderator's clarifying questions for a vague question, and what became of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Clarification {
    /// The questions, one a line (none when the moderator found the question clear).
    pub question: String,
    /// The answer; `None` while nobody has been asked yet, or when nobody answered.
    pub answer: Option<String>,
    /// Asked and answered, or left open: the debate goes on from here.
    #[serde(default = "settled")]
    pub settled: bool,
}

fn settled() -> bool {
    true
}

impl Clarification {
    pub fn questions(&self) -> Vec<&str> {
        self.question.lines().map(str::trim).filter(|line| !line.is_empty()).collect()
    }

    /// Questions nobody answered.
    pub fn open(&self) -> Vec<&str> {
        match (&self.answer, self.settled) {
            (None, true) => self.questions(),
            _ => Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DebateState {
    pub id: String,
    pub question: String,
    pub title: String,
    pub repo_root: String,
    pub status: Status,
    pub created_at: String,
    pub snapshot: Snapshot,
    pub analysis: Analysis,
    /// Empty until the analysis step has chosen the panel.
    pub panel: Vec<Seat>,
    pub rounds: Vec<Round>,
    /// Round 1's arguments written while the moderator reads the question, each waiting
    /// for its reading (see [`Early`]); settled when round 1 opens.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub early: Vec<Early>,
    /// Arguments written for a round the debate ended before (an evaluation that ran
    /// alongside them ended it), by round: paid for, counted, never part of the debate.
    pub discarded: Vec<(u32, Contribution)>,
    pub end_reason: Option<EndReason>,
    pub outcome: Option<Outcome>,
    pub record_path: Option<String>,
    pub commit_id: Option<String>,
    pub totals: Usage,
    /// The tokens of every call (kept or discarded), by the model that answered.
    pub usage_by_model: Vec<(String, Usage)>,
    /// The moderator's analysis call is stored: the panel is final.
    pub analyzed: bool,
    /// How the last structured answer was asked for, where the server chose.
    pub structured_format: Option<String>,
    pub clarification: Option<Clarification>,
    /// Earlier conclusions, when a review reopened the debate (oldest first).
    pub revisions: Vec<Revision>,
    /// Its record scored by `debate eval`, oldest first. Left out of a record that has
    /// none, so a record written before evaluations reads back as it was.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scorecards: Vec<Scorecard>,
}

/// A conclusion of the debate that a review reopened: what it chose, and why it was
/// reopened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Revision {
    /// When it was concluded (`YYYY-MM-DD`).
    pub date: String,
    /// Rounds argued by then.
    pub rounds: u32,
    pub chosen_option: Option<String>,
    pub confidence: Confidence,
    pub recommendation: String,
    /// The commit that recorded it, if one did.
    pub commit: Option<String>,
    /// The guidance the review added.
    pub reopened_by: String,
}

impl DebateState {
    /// The decision's title: the moderator's, once the synthesis wrote one, else the
    /// question's.
    pub fn decision_title(&self) -> &str {
        match self.outcome.as_ref().map(|o| o.synthesis.title.as_str()) {
            Some(title) if !title.is_empty() => title,
            _ => &self.title,
        }
    }

    /// Round `number` was argued after a review reopened the debate.
    pub fn reviewed(&self, number: u32) -> bool {
        self.revisions.last().is_some_and(|last| number > last.rounds)
    }

    /// The reviewer's guidance, for the first round after a review reopened the debate.
    pub fn review_guidance(&self, number: u32) -> Option<&str> {
        let last = self.revisions.last()?;
        (number == last.rounds + 1).then_some(last.reopened_by.as_str())
    }

    /// The part a round plays: the first opens, the last closes, those between rebut.
    pub fn phase(&self, round: u32) -> &'static str {
        let last = u32::from(self.snapshot.debate.max_rounds.get());
        match (round == 1, round >= last) {
            (true, true) => "opening and closing",
            (true, false) => "opening",
            (false, true) => "closing",
            (false, false) => "rebuttal",
        }
    }

    pub fn panel_names(&self) -> Vec<String> {
        self.panel.iter().map(|s| s.name().to_string()).collect()
    }

    /// The seats that speak in round `number` if it opens now: the previous round's
    /// (every seat for the first), less those flagged off-topic in two of the
    /// evaluations stored so far, unless that would leave fewer than two. Fixed when the
    /// round opens: an evaluation that lands later changes the next round, never this one.
    pub fn roster_for(&self, number: u32) -> Vec<usize> {
        let earlier = self.rounds.iter().filter(|r| r.number < number);
        let previous = match earlier.clone().next_back() {
            Some(round) => round.seats.clone(),
            None => (0..self.panel.len()).collect(),
        };
        let speaking: Vec<usize> = previous.into_iter().filter(|&seat| self.panel[seat].dropped.is_none()).collect();
        let flagged = |seat: usize| {
            let name = self.panel[seat].name();
            earlier
                .clone()
                .filter_map(|r| r.evaluation.as_ref())
                .filter(|e| e.off_topic.iter().any(|n| n == name))
                .count()
        };
        let kept: Vec<usize> = speaking.iter().copied().filter(|&seat| flagged(seat) < 2).collect();
        if kept.len() >= 2 { kept } else { speaking }
    }

    /// The seats that speak in `round`: its roster, less any seat dropped since.
    pub fn seats_of(&self, round: &Round) -> Vec<usize> {
        round.seats.iter().copied().filter(|&seat| self.panel[seat].dropped.is_none()).collect()
    }

    /// The seats of the latest round (before the first, every seat not dropped): who
    /// still speaks. A seat left out is muted (off the question) or dropped.
    pub fn active_seats(&self) -> Vec<usize> {
        match self.rounds.last() {
            Some(round) => self.seats_of(round),
            None => self.roster_for(1),
        }
    }

    /// Rounds stored before rosters were: each gets the roster its evaluations gave it.
    pub fn fill_missing_rosters(&mut self) {
        for index in 0..self.rounds.len() {
            if self.rounds[index].seats.is_empty() {
                self.rounds[index].seats = self.roster_for(self.rounds[index].number);
            }
        }
    }

    /// The debate as it stood when round `number` was done: the rounds after it left out.
    pub fn through(&self, number: u32) -> DebateState {
        let mut earlier = self.clone();
        earlier.rounds.retain(|r| r.number <= number);
        earlier
    }

    /// The arguments the debate was ended before, counted per round with their tokens.
    pub fn discarded_by_round(&self) -> Vec<Discarded> {
        let mut rounds: Vec<Discarded> = Vec::new();
        for (round, c) in &self.discarded {
            let tokens = c.usage.prompt_tokens + c.usage.completion_tokens;
            match rounds.last_mut().filter(|r| r.round == *round) {
                Some(same) => (same.arguments, same.tokens) = (same.arguments + 1, same.tokens + tokens),
                None => rounds.push(Discarded { round: *round, arguments: 1, tokens }),
            }
        }
        rounds
    }

    /// `"Performance Advocate 12%"` for every debater with a repetition figure in `round`.
    pub fn repetition_figures(&self, round: &Round) -> Vec<String> {
        let Some(measures) = &round.measures else { return Vec::new() };
        measures
            .repetition
            .iter()
            .enumerate()
            .filter_map(|(seat, r)| Some(format!("{} {:.0}%", self.panel.get(seat)?.name(), r.as_ref()? * 100.0)))
            .collect()
    }

    /// Each active debater's latest stance: from its latest contribution that has one
    /// read, in seat order. None, when the stances only ever named the option listed
    /// first (see `stances_follow_the_list`): they say nothing of where anyone stands.
    pub fn latest_stances(&self) -> Vec<(usize, Option<&Stance>)> {
        let say_nothing = self.stances_follow_the_list();
        self.active_seats()
            .into_iter()
            .map(|seat| (seat, self.rounds.iter().rev().find_map(|r| r.stance(seat)).filter(|_| !say_nothing)))
            .collect()
    }

    /// The considered options in the order the debater at `seat` is shown them for its
    /// `kind` of `round`: rotated from one request to the next, so that no option is
    /// always first (a weak model whose answer a schema constrains picks whatever is
    /// listed first).
    pub fn options_listed(&self, seat: usize, round: u32, kind: ContributionKind) -> Vec<String> {
        let options = &self.analysis.options;
        let first = (seat + round as usize + usize::from(kind == ContributionKind::Rebuttal)) % options.len().max(1);
        options.iter().cycle().skip(first).take(options.len()).cloned().collect()
    }

    /// Every stance read (four at least, on two options or more) named the option its
    /// request listed first, though the order rotated: the model follows the list, not
    /// an argument, and its stances carry no signal.
    pub fn stances_follow_the_list(&self) -> bool {
        let read: Vec<&Stance> = self
            .rounds
            .iter()
            .flat_map(|r| r.contributions())
            .filter_map(|c| c.stance.as_ref())
            .filter(|s| s.option.is_some())
            .collect();
        let named: std::collections::BTreeSet<&Option<String>> = read.iter().map(|s| &s.option).collect();
        read.len() >= 4 && named.len() >= 2 && read.iter().all(|s| s.first_listed)
    }

    pub fn measures(&self) -> Vec<RoundMeasures> {
        self.rounds.iter().filter_map(|r| r.measures.clone()).collect()
    }

    /// The name of the perspective at `seat`.
    pub fn name(&self, seat: usize) -> &str {
        self.panel[seat].name()
    }

    /// The scores its record shows: the latest evaluation `eval --write` added to it, of
    /// the record as it is now (a review's rewrite leaves the scores of the last one out).
    pub fn written_scorecard(&self) -> Option<&Scorecard> {
        self.scorecards.iter().rev().find(|card| card.written && card.revision == self.revisions.len() as u32)
    }
}

/// Whether `id` has the form debate gives ids: `DEB-` and six lowercase letters or digits.
pub fn is_debate_id(id: &str) -> bool {
    id.strip_prefix("DEB-")
        .is_some_and(|rest| rest.len() == 6 && rest.chars().all(|c| c.is_ascii_digit() || c.is_ascii_lowercase()))
}

/// A debate as `--list` shows it, read without loading the whole debate.
#[derive(Debug, Clone, PartialEq)]
pub struct Listing {
    pub id: String,
    pub status: Status,
    pub rounds: u32,
    pub created_at: String,
    pub question: String,
    /// The decision's title once the moderator wrote one, else the question's.
    pub title: String,
    pub repository: String,
    pub record_path: Option<String>,
    pub branch: Option<String>,
    pub end_reason: Option<EndReason>,
    pub confidence: Option<Confidence>,
    pub commit_id: Option<String>,
    pub totals: Usage,
}
