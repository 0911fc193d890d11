//! A fixed debate for unit tests: two opposed perspectives on "Redis or Postgres for
//! caching?", built round by round so each test starts from the state it needs.

use super::*;

pub const QUESTION: &str = "Should we use Redis or Postgres for caching?";

pub fn perspective(name: &str, priorities: &[&str], opposes: &str) -> PerspectiveDef {
    PerspectiveDef {
        name: name.into(),
        priorities: priorities.iter().map(|p| p.to_string()).collect(),
        trade_offs: format!("{name} accepts what its priorities cost"),
        keywords: Vec::new(),
        opposes: vec![opposes.into()],
        domains: vec!["data".into()],
    }
}

pub fn seat(def: PerspectiveDef) -> Seat {
    Seat { reason: format!("{} speaks to the data domain", def.name), perspective: def, dropped: None }
}

fn role(temperature: f32) -> RoleChoice {
    RoleChoice { provider: "scripted".into(), kind: ProviderKind::Scripted, model: Some("m".into()), temperature }
}

/// Analysed, panel chosen, no rounds yet.
pub fn state() -> DebateState {
    DebateState {
        id: "DEB-abc123".into(),
        question: QUESTION.into(),
        title: "Should we use Redis or Postgres for caching".into(),
        repo_root: "/repo".into(),
        status: Status::InRound,
        created_at: "2026-11-22T10:00:00.000Z".into(),
        snapshot: Snapshot {
            debate: DebateSettings { max_rounds: Rounds::new(3).unwrap(), ..DebateSettings::default() },
            record: RecordSettings::default(),
            moderator: role(0.2),
            debater: role(0.8),
            seat_models: Vec::new(),
            decision_makers: vec!["Test".into()],
            context: Vec::new(),
            requested_size: None,
            forced: Vec::new(),
            branch: None,
            providers: Default::default(),
            started_on: None,
            project: Default::default(),
            supersedes: Vec::new(),
            prices: Default::default(),
            cap: Default::default(),
        },
        analysis: Analysis {
            domains: vec!["data".into()],
            options: vec!["Redis".into(), "Postgres".into()],
            constraints: Vec::new(),
            vague: false,
            panel_size: 2,
            unrefined: None,
            reading: None,
            early: None,
        },
        panel: vec![
            seat(perspective("Performance Advocate", &["latency", "throughput"], "Operational Simplicity")),
            seat(perspective(
                "Operational Simplicity",
                &["debuggability", "fewer moving parts"],
                "Performance Advocate",
            )),
        ],
        rounds: Vec::new(),
        early: Vec::new(),
        discarded: Vec::new(),
        end_reason: None,
        outcome: None,
        record_path: None,
        commit_id: None,
        totals: Usage::default(),
        usage_by_model: Vec::new(),
        structured_format: None,
        analyzed: true,
        clarification: None,
        revisions: Vec::new(),
        scorecards: Vec::new(),
    }
}

pub fn contribution(seat: usize, kind: ContributionKind, text: &str) -> Contribution {
    Contribution {
        looped: false,
        seat,
        kind,
        text: text.into(),
        model: "m".into(),
        usage: Usage { prompt_tokens: 100, cached_tokens: 60, completion_tokens: 40, latency_ms: 5, retries: 0 },
        truncated: false,
        failed: false,
        stance: Some(Stance {
            option: Some(if seat == 0 { "Redis" } else { "Postgres" }.into()),
            confidence: Some(Confidence::Medium),
            would_change_if: String::new(),
            concedes: String::new(),
            first_listed: false,
        }),
    }
}

pub fn evaluation(summary: &str) -> Evaluation {
    Evaluation {
        debaters: vec![DebaterAssessment {
            perspective: "Performance Advocate".into(),
            stance: Some("Redis".into()),
            engagement: "answered the cost point".into(),
            strongest: "sub-millisecond reads".into(),
            weakest: "no load figures".into(),
        }],
        summary: summary.into(),
        assessment: Assessment::NewGround,
        agreement: false,
        clear_winner: None,
        off_topic: Vec::new(),
        new_points: vec!["cost".into()],
        open_tensions: vec!["how much latency the product needs".into()],
        fallback: false,
        folded: false,
    }
}

/// Round `number` in full: both arguments and rebuttals (distinct words per round and
/// seat), measured and evaluated.
pub fn round(number: u32) -> Round {
    let text = |seat: usize, kind: &str| {
        format!("Seat {seat} {kind} in round {number}: point-{number}-{seat}-a point-{number}-{seat}-b.")
    };
    Round {
        number,
        framing: format!("Round {number}."),
        guidance: None,
        seats: vec![0, 1],
        arguments: (0..2).map(|s| contribution(s, ContributionKind::Argument, &text(s, "argues"))).collect(),
        rebuttals: (0..2).map(|s| contribution(s, ContributionKind::Rebuttal, &text(s, "answers"))).collect(),
        measures: Some(RoundMeasures {
            repetition: if number == 1 { vec![None, None] } else { vec![Some(0.1), Some(0.2)] },
            novelty: 0.9,
        }),
        evaluation: Some(evaluation(&format!("Round {number}: both sides added points."))),
    }
}

