//! A committed record read back as the debate it carries (`carried`), for a clone that
//! never ran it. The record is trusted only as debate wrote it: rendering the debate read
//! back must give the file as it is (its status and status history aside, which the
//! lifecycle changes), else it was edited by hand and is refused, naming the sections.

use std::path::Path;

use crate::model::DebateState;
use crate::record::{
    RecordError, Result, Templates, WorkTree, lifecycle::status, read::carried, sidecar_path, write::git,
};

/// A record's text in the work tree, at most `limit` bytes, only when it is a file of
/// the repository at `root`: what a pull replaced by a link (to a key file, say), or a
/// path outside the repository, is not read.
pub fn checked_out_text(root: &Path, path: &Path, limit: u64) -> Option<String> {
    use std::io::Read;
    let inside = dunce::canonicalize(path).ok()?.starts_with(dunce::canonicalize(root).ok()?);
    if !inside || std::fs::symlink_metadata(path).ok()?.file_type().is_symlink() {
        return None;
    }
    let mut text = String::new();
    std::fs::File::open(path).ok()?.take(limit).read_to_string(&mut text).ok()?;
    Some(text)
}

/// The debate in the record at `relative` under `root`, placed in this work tree, and the
/// commit that holds the record as it is (none when the file differs from HEAD's).
pub fn read_back(root: &Path, relative: &Path, templates: &Templates) -> Result<(DebateState, Option<String>)> {
    let tree = WorkTree::open(root)?;
    let bytes = tree.read_existing(relative)?;
    let sidecar = sidecar_path(relative).map(|side| tree.read(&side)).transpose()?.flatten();
    let state = read_back_committed(root, relative, &bytes, sidecar.as_deref(), templates)?;
    // The records it supersedes are only ever named, but never through a link either.
    for earlier in &state.snapshot.supersedes {
        if let Err(err) = tree.read(Path::new(&earlier.path)) {
            let why = carried::CarryError::Unreadable(format!("the record it supersedes: {err}"));
            return Err(RecordError::NotCarried { path: relative.to_path_buf(), why });
        }
    }
    let commit = crate::repo::open(root)?.and_then(|repo| {
        let unchanged =
            git::read_at_head(&repo, relative).is_some_and(|committed| git::same_content(&bytes, &committed));
        unchanged.then(|| repo.head().ok()?.peel_to_commit().ok().map(|c| c.id().to_string())).flatten()
    });
    Ok((state, commit))
}

/// The debate the record `bytes` (and the transcript beside it, if any) carries, as if it
/// were at `relative` under `root`, trusted only as debate wrote it. Without the work
/// tree's checks: `read_back` adds them, and a record read from a branch's commit is
/// only shown.
pub fn read_back_committed(
    root: &Path,
    relative: &Path,
    bytes: &[u8],
    sidecar: Option<&[u8]>,
    templates: &Templates,
) -> Result<DebateState> {
    let path = root.join(relative);
    // Errors name the record as the repository does, which `git log -p --` takes.
    let not_carried = |why| RecordError::NotCarried { path: relative.to_path_buf(), why };
    // A clone with `core.autocrlf` checks the record out with CRLF: the same record.
    let text = String::from_utf8(bytes.to_vec())
        .map_err(|_| not_carried(carried::CarryError::Unreadable("it is not UTF-8 text".into())))?
        .replace("\r\n", "\n");
    // The seal at its end is not the debate's: `debate verify` checks it.
    let text = crate::record::seal::unsealed(&text).to_string();
    let sidecar = sidecar.map(|b| String::from_utf8_lossy(b).replace("\r\n", "\n"));
    let mut state = match carried::read(&text) {
        Err(carried::CarryError::Missing) if sidecar.is_some() => carried::read(sidecar.as_deref().unwrap_or_default()),
        read => read,
    }
    .map_err(|why| match why {
        carried::CarryError::TextsEdited => {
            RecordError::EditedByHand { path: relative.to_path_buf(), sections: vec!["Transcript".into()] }
        }
        why => not_carried(why),
    })?;
    let id = crate::adr::read(&relative.to_string_lossy(), &text).and_then(|fields| fields.id);
    if id.as_deref() != Some(state.id.as_str()) {
        return Err(not_carried(carried::CarryError::Unreadable(format!(
            "it carries {} but its front matter says {}",
            state.id,
            id.as_deref().unwrap_or("no id")
        ))));
    }
    state.repo_root = root.display().to_string();
    state.record_path = Some(path.display().to_string());
    // A review commits its revision on the branch checked out here (the pull request's).
    state.snapshot.branch = None;
    let rendered = templates.decision(&state, &path)?;
    let sidecar_differs = rendered.sidecar.is_some() && rendered.sidecar != sidecar;
    let text = as_this_version_writes(&text);
    // Versions before the `## Status` section wrote none unless the record superseded.
    let expected = match status::without_section(&text) {
        None => status::without_section(&rendered.decision).unwrap_or(rendered.decision),
        Some(_) => rendered.decision,
    };
    if status::keep(&text, &expected) != text || sidecar_differs {
        let sections = crate::adr::sections_that_differ(&expected, &text);
        return Err(RecordError::EditedByHand { path: relative.to_path_buf(), sections });
    }
    // Only the scores the record shows are its own: an earlier card the line carries
    // (before a review) is not rendered, so nothing vouches for it.
    state.scorecards = state.written_scorecard().cloned().into_iter().collect();
    // Reviewed here, the revision is committed here, whatever the author's settings were.
    state.snapshot.record.commit = true;
    state.snapshot.record.issue_draft = false;
    Ok(state)
}

