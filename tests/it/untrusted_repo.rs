//! A cloned repository is untrusted: its links, templates and records may be hostile.
//! No command writes through a link or outside the work tree, a template cannot drop
//! what the record must say, a review never loses edits the team committed, and odd but
//! honest records (CRLF, duplicate keys) read right.

use std::collections::BTreeMap;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;

use crate::common::*;

/// A repository with an identity and one commit.
fn repository() -> Sandbox {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Jane Doe"]);
    git(&sandbox.repo, &["config", "user.email", "jane@example.com"]);
    write(&sandbox.repo, "a.txt", "one\n");
    git(&sandbox.repo, &["add", "-A"]);
    git(&sandbox.repo, &["commit", "-q", "-m", "start"]);
    sandbox
}

/// Every file under `dir`, with its bytes.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap().flatten() {
            let path = entry.path();
            match entry.file_type().unwrap().is_dir() {
                true => stack.push(path),
                false => {
                    let name = path.strip_prefix(dir).unwrap().display().to_string();
                    files.insert(name, std::fs::read(&path).unwrap());
                }
            }
        }
    }
    files
}

/// A teammate's record, with a debate id in its front matter, outside the work tree.
const OUTSIDE_RECORD: &str = "---\nid: DEB-zz9zz9\nstatus: proposed\ndate: 2026-11-20\n---\n# Use Postgres\n\n## Decision Outcome\n\nPostgres.\n";

/// Each writer, against a link the clone carries at each level: nothing is written
/// through the link, the command fails with a record error, and the commit (if any)
/// never replaces the link.
#[test]
fn no_writer_follows_a_link_out_of_the_work_tree() {
    struct Case {
        link: &'static str,
        args: &'static [&'static str],
        /// The part of the run that succeeds before the refusal (an issue draft comes
        /// after its record).
        committed_before: bool,
    }
    let cases = [
        Case { link: "docs", args: &["--offline", "-r", "1", QUESTION], committed_before: false },
        Case { link: "docs/decisions", args: &["--offline", "-r", "1", QUESTION], committed_before: false },
        Case { link: ".debate", args: &["--offline", "-r", "1", "--issue", QUESTION], committed_before: true },
        Case { link: ".debate/issues", args: &["--offline", "-r", "1", "--issue", QUESTION], committed_before: true },
        Case { link: "docs/decisions", args: &["accept", "DEB-zz9zz9"], committed_before: false },
        Case { link: "docs/decisions", args: &["deprecate", "DEB-zz9zz9"], committed_before: false },
        Case {
            link: "docs/decisions",
            args: &["--offline", "--supersedes", "DEB-zz9zz9", QUESTION],
            committed_before: false,
        },
        Case { link: "docs/decisions/README.md", args: &["--offline", "-r", "1", QUESTION], committed_before: false },
    ];
    for case in cases {
        let sandbox = repository();
        let outside = tempfile::tempdir().unwrap();
        let target = match case.link.ends_with(".md") {
            true => {
                std::fs::write(outside.path().join("README.md"), "<!-- debate: decisions index -->\n").unwrap();
                outside.path().join("README.md")
            }
            false => {
                std::fs::write(outside.path().join("0001-use-postgres.md"), OUTSIDE_RECORD).unwrap();
                outside.path().to_path_buf()
            }
        };
        let link = sandbox.repo.join(case.link);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        symlink(&target, &link).unwrap();
        git(&sandbox.repo, &["add", "-A"]);
        git(&sandbox.repo, &["commit", "-q", "-m", "a clone's links"]);
        let before = tree(outside.path());
        let head = git(&sandbox.repo, &["rev-parse", "HEAD"]);

        let out = sandbox.cmd().args(case.args).output().unwrap();
        let what = format!("{} with {:?}", case.link, case.args);
        assert_eq!(tree(outside.path()), before, "{what}: nothing changes outside the work tree");
        let entry = git(&sandbox.repo, &["ls-tree", "HEAD", case.link]);
        assert!(entry.starts_with("120000 "), "{what}: whatever was committed keeps the link a link: {entry}");
        if case.link.ends_with("README.md") {
            // An index behind a link is no index of ours: left alone, with a warning.
            assert!(out.status.success() && text(&out.stderr).contains("README.md"), "{}", text(&out.stderr));
            continue;
        }
        assert!(!out.status.success(), "{what}: refused\n{}", text(&out.stderr));
        let stderr = text(&out.stderr);
        assert!(
            !stderr.contains("panicked") && stderr.starts_with("error:") || stderr.contains("\nerror:"),
            "{stderr}"
        );
        assert!(stderr.contains("link"), "{what}: says why\n{stderr}");
        match case.committed_before {
            true => assert_eq!(out.status.code(), Some(5), "{what}: {stderr}"),
            false => assert_eq!(git(&sandbox.repo, &["rev-parse", "HEAD"]), head, "{what}: no commit"),
        }
    }
}

