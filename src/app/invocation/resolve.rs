//! One run of a debate, resolved once. Every door that starts or continues a debate —
//! the command line, the dashboard's form, a suite's question, a pull request's comment
//! — gives its flags as one [`RunFlags`]. Here they go over the settings files and the
//! environment for a new debate, or onto the rules a debate was started with to continue
//! it: each flag with the same meaning, or the same refusal, wherever it comes from.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::model::{Cap, DebateState, Dollars, PanelSize, Rounds, Seats, Snapshot, Tokens};
use crate::providers;
use crate::record;
use crate::settings::{self, Loaded, Settings};

/// The flags of a run, as any door gives them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunFlags {
    /// `--config`: a settings file over the user's and the repository's.
    pub config: Option<PathBuf>,
    /// `-r`: the cap on rounds, in all.
    pub max_rounds: Option<Rounds>,
    /// `-p`: how many perspectives debate (a new debate's).
    pub perspectives: Option<Seats>,
    /// `--with`: perspectives the panel must have (a new debate's).
    pub with: Vec<String>,
    /// `--context`: files the debaters read (a new debate's).
    pub context: Vec<PathBuf>,
    /// `--no-repo-context` (a new debate's).
    pub no_repo_context: bool,
    /// `--supersedes`: earlier records, by path or debate id (a new debate's).
    pub supersedes: Vec<String>,
    /// `--provider`: every role on this configured provider.
    pub provider: Option<String>,
    /// `--model`: every role on this model.
    pub model: Option<String>,
    /// `--models`: the debaters' models, seat by seat (a new debate's).
    pub models: Vec<String>,
    /// `--offline`: the built-in offline debater in every role.
    pub offline: bool,
    pub no_checkpoints: bool,
    /// `--issue`: also write an issue draft.
    pub issue: bool,
    pub no_commit: bool,
    /// `--branch`: the branch the record goes to; empty: the default name.
    pub branch: Option<String>,
    /// `--max-cost`: what the debate may spend in all, in US dollars.
    pub max_cost: Option<Dollars>,
    /// `--max-tokens`: what the debate may spend in all, in tokens.
    pub max_tokens: Option<Tokens>,
}

impl RunFlags {
    /// The settings of a new debate in the repository at `root`: the files and the
    /// environment, with these flags over them.
    pub fn settings(&self, root: &Path) -> Result<Loaded> {
        let mut loaded = settings::load(root, self.config.as_deref())?;
        let settings = &mut loaded.settings;
        if let Some(rounds) = self.max_rounds {
            settings.debate.max_rounds = rounds;
        }
        if let Some(seats) = self.perspectives {
            settings.debate.default_perspectives = PanelSize::Fixed(seats);
        }
        settings.debate.checkpoints &= !self.no_checkpoints;
        settings.record.commit &= !self.no_commit;
        settings.record.issue_draft |= self.issue;
        let roles = &mut settings.roles;
        if let Some(provider) = &self.provider {
            settings.providers.default = Some(provider.clone());
            roles.moderator.provider = Some(provider.clone());
            roles.debater.provider = Some(provider.clone());
        }
        if let Some(model) = &self.model {
            roles.moderator.model = Some(model.clone());
            roles.debater.model = Some(model.clone());
        }
        if !self.models.is_empty() {
            roles.debater.models = self.models.clone();
        }
        Ok(loaded)
    }

    /// A new debate's cap: the flags' over the settings' `budget:`.
    pub fn cap(&self, loaded: &Loaded) -> Cap {
        let budget = &loaded.settings.budget;
        Cap { usd: self.max_cost.or(budget.per_debate_usd), tokens: self.max_tokens.or(budget.per_debate_tokens) }
    }

