//! Records and terminal output say only what happened (docs/guide.md, "The decision record"):
//! each sentence that claims a fact — agreement, dissent, where something is in the
//! record, how many rounds, that no model reasoned — is checked where it is false and
//! where it is true, through the binary; and the text of `show`, `list` and errors as a
//! person reads it.

use crate::common::*;
use rexpect::session::PtySession;

fn identity(sandbox: &Sandbox) {
    git(&sandbox.repo, &["config", "user.name", "Ada Reviewer"]);
    git(&sandbox.repo, &["config", "user.email", "ada@example.com"]);
}

/// An offline debate run through, with `args` before the question.
fn offline(sandbox: &Sandbox, args: &[&str]) -> String {
    let out = sandbox.cmd().args(["--offline", "--no-checkpoints"]).args(args).arg(QUESTION).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    sandbox.newest_id()
}

fn only_record(sandbox: &Sandbox) -> String {
    let records = sandbox.records();
    assert_eq!(records.len(), 1, "{records:?}");
    std::fs::read_to_string(&records[0]).unwrap()
}

/// The lines of `text` from `heading` up to the next `## ` heading.
fn section(text: &str, heading: &str) -> String {
    let lines = text.lines().skip_while(|l| *l != heading).skip(1);
    lines.take_while(|l| !l.starts_with("## ")).collect::<Vec<_>>().join("\n").trim().to_string()
}

/// `debate <args>` on a terminal `columns` wide, the environment the sandbox gives it.
fn on_terminal(sandbox: &Sandbox, columns: u16, args: &str) -> PtySession {
    let debate = sandbox.std_cmd();
    let program = debate.get_program().to_string_lossy().into_owned();
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c").arg(format!("stty cols {columns}; exec '{program}' {args}"));
    cmd.current_dir(&sandbox.repo).env("TERM", "dumb").env("NO_COLOR", "1");
    for (key, value) in debate.get_envs() {
        match value {
            Some(value) => cmd.env(key, value),
            None => cmd.env_remove(key),
        };
    }
    rexpect::session::spawn_command(cmd, Some(30_000)).expect("debate starts on a pty")
}

fn press(p: &mut PtySession, keys: &str) {
    p.send(keys).unwrap();
    p.flush().unwrap();
}

/// At the first checkpoint, choose Guide and type `keys` at its prompt.
fn guide(p: &mut PtySession, keys: &str) {
    p.exp_string("[C]ontinue  [G]uide  [E]nd early  [P]ause").unwrap();
    press(p, "g");
    p.exp_string("Your guidance for the next round: ").unwrap();
    press(p, keys);
}

/// What a terminal session printed: rexpect reads bytes as Latin-1, debate writes UTF-8.
fn printed(p: &mut PtySession) -> String {
    let latin1 = p.exp_eof().unwrap();
    String::from_utf8(latin1.chars().map(|c| c as u8).collect()).unwrap().replace('\r', "")
}

#[test]
fn an_offline_record_claims_nothing_that_did_not_happen() {
    let sandbox = Sandbox::new();
    identity(&sandbox);
    // At most five rounds; the offline debaters stagnate after two.
    let id = offline(&sandbox, &["--issue", "-r", "5"]);
    assert_eq!(sandbox.show(&id)["rounds"], 2);
    let record = only_record(&sandbox);

    // The sides ended apart: no agreement and no absence of dissent is claimed.
    assert_eq!(section(&record, "## Points of Agreement"), "*(the moderator recorded no points of agreement)*");
    let dissent = section(&record, "## Dissenting View");
    assert!(!dissent.contains("No perspective dissented"), "{dissent}");
    assert!(dissent.contains("- **Performance Advocate**: Redis\n- **Operational Simplicity**: Postgres"), "{dissent}");
    // Two rounds argued, under a limit of five: none is counted that did not happen.
    assert!(record.contains("<summary>Round 2 of 2 (rebuttal)</summary>"), "{record}");
    assert!(!record.contains(" of 5 (") && record.contains("Round 2 of at most 5 (rebuttal)."), "{record}");
    // No sentence points at a place in the record; the provider is named once.
    let recommendation = section(&record, "## Recommendation");
    assert!(recommendation.starts_with("No model reasoned about this question"), "{recommendation}");
    assert!(!recommendation.contains("above") && !recommendation.contains("below"), "{recommendation}");
    let provenance = section(&record, "## Provenance");
    assert!(provenance.contains("- Moderator: offline (temperature 0.2).\n"), "{provenance}");
    assert!(!provenance.contains("offline, offline"), "{provenance}");

    let draft = std::fs::read_to_string(sandbox.repo.join(format!(".debate/issues/{id}.md"))).unwrap();
    let tasks: Vec<&str> = draft.lines().filter(|l| l.starts_with("- [ ]")).collect();
    assert_eq!(
        tasks,
        ["- [ ] Choose one of the options (Redis, Postgres): the debate chose no single option"],
        "{draft}"
    );
}