/// Edits a teammate committed to a record after its debate wrote it stop a review
/// before any model call, naming what differs; `--discard-edits` goes on.
#[test]
fn a_review_never_silently_drops_edits_the_team_committed() {
    let sandbox = repository();
    sandbox.cmd().args(["--offline", "-r", "1", QUESTION]).assert().success();
    let id = sandbox.only_id();
    let record = sandbox.records()[0].clone();
    let original = std::fs::read_to_string(&record).unwrap();
    let edited =
        original.replacen("## Decision Outcome\n", "## Decision Outcome\n\nThe team adds: measure first.\n", 1);
    assert_ne!(original, edited);
    std::fs::write(&record, &edited).unwrap();
    git(&sandbox.repo, &["commit", "-q", "-am", "edit the record by hand"]);
    let head = git(&sandbox.repo, &["rev-parse", "HEAD"]);

    let out = sandbox.cmd().args(["--resume", &id, "--guide", "What about cost?"]).output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{stderr}");
    assert!(stderr.contains("Decision Outcome") && stderr.contains("--discard-edits"), "{stderr}");
    assert_eq!(git(&sandbox.repo, &["rev-parse", "HEAD"]), head, "no commit");
    assert_eq!(std::fs::read_to_string(&record).unwrap(), edited, "the edits stay");
    let shown = sandbox.cmd().args(["--show", &id, "--json"]).output().unwrap();
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(shown["status"], "complete", "the debate was not reopened");

    sandbox.cmd().args(["--resume", &id, "--guide", "What about cost?", "--discard-edits"]).assert().success();
    assert_ne!(git(&sandbox.repo, &["rev-parse", "HEAD"]), head, "the review committed its revision");
}

/// A repository's template cannot drop the offline notice or the provenance, print a
/// value unescaped, or fail on an include after the models were asked.
#[test]
fn a_template_cannot_hide_who_wrote_the_record_or_print_raw_html() {
    let sandbox = repository();
    let question = "Should we use <script>alert(1)</script> Redis or Postgres for caching?";
    let template = |body: &str| write(&sandbox.repo, ".debate/templates/decision.md", body);

    template("# {{ title }}\n\nDebated by expert GPT-5 models.\n\n{{ question | safe }}\n");
    let out = sandbox.cmd().args(["--offline", "-r", "1", question]).output().unwrap();
    assert_eq!(out.status.code(), Some(4), "a template using `safe` is refused: {}", text(&out.stderr));
    assert!(sandbox.records().is_empty(), "before anything is written");

    template("# {{ title }}\n\n{% include \"missing.md\" %}\n");
    let out = sandbox.cmd().args(["--offline", "-r", "1", question]).output().unwrap();
    assert_eq!(out.status.code(), Some(4), "an include is refused at the start: {}", text(&out.stderr));
    let listed = sandbox.cmd().args(["--list", "--json"]).output().unwrap();
    assert_eq!(text(&listed.stdout).trim(), "[]", "no debate was started");

    template("# {{ title }}\n\nDebated by expert GPT-5 models.\n\n{{ question }}\n\n<!--\n");
    sandbox.cmd().args(["--offline", "-r", "1", "--no-commit", question]).assert().failure().code(5);

    template("# {{ title }}\n\nDebated by expert GPT-5 models.\n\n{{ question }}\n");
    sandbox.cmd().args(["--offline", "-r", "1", question]).assert().success();
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(record.contains("> **Offline debate.**"), "{record}");
    assert!(record.contains("\n## Provenance\n"), "{record}");
    assert!(!record.contains("<script>"), "{record}");
}