    /// The rules `state`, a debate under way, goes on under with these flags, given the
    /// settings loaded now (where another provider is named); `reviewing` when a review
    /// reopens it. A flag that cannot change a debate under way is refused, saying why.
    pub fn onto(&self, state: &DebateState, settings: &Settings, root: &Path, reviewing: bool) -> Result<Snapshot> {
        if let Some((flag, why)) = self.fixed_at_start(state) {
            return Err(Error::input(format!("{flag} {why}"))
                .with_hint("debate it anew with the flag (and --supersedes its record) to change that"));
        }
        let mut snapshot = state.snapshot.clone();
        let done = state.rounds.len() as u32;
        match reviewing {
            true => snapshot.debate.max_rounds = review_rounds(state, done, self.max_rounds)?,
            false => snapshot.debate.max_rounds = self.max_rounds.unwrap_or(snapshot.debate.max_rounds),
        }
        snapshot.debate.checkpoints &= !self.no_checkpoints;
        snapshot.record.issue_draft |= self.issue;
        // A cap given now replaces the one the debate was started with.
        snapshot.cap.usd = self.max_cost.or(snapshot.cap.usd);
        snapshot.cap.tokens = self.max_tokens.or(snapshot.cap.tokens);
        // Once the record is being written, what it says and where it goes are fixed; a
        // review rewrites the record where it is, with whichever provider it is given.
        let fixed = [
            (self.no_commit, "--no-commit"),
            (self.branch.is_some(), "--branch"),
            (self.offline && !reviewing, "--offline"),
            (self.provider.is_some() && !reviewing, "--provider"),
        ];
        if let (Some(path), Some((_, flag))) = (&state.record_path, fixed.iter().find(|(given, _)| *given)) {
            let why = match reviewing {
                true => format!(
                    "{}'s review rewrites its record {path} where it is, so {flag} cannot change that",
                    state.id
                ),
                false => {
                    format!("{}'s record is already being written to {path}, so {flag} cannot change it", state.id)
                }
            };
            return Err(Error::input(why).with_hint(format!("run it without {flag}")));
        }
        snapshot.record.commit &= !self.no_commit;
        if let Some(name) = self.branch.as_deref() {
            check_branch(root, name)?;
            snapshot.branch =
                Some(if name.is_empty() { record::default_branch(&state.id, &state.title) } else { name.to_string() });
        }
        if let Some(model) = &self.model {
            // Seats of several providers cannot share one model name.
            let one_provider = self.provider.is_some() || self.offline;
            if !one_provider && snapshot.seat_models.iter().any(|seat| seat.provider != snapshot.debater.provider) {
                return Err(Error::input(format!(
                    "{} seats models of several providers, so one --model cannot replace them all",
                    state.id
                ))
                .with_hint("add --provider NAME to go on with one provider and that model for every role"));
            }
            for role in [&mut snapshot.moderator, &mut snapshot.debater].into_iter().chain(&mut snapshot.seat_models) {
                role.model = Some(model.clone());
            }
        }
        let switch_to = if self.offline { Some("offline") } else { self.provider.as_deref() };
        if let Some(name) = switch_to {
            snapshot.moderator = providers::switch(&snapshot.moderator, settings, name)?;
            snapshot.debater = providers::switch(&snapshot.debater, settings, name)?;
            // One provider for every role now: the seats' own models no longer apply.
            snapshot.seat_models.clear();
        }
        // Debates stored before their providers were: take them from the settings now.
        let roles: Vec<_> = [snapshot.moderator.clone()].into_iter().chain(snapshot.debater_roles()).collect();
        for role in &roles {
            if !snapshot.providers.contains_key(&role.provider) {
                snapshot.providers.extend(providers::definitions(settings, &[role])?);
            }
        }
        Ok(snapshot)
    }

    /// The first flag given that would change a debate already complete (resumed, not
    /// reviewed: its record stands as it is).
    pub fn changing(&self) -> Option<&'static str> {
        let changes = [
            (self.max_rounds.is_some(), "--max-rounds"),
            (self.no_checkpoints, "--no-checkpoints"),
            (self.no_commit, "--no-commit"),
            (self.branch.is_some(), "--branch"),
            (self.model.is_some(), "--model"),
            (self.provider.is_some(), "--provider"),
            (self.offline, "--offline"),
        ];
        changes.into_iter().find_map(|(given, flag)| given.then_some(flag))
    }

    /// A flag that only a new debate takes, given for `state`, and why it cannot apply.
    fn fixed_at_start(&self, state: &DebateState) -> Option<(&'static str, String)> {
        let panel = state.panel.iter().map(|seat| seat.name()).collect::<Vec<_>>().join(", ");
        let started = |what: String| format!("is fixed when a debate starts, and {}'s {what}", state.id);
        let given = [
            (self.perspectives.is_some(), "--perspectives", started(format!("panel is {panel}"))),
            (!self.with.is_empty(), "--with", started(format!("panel is {panel}"))),
            (!self.models.is_empty(), "--models", started("debaters' models were seated then".into())),
            (!self.context.is_empty(), "--context", started("debaters read their context then".into())),
            (self.no_repo_context, "--no-repo-context", started("debaters read their context then".into())),
            (!self.supersedes.is_empty(), "--supersedes", started("record names what it supersedes".into())),
        ];
        given.into_iter().find_map(|(given, flag, why)| given.then_some((flag, why)))
    }
}