#[test]
fn only_an_offline_synthesis_says_no_model_reasoned_and_no_dissent_is_said_when_the_stances_show_it() {
    let sandbox = Sandbox::new();
    // Both debaters end on Postgres, the option the synthesis chooses; it records no dissent.
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE));
    sandbox.cmd().arg("--config").arg(&config).args(["--no-commit", QUESTION]).assert().success();
    let record = only_record(&sandbox);
    assert!(!record.contains("No model reasoned"), "{record}");
    assert_eq!(
        section(&record, "## Dissenting View"),
        "No perspective dissented: every perspective ended on the chosen option, Postgres."
    );
    assert!(record.contains("<summary>Round 1 of 1 (opening)</summary>"), "{record}");
}

const GUIDANCE: &str = "Weigh our team's PostgreSQL experience";

/// Debate `id`'s offline arguments: round 1's unguided; round 2's each taking up
/// `GUIDANCE`, as its seat's option stands to it.
fn assert_guided(sandbox: &Sandbox, id: &str) {
    let detail = sandbox.show(id);
    let argued = |round: usize| -> Vec<String> {
        let arguments = detail["transcript"][round - 1]["arguments"].as_array().unwrap();
        arguments.iter().map(|a| a["text"].as_str().unwrap().to_string()).collect()
    };
    assert!(argued(1).iter().all(|a| !a.contains("guidance")), "{:?}", argued(1));
    let guided = argued(2);
    assert_eq!(guided.len(), 2);
    for argument in &guided {
        let heeded = format!("\n\nTaking the guidance into account (\u{201c}{GUIDANCE}\u{201d})");
        assert!(argument.contains(&heeded), "{argument}");
    }
    assert!(guided.iter().any(|a| a.contains("It names Postgres, the option this perspective favours")), "{guided:?}");
    assert!(guided.iter().any(|a| a.contains("It names Postgres, not Redis")), "{guided:?}");
}

#[test]
fn offline_arguments_take_up_the_guidance_given_at_a_checkpoint() {
    let sandbox = Sandbox::new();
    let mut p = on_terminal(&sandbox, 100, &format!("--offline --no-commit -r 2 '{QUESTION}'"));
    guide(&mut p, &format!("{GUIDANCE}\r"));
    p.exp_string("Write an issue draft for the follow-up work?").unwrap();
    press(&mut p, "n");
    p.exp_eof().unwrap();
    assert_guided(&sandbox, &sandbox.only_id());
}

#[test]
fn offline_arguments_take_up_a_reviewers_objection() {
    let sandbox = Sandbox::new();
    identity(&sandbox);
    let id = offline(&sandbox, &["-r", "1"]);
    let out = sandbox.cmd().args(["review", &id, "--guide", GUIDANCE]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_guided(&sandbox, &id);
}

#[test]
fn show_prints_each_rounds_stances_and_the_chosen_option() {
    let sandbox = Sandbox::new();
    let id = offline(&sandbox, &["--no-commit", "-r", "2"]);
    let shown = sandbox.cmd().args(["show", &id]).output().unwrap();
    let shown = text(&shown.stdout);
    for round in [1, 2] {
        let stances = format!(
            "Stances after round {round}:\n  Performance Advocate: Redis (low)\n  Operational Simplicity: Postgres (low)\n"
        );
        assert!(shown.contains(&stances), "{shown}");
    }
    assert!(shown.contains("═══ Decision ═══\nChosen option: none (no single option was chosen)\n"), "{shown}");

    let chosen = Sandbox::new();
    let config = chosen.scripted(&varied_answers(&PANEL, 1, AGREE));
    chosen.cmd().arg("--config").arg(&config).args(["--no-commit", QUESTION]).assert().success();
    let shown = text(&chosen.cmd().args(["show", &chosen.only_id()]).output().unwrap().stdout);
    assert!(shown.contains("Chosen option: Postgres\n"), "{shown}");
    assert!(shown.contains("Stances after round 1:\n  Performance Advocate: Postgres (medium)\n"), "{shown}");
}

#[test]
fn list_all_names_each_debates_repository() {
    let sandbox = Sandbox::new();
    offline(&sandbox, &["--no-commit", "-r", "1"]);
    let other = sandbox.home.join("billing");
    std::fs::create_dir_all(&other).unwrap();
    git(&other, &["init", "-q", "-b", "main"]);
    let out =
        sandbox.cmd().current_dir(&other).args(["--offline", "--no-commit", "-r", "1", QUESTION]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));

    let all = text(&sandbox.cmd().args(["list", "--all"]).output().unwrap().stdout);
    let header = all.lines().next().unwrap();
    let column = header.find("REPOSITORY").unwrap_or_else(|| panic!("a REPOSITORY column: {all}"));
    for repository in [&sandbox.repo, &other] {
        let repository = repository.canonicalize().unwrap().display().to_string();
        assert!(all.lines().any(|l| l.get(column..).is_some_and(|rest| rest.starts_with(&repository))), "{all}");
    }
    let here = text(&sandbox.cmd().arg("list").output().unwrap().stdout);
    assert!(!here.contains("REPOSITORY"), "one repository needs no column: {here}");
}