/// Smaller defects: a record with two `status:` keys is refused rather than read two
/// ways; a CRLF record has its status in the index; `--json` escapes controls that
/// reorder a terminal; the index takes the umask like the records.
#[test]
fn odd_records_read_one_way_and_json_escapes_invisible_controls() {
    let sandbox = repository();
    let twice = "---\nstatus: accepted\nstatus: rejected\n---\n# Use Redis\n\n## Decision Outcome\n\nRedis.\n";
    let crlf = "---\r\nstatus: proposed\r\ndate: 2026-11-20\r\n---\r\n# Use Kafka\r\n\r\n## Decision Outcome\r\n\r\nKafka.\r\n";
    write(&sandbox.repo, "docs/decisions/0001-use-redis.md", twice);
    write(&sandbox.repo, "docs/decisions/0002-use-kafka.md", crlf);
    git(&sandbox.repo, &["add", "-A"]);
    git(&sandbox.repo, &["commit", "-q", "-m", "records"]);

    let out = sandbox.cmd().args(["accept", "docs/decisions/0001-use-redis.md"]).output().unwrap();
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("front matter"), "{}", text(&out.stderr));

    let question = "Should we use Redis \u{202e}or\u{202c} Postgres \u{9b}31m for caching?";
    sandbox.cmd().args(["--offline", "-r", "1", question]).assert().success();
    let index = std::fs::read_to_string(sandbox.repo.join("docs/decisions/README.md")).unwrap();
    let kafka = index.lines().find(|l| l.contains("Use Kafka")).unwrap_or_default();
    assert!(kafka.contains("proposed"), "{index}");

    let shown = sandbox.cmd().args(["--show", &sandbox.only_id(), "--json"]).output().unwrap();
    let stdout = text(&shown.stdout);
    assert!(!stdout.contains('\u{202e}') && !stdout.contains('\u{9b}'), "{stdout}");
    let parsed: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(parsed["question"].as_str().unwrap().contains('\u{202e}'), "escaped, not dropped: {stdout}");

    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let umask = status.lines().find_map(|l| l.strip_prefix("Umask:")).unwrap().trim();
    let expected = 0o666 & !u32::from_str_radix(umask, 8).unwrap();
    for file in ["docs/decisions/README.md".to_string(), sandbox.records()[0].display().to_string()] {
        let mode = std::fs::metadata(sandbox.repo.join(&file)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, expected, "{file}");
    }
}

/// debate's own records hold token counts (`tokens: {prompt: …}`, `Tokens: 28557 prompt`):
/// no secret, and read as written, so a later debate sees the earlier one's status.
#[test]
fn debate_does_not_take_its_own_records_for_secrets() {
    let sandbox = repository();
    sandbox.cmd().args(["--offline", "-r", "1", QUESTION]).assert().success();
    let out = sandbox
        .cmd()
        .args(["--offline", "-r", "1", "--context-preview", "Should we cache sessions in Redis or Postgres?"])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("holds what looks like"), "{stderr}");
    let preview = text(&out.stdout);
    assert!(
        preview.contains("proposed") && !preview.contains("unknown"),
        "the earlier record reads as proposed:\n{preview}"
    );
}