/// `text` as this version of debate would name itself in it: a record another version
/// wrote says so in its front matter's `tool` and its provenance, and is the same debate.
fn as_this_version_writes(text: &str) -> String {
    const THIS: &str = concat!("debate ", env!("CARGO_PKG_VERSION"));
    let front = text.lines().skip(1).take_while(|line| *line != "---");
    let tool = front.filter_map(|line| line.strip_prefix("tool: ")).next().map(|v| v.trim().trim_matches('"'));
    match tool {
        Some(other) if other != THIS && other.starts_with("debate ") && !other.contains(['\n', '"']) => text
            .replace(&format!("tool: \"{other}\""), &format!("tool: \"{THIS}\""))
            .replace(&format!(", recorded by {other}."), &format!(", recorded by {THIS}.")),
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::model::{ContributionKind, Revision, fixture};

    const WORDS: &[&str] = &["cache", "latency", "Postgres", "Redis", "cost", "p99", "team", "runs", "one", "more"];

    /// A completed debate of `seats` perspectives and `rounds` rounds whose texts come
    /// from `seed`, with truncated and failed contributions and, if `reviewed`, a revision.
    fn debate(seats: usize, rounds: u32, seed: u64, reviewed: bool) -> DebateState {
        let mut state = fixture::complete(rounds);
        let names = ["Performance Advocate", "Operational Simplicity", "Cost Control", "Security Engineer"];
        state.panel =
            (0..seats).map(|i| fixture::seat(fixture::perspective(names[i], &["a", "b"], names[0]))).collect();
        let mut n = seed;
        let mut word = || {
            n = n.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            WORDS[(n >> 33) as usize % WORDS.len()]
        };
        for round in &mut state.rounds {
            round.seats = (0..seats).collect();
            let text = |word: &mut dyn FnMut() -> &'static str| {
                let words: Vec<&str> = (0..12).map(|_| word()).collect();
                format!("{}.", words.join(" "))
            };
            round.arguments =
                (0..seats).map(|s| fixture::contribution(s, ContributionKind::Argument, &text(&mut word))).collect();
            round.rebuttals =
                (0..seats).map(|s| fixture::contribution(s, ContributionKind::Rebuttal, &text(&mut word))).collect();
            round.arguments[0].truncated = seed.is_multiple_of(2);
            round.rebuttals[seats - 1].failed = seed.is_multiple_of(3);
            // Computed fractions, whose every digit must come back (JSON floats read exactly).
            if let Some(measures) = &mut round.measures {
                let fraction = |n: u64| (n % 1_000_003) as f64 / 7_919.0 / 13.0;
                measures.repetition =
                    (0..seats).map(|s| (s > 0).then(|| fraction(seed.rotate_left(s as u32)))).collect();
                measures.novelty = fraction(seed) / 10.0;
            }
        }
        if reviewed {
            state.revisions.push(Revision {
                date: "2026-11-23".into(),
                rounds: 1,
                chosen_option: Some("Redis".into()),
                confidence: crate::model::Confidence::Medium,
                recommendation: "Use Redis.".into(),
                commit: Some("0123456789abcdef0123456789abcdef01234567".into()),
                reopened_by: "Reviewer: what about cost?".into(),
            });
            state.rounds.last_mut().unwrap().guidance = Some("Reviewer: what about cost?".into());
        }
        state.usage_by_model = vec![("m".into(), state.totals)];
        state
    }

    /// What travels in the record: the state without what `carried::block` leaves out.
    fn travelling(state: &DebateState) -> serde_json::Value {
        let mut state = state.clone();
        state.snapshot.providers.clear();
        state.snapshot.project.text.clear();
        state.snapshot.branch = None;
        state.discarded.iter_mut().for_each(|(_, c)| c.text.clear());
        (state.repo_root, state.record_path, state.commit_id) = (String::new(), None, None);
        serde_json::to_value(state).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn a_record_reads_back_as_its_debate_and_renders_to_the_same_bytes(
            seats in 2usize..=4, rounds in 1u32..=3, seed in any::<u64>(), reviewed in any::<bool>(), sidecar in any::<bool>()
        ) {
            let dir = tempfile::tempdir().unwrap();
            let templates = Templates::load(dir.path()).unwrap();
            let mut state = debate(seats, rounds, seed, reviewed);
            if sidecar {
                state.snapshot.record.transcript = crate::model::TranscriptPlacement::Sidecar;
            }
            let path = Path::new(&state.repo_root).join("docs/decisions/2026-11-22-cache.md");
            let written = templates.decision(&state, &path).unwrap();
            let carrier = written.sidecar.as_deref().unwrap_or(&written.decision);
            let mut read = carried::read(carrier).unwrap();
            prop_assert_eq!(travelling(&read), travelling(&state), "the debate comes back whole");
            (read.repo_root, read.record_path, read.commit_id) =
                (state.repo_root.clone(), state.record_path.clone(), state.commit_id.clone());
            let again = templates.decision(&read, &path).unwrap();
            prop_assert_eq!(&again.decision, &written.decision);
            prop_assert_eq!(&again.sidecar, &written.sidecar);
        }
    }

    /// How a valid record is damaged: its bytes, the numbers its carried line holds, or
    /// the nesting of its values.
    #[derive(Debug, Clone)]
    enum Damage {
        Byte { at: usize, to: u8 },
        Cut { at: usize, len: usize },
        Number { nth: usize, to: &'static str },
        Nest { nth: usize, depth: usize },
    }

    fn damage() -> impl Strategy<Value = Damage> {
        const NUMBERS: &[&str] = &[
            "18446744073709551615",
            "18446744073709551614",
            "18446744073709551616",
            "-1",
            "1e308",
            "0",
            "4294967295",
            "9007199254740993",
        ];
        prop_oneof![
            (any::<usize>(), any::<u8>()).prop_map(|(at, to)| Damage::Byte { at, to }),
            (any::<usize>(), 1usize..64).prop_map(|(at, len)| Damage::Cut { at, len }),
            (any::<usize>(), prop::sample::select(NUMBERS)).prop_map(|(nth, to)| Damage::Number { nth, to }),
            (any::<usize>(), 1usize..300).prop_map(|(nth, depth)| Damage::Nest { nth, depth }),
        ]
    }

    /// `record` with `damage` done to it.
    fn damaged(record: &str, damage: &Damage) -> Vec<u8> {
        let mut bytes = record.as_bytes().to_vec();
        let line = record.find("<!-- debate:state ").unwrap_or(0);
        // The numbers of the JSON, not the digits inside its strings.
        let numbers: Vec<(usize, usize)> = regex::Regex::new(r"[\[,:](-?\d+(\.\d+)?)")
            .unwrap()
            .captures_iter(&record[line..])
            .filter_map(|c| c.get(1))
            .map(|m| (line + m.start(), line + m.end()))
            .collect();
        match *damage {
            Damage::Byte { at, to } => {
                let at = at % bytes.len();
                bytes[at] = to;
            }
            Damage::Cut { at, len } => {
                let at = at % bytes.len();
                bytes.drain(at..(at + len).min(bytes.len()));
            }
            Damage::Number { nth, to } => {
                let (start, end) = numbers[nth % numbers.len()];
                bytes.splice(start..end, to.bytes());
            }
            Damage::Nest { nth, depth } => {
                let (start, end) = numbers[nth % numbers.len()];
                let value = format!("{}{}{}", "[".repeat(depth), &record[start..end], "]".repeat(depth));
                bytes.splice(start..end, value.into_bytes());
            }
        }
        bytes
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn a_damaged_record_is_read_back_or_refused_never_a_panic(damage in damage(), seed in 0usize..4) {
            static WRITTEN: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
            let relative = Path::new("docs/decisions/2026-11-22-cache.md");
            let dir = tempfile::tempdir().unwrap();
            let templates = Templates::load(dir.path()).unwrap();
            let written = WRITTEN.get_or_init(|| {
                let path = Path::new("/repo").join(relative);
                (0..4u64).map(|seed| templates.decision(&debate(2, 2, seed, seed == 3), &path).unwrap().decision).collect()
            });
            std::fs::create_dir_all(dir.path().join("docs/decisions")).unwrap();
            std::fs::write(dir.path().join(relative), damaged(&written[seed], &damage)).unwrap();
            let _ = read_back(dir.path(), relative, &templates);
        }
    }

    #[test]
    fn text_with_markup_reads_back_as_rendered_and_renders_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let templates = Templates::load(dir.path()).unwrap();
        let mut state = debate(2, 1, 7, false);
        state.rounds[0].arguments[0].text =
            "# Heading\n\n<script>x</script> and `<b>`\n\n```rust\nlet a = \"<!-- /debate:text -->\";\n```\n---\nend"
                .into();
        let path = Path::new("/repo/docs/decisions/x.md");
        let written = templates.decision(&state, path).unwrap().decision;
        let mut read = carried::read(&written).unwrap();
        (read.repo_root, read.record_path, read.commit_id) =
            (state.repo_root.clone(), state.record_path.clone(), state.commit_id.clone());
        assert_eq!(templates.decision(&read, path).unwrap().decision, written);
    }

    #[test]
    fn a_record_with_its_written_scores_reads_back_with_them_and_renders_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let templates = Templates::load(dir.path()).unwrap();
        let mut state = debate(2, 1, 5, false);
        state.scorecards =
            vec![fixture::scorecard(false), crate::model::Scorecard { number: 2, ..fixture::scorecard(true) }];
        let path = Path::new("/repo/docs/decisions/x.md");
        let written = templates.decision(&state, path).unwrap().decision;
        assert!(written.contains("### Evaluation\n\nEvaluation 2 of this record"), "{written}");
        let mut read = carried::read(&written).unwrap();
        assert_eq!(read.scorecards, state.scorecards[1..], "only the scores written into the record travel");
        (read.repo_root, read.record_path, read.commit_id) =
            (state.repo_root.clone(), state.record_path.clone(), state.commit_id.clone());
        assert_eq!(templates.decision(&read, path).unwrap().decision, written);
    }

    /// A record written before every record had a `## Status` section reads back, and is
    /// written with one when next written.
    #[test]
    fn a_record_written_before_the_status_section_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let state = debate(2, 2, 7, false);
        let relative = Path::new("docs/decisions/x.md");
        let templates = Templates::load(dir.path()).unwrap();
        let written = templates.decision(&state, &dir.path().join(relative)).unwrap().decision;
        let older = status::without_section(&written).expect("a status section");
        assert!(!older.contains("\n## Status\n"));
        let read = read_back_committed(dir.path(), relative, older.as_bytes(), None, &templates).unwrap();
        assert_eq!(read.id, state.id);
        let edited = older.replacen("## Question", "## Question\n\nAn edit.", 1);
        assert!(read_back_committed(dir.path(), relative, edited.as_bytes(), None, &templates).is_err());
    }

    #[test]
    fn a_record_another_version_wrote_is_the_same_debate() {
        let this = concat!("debate ", env!("CARGO_PKG_VERSION"));
        let record =
            format!("---\nid: DEB-abc123\ntool: \"{this}\"\n---\n\n- Debate DEB-abc123, recorded by {this}.\n");
        let older = record.replace(this, "debate 0.0.9");
        assert_eq!(as_this_version_writes(&older), record);
        assert_eq!(as_this_version_writes(&record), record);
        let other_tool = record.replace(this, "adr-tools 3.0");
        assert_eq!(as_this_version_writes(&other_tool), other_tool, "only debate's own name is read as a version");
    }
}