/// The rounds a reviewed debate may have: `-r`, which must add one, or one more than it
/// argued, up to the most a debate may.
fn review_rounds(state: &DebateState, done: u32, max_rounds: Option<Rounds>) -> Result<Rounds> {
    let id = &state.id;
    match max_rounds {
        Some(max) if u32::from(max) <= done => {
            Err(Error::input(format!("{id} has argued {done} rounds; --max-rounds {max} adds none"))
                .with_hint(format!("give --max-rounds more than {done}, or leave it out for one more round")))
        }
        Some(max) => Ok(max),
        None => Rounds::try_from(i64::from(done) + 1).map_err(|_| {
            Error::input(format!("{id} has argued {done} rounds, the most a debate may")).with_hint(format!(
                "debate the objection anew with --supersedes {}",
                state.record_path.as_deref().unwrap_or("<record>")
            ))
        }),
    }
}

/// `--branch` needs a repository with a valid, unused branch name.
pub fn check_branch(root: &Path, name: &str) -> Result<()> {
    match crate::repo::open(root)? {
        None => Err(Error::input("--branch needs a git repository")
            .with_hint("run debate inside a git work tree, or drop --branch")),
        // The default name holds the new debate's id, so it cannot be taken yet.
        Some(_) if name.is_empty() => Ok(()),
        Some(repo) => Ok(record::write::git::check_new_branch(&repo, name)?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixture;

    fn rounds(n: i64) -> Rounds {
        Rounds::try_from(n).unwrap()
    }

    #[test]
    fn a_review_adds_one_round_unless_max_rounds_says_more() {
        let mut state = fixture::complete(2);
        state.record_path = Some("docs/decisions/x.md".into());
        assert_eq!(review_rounds(&state, 2, None).unwrap(), rounds(3));
        assert_eq!(review_rounds(&state, 2, Some(rounds(5))).unwrap(), rounds(5));
        let none_added = review_rounds(&state, 3, Some(rounds(3))).unwrap_err();
        assert_eq!(none_added.to_string(), format!("{} has argued 3 rounds; --max-rounds 3 adds none", state.id));
        let full = review_rounds(&state, u32::from(Rounds::MAX), None).unwrap_err();
        assert!(full.hint().unwrap().ends_with("--supersedes docs/decisions/x.md"), "{full:?}");
    }

    #[test]
    fn a_new_debates_flag_is_refused_for_one_under_way_saying_why() {
        let mut state = fixture::complete(1);
        let scripted = crate::model::ProviderDef::new(crate::model::ProviderKind::Scripted);
        state.snapshot.providers.insert("scripted".into(), scripted);
        let settings = Settings::default();
        let root = Path::new("/nowhere");
        for flags in [
            RunFlags { perspectives: Some(Seats::try_from(3).unwrap()), ..RunFlags::default() },
            RunFlags { with: vec!["Cost Control".into()], ..RunFlags::default() },
            RunFlags { context: vec!["notes.md".into()], ..RunFlags::default() },
        ] {
            for reviewing in [false, true] {
                let err = flags.onto(&state, &settings, root, reviewing).unwrap_err();
                assert!(err.to_string().contains("is fixed when a debate starts"), "{err}");
                assert_eq!(err.exit_code(), 2);
            }
        }
        let same = RunFlags::default().onto(&state, &settings, root, false).unwrap();
        assert_eq!((same.debate, same.record), (state.snapshot.debate, state.snapshot.record), "no flag, no change");
    }
}
