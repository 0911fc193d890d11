//! `debate list` on databases of growing size, written through the store's own code.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{QUESTION, git};

/// `debate --list` on databases of 0, 1,000 and 10,000 debates; the 10,000 / empty ratio.
/// The databases are written first and synced, then timed in turn, so that disk
/// writeback and machine noise fall on every size alike.
pub fn list_scaling() -> f64 {
    const SIZES: [usize; 3] = [0, 1_000, 10_000];
    const RUNS: usize = 21;
    println!("## `debate --list` against the number of debates\n");
    println!(
        "Median of {RUNS} runs of the real binary (process start included), sizes interleaved; this repository's debates.\n"
    );
    println!("| debates | median | ratio to empty |\n|---|---|---|");
    let scratch = tempfile::tempdir().expect("temp dir");
    let repo = scratch.path().join("project");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    let root = repo.canonicalize().unwrap().display().to_string();
    let databases: Vec<PathBuf> = SIZES
        .iter()
        .map(|count| {
            let db = scratch.path().join(format!("{count}.sqlite3"));
            populate(&db, *count, &root);
            db
        })
        .collect();
    nix::unistd::sync();
    let bin = assert_cmd::cargo::cargo_bin!("debate");
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); SIZES.len()];
    for _ in 0..RUNS {
        for (db, samples) in databases.iter().zip(&mut times) {
            let started = Instant::now();
            let out =
                Command::new(bin).current_dir(&repo).arg("--db").arg(db).arg("--list").output().expect("--list runs");
            samples.push(started.elapsed());
            assert!(out.status.success());
        }
    }
    let medians: Vec<Duration> = times
        .into_iter()
        .map(|mut samples| {
            samples.sort();
            samples[samples.len() / 2]
        })
        .collect();
    for (count, median) in SIZES.iter().zip(&medians) {
        let ratio = median.as_secs_f64() / medians[0].as_secs_f64();
        println!("| {count} | {:.1} ms | {ratio:.2} |", median.as_secs_f64() * 1000.0);
    }
    println!();
    medians[2].as_secs_f64() / medians[0].as_secs_f64()
}

/// `count` complete debates written through the store's own operations, spread over
/// ten repositories (one of them `root`).
pub fn populate(path: &Path, count: usize, root: &str) {
    use debate::model::{
        Completion, Confidence, Contribution, ContributionKind, EndReason, Outcome, ProviderKind, RoleChoice,
        RoundMeasures, Snapshot, Source, Usage,
    };
    use debate::moderator::{analysis, selection, synthesis};

    let store = debate::store::Store::open(path).expect("store");
    let catalog = debate::catalog::Catalog::build(&[]).unwrap();
    let analysis = analysis::analyse(QUESTION);
    let panel = selection::select(&catalog, QUESTION, &analysis, &selection::Request::default()).unwrap();
    let role = RoleChoice {
        provider: "bench".into(),
        kind: ProviderKind::Openai,
        model: Some("mock".into()),
        temperature: 0.5,
    };
    let snapshot = Snapshot {
        debate: Default::default(),
        record: Default::default(),
        moderator: role.clone(),
        debater: role,
        seat_models: Vec::new(),
        decision_makers: Vec::new(),
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
    };
    let usage = Usage { prompt_tokens: 100, cached_tokens: 0, completion_tokens: 40, latency_ms: 200, retries: 0 };
    let call = |text: &str| Completion { text: text.into(), model: "mock".into(), usage, ..Completion::default() };
    let evaluation = debate::moderator::evaluation::heuristic(&[], 1.0, false);
    let measures = RoundMeasures { repetition: vec![None, None], novelty: 1.0 };
    let known = synthesis::Known { panel: &[], options: &[], decisions: &[] };
    let (synthesis, _) =
        synthesis::parse(r#"{"recommendation": "Use Postgres.", "confidence": "Medium"}"#, &known).unwrap();
    let outcome = Outcome {
        synthesis,
        source: Source::Structured,
        confidence: Confidence::Medium,
        degradations: Vec::new(),
        lowered: Vec::new(),
        layout: debate::model::LAYOUT,
    };
    for n in 0..count {
        let id = format!("DEB-{n:06}");
        let repo = if n % 10 == 0 { root.to_string() } else { format!("/bench/repo-{}", n % 10) };
        let question = format!("{QUESTION} (#{n})");
        let new = debate::store::NewDebate {
            id: &id,
            question: &question,
            title: &question,
            repo_root: &repo,
            snapshot: &snapshot,
            analysis: &analysis,
            panel: &panel,
        };
        store.create_debate(&new).unwrap();
        store.save_panel(&id, &panel, &analysis, &call("{}")).unwrap();
        let seats: Vec<usize> = (0..panel.len()).collect();
        let opening = debate::store::Opening { framing: "Round 1.", guidance: None, seats: &seats };
        store.start_round(&id, 1, &opening, None).unwrap();
        for (seat, member) in panel.iter().enumerate() {
            for kind in [ContributionKind::Argument, ContributionKind::Rebuttal] {
                let text = "An argument of ordinary length.".repeat(20);
                let stance = Some(debate::model::Stance::unknown());
                let c = Contribution {
                    seat,
                    kind,
                    text,
                    model: "mock".into(),
                    usage,
                    truncated: false,
                    failed: false,
                    looped: false,
                    stance,
                };
                store.save_contribution(&id, 1, member.name(), &c).unwrap();
            }
        }
        store.save_evaluation(&id, 1, &measures, &evaluation, &call("{}")).unwrap();
        store.save_end(&id, EndReason::Agreement).unwrap();
        store.save_outcome(&id, &outcome, &call("{}"), 0).unwrap();
        store.save_record_path(&id, &format!("{repo}/docs/decisions/{id}.md")).unwrap();
        store.complete(&id, Some("0123456789abcdef0123456789abcdef01234567")).unwrap();
    }
}
