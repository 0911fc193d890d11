use super::*;
use crate::model::fixture;
use crate::model::{DebateState, EndReason, Listing, Status};

fn listing(state: &DebateState) -> Listing {
    Listing {
        id: state.id.clone(),
        status: state.status,
        rounds: state.rounds.len() as u32,
        created_at: state.created_at.clone(),
        question: state.question.clone(),
        title: state.decision_title().to_string(),
        repository: state.repo_root.clone(),
        record_path: state.record_path.clone(),
        branch: state.snapshot.branch.clone(),
        end_reason: state.end_reason,
        confidence: state.outcome.as_ref().map(|o| o.confidence),
        commit_id: state.commit_id.clone(),
        totals: state.totals,
    }
}

#[test]
fn the_documents_are_pinned() {
    let state = fixture::complete(2);
    insta::assert_json_snapshot!("summary", Summary::of(&state));
    insta::assert_json_snapshot!("detail", Detail::of(&state));
}

#[test]
fn a_listed_debate_reads_as_the_same_summary() {
    let state = fixture::complete(2);
    let from_list = serde_json::to_value(Summary::from(&listing(&state))).unwrap();
    assert_eq!(from_list, serde_json::to_value(Summary::of(&state)).unwrap());
}

#[test]
fn every_name_is_lowercase() {
    let mut state = fixture::complete(2);
    state.status = Status::InRound;
    state.end_reason = Some(EndReason::ClearWinner);
    let detail = serde_json::to_value(Detail::of(&state)).unwrap();
    assert_eq!(detail["status"], "in_round");
    assert_eq!(detail["ended_by"], "clear-winner");
    assert_eq!(detail["confidence"], "high");
    assert_eq!(detail["transcript"][0]["arguments"][0]["kind"], "argument");
    assert_eq!(detail["transcript"][0]["evaluation"]["assessment"], "new_ground");
    assert_eq!(detail["outcome"]["source"], "structured");
    assert_eq!(detail["providers"]["moderator"]["kind"], "scripted");
}

#[test]
fn an_evaluation_shows_every_mark_and_names_the_disagreement() {
    let mut state = fixture::complete(1);
    state.scorecards.push(fixture::scorecard(true));
    let detail = serde_json::to_value(Detail::of(&state)).unwrap();
    let evaluation = &detail["evaluations"][0];
    assert_eq!((evaluation["current"].as_bool(), evaluation["judged_by_a_model"].as_bool()), (Some(true), Some(true)));
    assert_eq!(evaluation["criteria"].as_array().unwrap().len(), 5);
    let context = &evaluation["criteria"][2];
    assert_eq!(context["criterion"], "context");
    assert_eq!(
        context["marks"][1],
        serde_json::json!({"evaluator": 1, "model": "n", "score": 9, "reason": "n on context."})
    );
    assert_eq!(context["mean"], 5.5);
    assert_eq!(
        evaluation["disagreements"],
        serde_json::json!([{"criterion": "context", "lowest": 2, "lowest_by": "m", "highest": 9, "highest_by": "n"}])
    );
    assert_eq!(evaluation["checks"][1]["check"], "placeholders");
    assert_eq!(evaluation["checks"][1]["passed"], false);
}
