//! The last step: the record committed, and the issue draft written when asked for.

use std::time::Duration;

use super::run::{Engine, Stop};
use crate::model::DebateState;
use crate::record;

impl Engine<'_> {
    /// At the end of a debate run with checkpoints: ask whether to write an issue draft.
    /// No answer in time is no.
    async fn wants_issue_draft(&mut self, state: &DebateState) -> bool {
        let rules = &state.snapshot.debate;
        if !rules.checkpoints {
            return false;
        }
        let patience = Duration::from_secs(rules.checkpoint_timeout_seconds.0);
        match self.events.wants_issue_draft(patience) {
            Some(answer) => answer.await,
            None => false,
        }
    }

    pub(super) async fn record(&mut self, state: &DebateState) -> Result<(), Stop> {
        // The path is stored before anything is written, so a crash at any point later
        // resumes with the same file (and finds its commit by the Debate-Id trailer).
        let (path, new) = record::path_for(state, self.templates)?;
        if new {
            self.store.save_record_path(&state.id, &path.display().to_string())?;
            record::failpoint("after-record-path");
        }
        let published = record::publish(state, self.templates, self.sealer, &path)?;
        record::failpoint("after-commit");
        let wanted = state.snapshot.record.issue_draft || self.wants_issue_draft(state).await;
        let draft = match wanted {
            true => Some(record::drafts::issue::write(state, self.templates, &published)?),
            false => None,
        };
        self.store.complete(&state.id, published.commit.as_deref())?;
        let done = self.store.load(&state.id)?;
        self.events.recorded(&done, &published, draft.as_ref());
        Ok(())
    }
}