/// `count` complete rounds.
pub fn with_rounds(count: u32) -> DebateState {
    DebateState { rounds: (1..=count).map(round).collect(), ..state() }
}

pub fn synthesis() -> Synthesis {
    Synthesis {
        title: "Cache in Postgres until p99 passes 50 ms".into(),
        perspectives: vec![
            PerspectiveSummary {
                name: "Performance Advocate".into(),
                key_arguments: vec!["sub-millisecond reads".into()],
                trade_offs_accepted: vec!["another service to run".into()],
            },
            PerspectiveSummary {
                name: "Operational Simplicity".into(),
                key_arguments: vec!["one database to run".into()],
                trade_offs_accepted: vec!["slower cache hits".into()],
            },
        ],
        options: vec![
            OptionAssessment {
                option: "Redis".into(),
                pros: vec!["sub-millisecond reads (Performance Advocate)".into()],
                cons: vec!["another service to run (Operational Simplicity)".into()],
            },
            OptionAssessment {
                option: "Postgres".into(),
                pros: vec!["already run and backed up (Operational Simplicity)".into()],
                cons: vec!["slower cache hits (Performance Advocate)".into()],
            },
        ],
        chosen_option: Some("Postgres".into()),
        rationale: "Operational Simplicity showed the load fits one database; Performance Advocate's latency case needs numbers first.".into(),
        agreement: vec!["measure before adding Redis".into()],
        tensions: vec!["latency against operations".into()],
        recommendation: "Cache in Postgres now; add Redis when p99 exceeds 50 ms.".into(),
        confidence: Confidence::High,
        caveats: vec!["traffic grows tenfold".into()],
        consequences: Consequences {
            good: vec!["one database to run".into()],
            bad: vec!["cache hits take milliseconds, not microseconds".into()],
        },
        confirmation: "p99 of the product page stays under 50 ms for 30 days".into(),
        action_items: vec!["add an UNLOGGED cache table".into(), "alert on p99 over 50 ms".into()],
        dissents: vec![Dissent {
            perspective: "Performance Advocate".into(),
            option: Some("Redis".into()),
            view: "latency will need Redis within a year".into(),
        }],
        ..Synthesis::default()
    }
}

/// Ended by agreement after `rounds` rounds, synthesised and recorded.
pub fn complete(rounds: u32) -> DebateState {
    let mut state = with_rounds(rounds);
    state.status = Status::Complete;
    state.end_reason = Some(EndReason::Agreement);
    state.outcome = Some(Outcome {
        lowered: Vec::new(),
        synthesis: synthesis(),
        source: Source::Structured,
        confidence: Confidence::High,
        degradations: Vec::new(),
        layout: LAYOUT,
    });
    state.record_path = Some("/repo/docs/decisions/2026-11-22-should-we-use-redis-or-postgres-for-caching.md".into());
    state.commit_id = Some("0123456789abcdef0123456789abcdef01234567".into());
    state.totals =
        Usage { prompt_tokens: 1200, cached_tokens: 720, completion_tokens: 480, latency_ms: 60, retries: 0 };
    state
}

/// Evaluation 1 of the record, by two evaluators that disagree on the context (2 and 9),
/// with one check that found a placeholder.
pub fn scorecard(written: bool) -> Scorecard {
    let marks = |scores: [u8; 5], why: &str| {
        [Criterion::Decision, Criterion::Options, Criterion::Context, Criterion::Dissent, Criterion::FollowThrough]
            .into_iter()
            .zip(scores)
            .map(|(criterion, score)| Mark { criterion, score, reason: format!("{why} {}.", criterion.as_str()) })
            .collect()
    };
    let evaluator = |model: &str, scores, why| Evaluator {
        provider: "scripted".into(),
        model: model.into(),
        reasoned: true,
        marks: marks(scores, why),
        usage: Usage { prompt_tokens: 900, cached_tokens: 0, completion_tokens: 120, latency_ms: 40, retries: 0 },
    };
    Scorecard {
        number: 1,
        created_at: "2026-11-23T09:00:00.000Z".into(),
        revision: 0,
        evaluators: vec![evaluator("m", [8, 7, 2, 6, 9], "m on"), evaluator("n", [7, 7, 9, 5, 8], "n on")],
        checks: vec![
            Check { kind: CheckKind::Sections, findings: Vec::new() },
            Check { kind: CheckKind::Placeholders, findings: vec!["Consequences: (none given)".into()] },
        ],
        written,
    }
}
