//! One run of a debate, resolved once. Every door that starts or continues a debate —
//! the command line, the dashboard's form, a suite's question, a pull request's comment
//! — gives its options as one [`RunOptions`] (with the settings file it names). Here they
//! go over the settings files and the environment for a new debate, or onto the rules a
//! debate was started with to continue it: each with the same meaning, or the same
//! refusal, wherever it comes from.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::model::{Cap, DebateState, PanelSize, Rounds, RunOptions, Snapshot};
use crate::providers;
use crate::record;
use crate::settings::{self, Loaded, Settings};

/// A run as any door gives it: the settings file it names, and the run's options.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunFlags {
    /// `--config`: a settings file over the user's and the repository's.
    pub config: Option<PathBuf>,
    pub options: RunOptions,
}

impl RunFlags {
    /// The settings of a new debate in the repository at `root`: the files and the
    /// environment, with these flags over them.
    pub fn settings(&self, root: &Path) -> Result<Loaded> {
        self.options.check().map_err(Error::input)?;
        let mut loaded = settings::load(root, self.config.as_deref())?;
        let settings = &mut loaded.settings;
        let options = &self.options;
        if let Some(rounds) = options.max_rounds {
            settings.debate.max_rounds = rounds;
        }
        if let Some(seats) = options.perspectives {
            settings.debate.default_perspectives = PanelSize::Fixed(seats);
        }
        settings.debate.checkpoints &= !options.no_checkpoints;
        settings.record.commit &= !options.no_commit;
        settings.record.issue_draft |= options.issue;
        let roles = &mut settings.roles;
        if let Some(provider) = &options.provider {
            settings.providers.default = Some(provider.clone());
            roles.moderator.provider = Some(provider.clone());
            roles.debater.provider = Some(provider.clone());
        }
        if let Some(model) = &options.model {
            roles.moderator.model = Some(model.clone());
            roles.debater.model = Some(model.clone());
        }
        if !options.models.is_empty() {
            roles.debater.models = options.models.clone();
        }
        Ok(loaded)
    }

    /// A new debate's cap: the options' over the settings' `budget:`.
    pub fn cap(&self, loaded: &Loaded) -> Cap {
        let budget = &loaded.settings.budget;
        self.options.cap().or(Cap { usd: budget.per_debate_usd, tokens: budget.per_debate_tokens })
    }

    /// The rules `state`, a debate under way, goes on under with these flags, given the
    /// settings loaded now (where another provider is named); `reviewing` when a review
    /// reopens it. A flag that cannot change a debate under way is refused, saying why.
    pub fn onto(&self, state: &DebateState, settings: &Settings, root: &Path, reviewing: bool) -> Result<Snapshot> {
        self.for_started(state)?;
        let options = &self.options;
        let mut snapshot = state.snapshot.clone();
        let done = state.rounds.len() as u32;
        match reviewing {
            true => snapshot.debate.max_rounds = review_rounds(state, done, options.max_rounds)?,
            false => snapshot.debate.max_rounds = options.max_rounds.unwrap_or(snapshot.debate.max_rounds),
        }
        snapshot.debate.checkpoints &= !options.no_checkpoints;
        snapshot.record.issue_draft |= options.issue;
        // A cap given now replaces the one the debate was started with.
        snapshot.cap = options.cap().or(snapshot.cap);
        // Once the record is being written, what it says and where it goes are fixed; a
        // review rewrites the record where it is, with whichever provider it is given.
        let fixed = [
            (options.no_commit, "--no-commit"),
            (options.branch.is_some(), "--branch"),
            (options.offline && !reviewing, "--offline"),
            (options.provider.is_some() && !reviewing, "--provider"),
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
        snapshot.record.commit &= !options.no_commit;
        if let Some(name) = options.branch.as_deref() {
            check_branch(root, name)?;
            snapshot.branch =
                Some(if name.is_empty() { record::default_branch(&state.id, &state.title) } else { name.to_string() });
        }
        if let Some(model) = &options.model {
            // Seats of several providers cannot share one model name.
            let one_provider = options.provider.is_some() || options.offline;
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
        let switch_to = if options.offline { Some("offline") } else { options.provider.as_deref() };
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

    /// Refuse these options for `state`, a debate already started, where one only a new
    /// debate takes is given, saying why.
    pub fn for_started(&self, state: &DebateState) -> Result<()> {
        match self.fixed_at_start(state) {
            Some((flag, why)) => Err(Error::input(format!("{flag} {why}"))
                .with_hint("debate it anew with the flag (and --supersedes its record) to change that")),
            None => Ok(()),
        }
    }

    /// The first flag given that would change a debate already complete (resumed, not
    /// reviewed: its record stands as it is).
    pub fn changing(&self) -> Option<&'static str> {
        let cap = self.options.cap();
        let changes = [
            (self.options.max_rounds.is_some(), "--max-rounds"),
            (self.options.no_checkpoints, "--no-checkpoints"),
            (self.options.no_commit, "--no-commit"),
            (self.options.branch.is_some(), "--branch"),
            (self.options.model.is_some(), "--model"),
            (self.options.provider.is_some(), "--provider"),
            (self.options.offline, "--offline"),
            (cap.usd.is_some(), "--max-cost"),
            (cap.tokens.is_some(), "--max-tokens"),
        ];
        changes.into_iter().find_map(|(given, flag)| given.then_some(flag))
    }

    /// A flag that only a new debate takes, given for `state`, and why it cannot apply.
    fn fixed_at_start(&self, state: &DebateState) -> Option<(&'static str, String)> {
        let panel = state.panel.iter().map(|seat| seat.name()).collect::<Vec<_>>().join(", ");
        let started = |what: String| format!("is fixed when a debate starts, and {}'s {what}", state.id);
        let given = [
            (self.options.perspectives.is_some(), "--perspectives", started(format!("panel is {panel}"))),
            (!self.options.with.is_empty(), "--with", started(format!("panel is {panel}"))),
            (!self.options.models.is_empty(), "--models", started("debaters' models were seated then".into())),
            (!self.options.context.is_empty(), "--context", started("debaters read their context then".into())),
            (self.options.no_repo_context, "--no-repo-context", started("debaters read their context then".into())),
            (!self.options.supersedes.is_empty(), "--supersedes", started("record names what it supersedes".into())),
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
    use crate::model::{Seats, fixture};

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
            RunOptions { perspectives: Some(Seats::try_from(3).unwrap()), ..RunOptions::default() },
            RunOptions { with: vec!["Cost Control".into()], ..RunOptions::default() },
            RunOptions { context: vec!["notes.md".into()], ..RunOptions::default() },
        ] {
            let flags = RunFlags { config: None, options: flags };
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
