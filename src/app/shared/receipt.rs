//! A finished debate as an Open Decision Receipt's plain inputs (`attest::Decision`):
//! the panel as the quorum (each seat's model and its maker, its last stance as support
//! or dissent), the synthesis as the claim, the reasoning and the cruxes, the
//! confidence as a number, and the person who accepted the record as its attestor. The
//! receipt's shape is `attest`'s; what a debate says goes in once, here.

use chrono::{DateTime, NaiveDate, Utc};

use crate::attest::{Acceptance, Decision, Participant, Stance};
use crate::model::{Confidence, DebateState, ProviderKind};
use crate::text::secrets;

/// What the receipt is made of besides the debate: its record as the repository holds it.
pub struct Record<'a> {
    /// Its path in the repository.
    pub relative: &'a str,
    pub bytes: &'a [u8],
}

/// The receipt's inputs for the finished debate `state` (every text through the secret
/// gate: a receipt is signed, so nothing may be masked after it).
pub fn decision(state: &DebateState, record: Option<&Record>) -> Decision {
    let synthesis = state.outcome.as_ref().map(|o| &o.synthesis);
    let gate = |text: &str| secrets::gate(text);
    let text = record.map(|r| String::from_utf8_lossy(r.bytes).into_owned()).unwrap_or_default();
    Decision {
        id: state.id.clone(),
        subject: gate(&format!("debate:{}", record.map_or(state.id.as_str(), |r| r.relative))),
        record_sha256: record.map(|r| crate::attest::canonical::sha256_hex(r.bytes)),
        question: gate(&state.question),
        chosen: synthesis.and_then(|s| s.chosen_option.as_deref()).map(gate),
        decision: gate(synthesis.map_or(state.decision_title(), |s| s.recommendation.as_str())),
        reasoning: synthesis.map(|s| gate(&s.rationale)),
        participants: participants(state),
        confidence: state.outcome.as_ref().map(|o| number(o.confidence)),
        cruxes: synthesis.map(|s| s.tensions.iter().map(|t| gate(t)).collect()).unwrap_or_default(),
        accepted_by: accepted_by(&text),
        decided_at: DateTime::parse_from_rfc3339(&state.created_at)
            .map_or_else(|_| Utc::now(), |t| t.with_timezone(&Utc)),
        tool_version: env!("CARGO_PKG_VERSION").into(),
    }
}

/// Debate's High, Medium and Low as the unit interval a receipt wants: 0.9, 0.6, 0.3.
/// A judgement, not a calibrated probability: the receipt says it is uncalibrated.
pub fn number(confidence: Confidence) -> f64 {
    match confidence {
        Confidence::High => 0.9,
        Confidence::Medium => 0.6,
        Confidence::Low => 0.3,
    }
}

/// Each seat of the panel, with the model that argued it and where it ended.
fn participants(state: &DebateState) -> Vec<Participant> {
    let synthesis = state.outcome.as_ref().map(|o| &o.synthesis);
    let chosen = synthesis.and_then(|s| s.chosen_option.as_deref());
    state
        .panel
        .iter()
        .enumerate()
        .map(|(seat, s)| {
            let role = state.snapshot.debater_for(seat);
            let spoken: Vec<_> =
                state.rounds.iter().flat_map(|r| r.contributions()).filter(|c| c.seat == seat).collect();
            let last = spoken.last();
            let model = last
                .map(|c| c.model.clone())
                .filter(|m| !m.is_empty())
                .or_else(|| state.snapshot.model_of(role).map(str::to_string))
                .unwrap_or_else(|| role.provider.clone());
            let dissent = synthesis.and_then(|syn| syn.dissents.iter().find(|d| d.perspective == s.name()));
            let ended_on = spoken.iter().rev().find_map(|c| c.stance.as_ref()?.option.clone());
            let stance = match (dissent, ended_on.as_deref(), &s.dropped) {
                (Some(dissent), ..) => Stance::Dissents(secrets::gate(&dissent.view)),
                (None, _, Some(_)) | (None, None, None) => Stance::Abstains,
                (None, Some(option), None) if Some(option) == chosen => Stance::Supports,
                (None, Some(option), None) => Stance::Dissents(secrets::gate(&format!("ended on {option}"))),
            };
            Participant {
                agent: secrets::gate(s.name()),
                model_family: family(role.kind, &model).into(),
                model_id: secrets::gate(&model),
                stance,
            }
        })
        .collect()
}