#[test]
fn an_unsupported_shell_is_refused_with_the_valid_ones() {
    let out = Sandbox::new().cmd().args(["completions", "nushell"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.starts_with("error: invalid value 'nushell'"), "{stderr}");
    assert!(stderr.contains("hint: the valid values: bash, elvish, fish, powershell, zsh"), "{stderr}");
}

#[test]
fn ctrl_c_is_reported_as_every_other_error_is() {
    let sandbox = Sandbox::new();
    let mut p = on_terminal(&sandbox, 100, &format!("--offline '{QUESTION}'"));
    guide(&mut p, "abc");
    p.send_control('c').unwrap();
    let rest = p.exp_eof().unwrap();
    let line =
        rest.lines().map(str::trim).find(|l| l.contains("stopped by Ctrl-C")).unwrap_or_else(|| panic!("{rest}"));
    assert!(line.starts_with("error: stopped by Ctrl-C") && !rest.contains("Error"), "{rest}");

    // Ctrl-C as a signal, in the middle of a round.
    let sandbox = Sandbox::new();
    let config = sandbox.scripted(&format!("delay_ms: 250\n{}", varied_answers(&PANEL, 2, CONTINUE)));
    let child = sandbox
        .std_cmd()
        .arg("--config")
        .arg(&config)
        .args(["-r", "2", QUESTION])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for("an argument stored", || {
        let stored = contributions(&sandbox.try_shown()?);
        (stored >= 1).then_some(()).ok_or("none stored".to_string())
    });
    signal(child.id(), "INT");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let stderr = text(&out.stderr);
    assert!(stderr.lines().any(|l| l.starts_with("error: stopped by Ctrl-C")), "{stderr}");
    assert!(!stderr.contains("Error"), "{stderr}");
}

#[test]
fn long_lines_break_between_words_at_the_terminals_width() {
    let sandbox = Sandbox::new();
    let id = offline(&sandbox, &["--no-commit", "-r", "1"]);
    let unwrapped = text(&sandbox.cmd().args(["show", &id]).output().unwrap().stdout);
    let words: std::collections::BTreeSet<&str> = unwrapped.split_whitespace().collect();
    let shown = printed(&mut on_terminal(&sandbox, 60, &format!("show --no-pager {id}")));
    assert!(shown.lines().count() > unwrapped.lines().count(), "long lines were broken:\n{shown}");
    for line in shown.lines() {
        assert!(line.chars().count() <= 60 || !line.trim().contains(' '), "wider than the terminal: {line:?}");
        for word in line.split_whitespace() {
            assert!(words.contains(word), "{word:?} is cut from a longer word: {line:?}");
        }
    }
}

#[test]
fn progress_breaks_between_words_and_leaves_commands_whole() {
    let sandbox = Sandbox::new();
    let args = format!("--offline --no-checkpoints --no-commit --issue -r 1 '{QUESTION}'");
    let printed = printed(&mut on_terminal(&sandbox, 60, &args));
    let command = printed.lines().find(|l| l.starts_with("  gh issue create")).unwrap_or_else(|| panic!("{printed}"));
    assert!(command.len() > 60 && command.contains("--body-file"), "the command is one line: {printed}");
    assert!(
        printed.contains("Recommendation: No model reasoned about this question: its\narguments were"),
        "{printed}"
    );
    for line in printed.lines().filter(|l| *l != command) {
        assert!(line.chars().count() <= 60 || !line.trim().contains(' '), "wider than the terminal: {line:?}");
    }
}