/// The maker of a model (`model::maker`), for a receipt: the offline and scripted
/// providers by their own names, and `undisclosed` when the name does not say.
pub fn family(kind: ProviderKind, model: &str) -> &'static str {
    match (kind, crate::model::maker(model)) {
        (ProviderKind::Offline, _) => "debate-offline",
        (ProviderKind::Scripted, _) => "debate-scripted",
        (_, Some(maker)) => maker,
        (ProviderKind::Anthropic, None) => "anthropic",
        _ => "undisclosed",
    }
}

/// Who accepted the record, from its status history (`accepted 2026-11-22 by Jane
/// Doe`), when it is accepted now and the history names them.
fn accepted_by(record: &str) -> Option<Acceptance> {
    let status = crate::record::current_status(record)?;
    if crate::record::lifecycle(&status) != "accepted" {
        return None;
    }
    let front = record.strip_prefix("---\n")?.split("\n---").next()?;
    let history = front.lines().find_map(|line| line.strip_prefix("status-history:"))?;
    let entries: Vec<String> = crate::text::yaml::parse(history, "status-history").ok()?;
    let entry = entries.iter().rev().find(|e| e.starts_with("accepted "))?;
    let (date, by) = entry["accepted ".len()..].split_once(" by ")?;
    let at = NaiveDate::parse_from_str(date.trim(), "%Y-%m-%d").ok()?.and_hms_opt(0, 0, 0)?.and_utc();
    let by = secrets::gate(by.trim());
    Some(Acceptance { id: by.clone(), name: Some(by), at })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixture;

    #[test]
    fn a_model_is_known_by_its_maker() {
        for (kind, model, maker) in [
            (ProviderKind::Openai, "gpt-4.1", "openai"),
            (ProviderKind::Openai, "o3-mini", "openai"),
            (ProviderKind::Openai, "anthropic/claude-sonnet-4", "anthropic"),
            (ProviderKind::Openai, "qwen3:8b", "alibaba"),
            (ProviderKind::Openai, "meta-llama/llama-3.3-70b", "meta"),
            (ProviderKind::Anthropic, "some-new-model", "anthropic"),
            (ProviderKind::Openai, "my-finetune", "undisclosed"),
            (ProviderKind::Openai, "orca", "undisclosed"),
            (ProviderKind::Offline, "offline", "debate-offline"),
        ] {
            assert_eq!(family(kind, model), maker, "{model}");
        }
    }

    #[test]
    fn the_panel_is_the_quorum_and_the_acceptance_its_attestation() {
        let state = fixture::complete(2);
        let decision = decision(&state, Some(&Record { relative: "docs/decisions/a.md", bytes: b"# A\n" }));
        assert_eq!(decision.participants.len(), state.panel.len());
        assert_eq!(decision.subject, "debate:docs/decisions/a.md");
        assert!(decision.accepted_by.is_none());
        let accepted =
            "---\nid: DEB-abc123\nstatus: accepted\nstatus-history: [accepted 2026-11-22 by Jane Doe]\n---\n# A\n";
        let by = accepted_by(accepted).unwrap();
        assert_eq!((by.id.as_str(), by.at.to_rfc3339().as_str()), ("Jane Doe", "2026-11-22T00:00:00+00:00"));
        assert!(accepted_by(&accepted.replace("status: accepted", "status: rejected")).is_none());
    }
}
