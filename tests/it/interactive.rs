//! The binary on a pseudo-terminal, answered as a person would: checkpoints, the
//! clarifying question, the issue-draft question; and the same debate without a
//! terminal, which must never ask anything.
//!
//! rexpect reads bytes as Latin-1, so needles stay ASCII. A question is drawn only once
//! the terminal is in raw mode, so a key can be sent as soon as its prompt shows.

use crate::common::*;
use rexpect::process::WaitStatus;
use rexpect::session::PtySession;

fn session(sandbox: &Sandbox, config: Option<&std::path::Path>, args: &[&str]) -> PtySession {
    let mut cmd = sandbox.std_cmd();
    if let Some(config) = config {
        cmd.arg("--config").arg(config);
    }
    cmd.args(args).env("TERM", "dumb").env("NO_COLOR", "1");
    rexpect::session::spawn_command(cmd, Some(30_000)).expect("debate starts on a pty")
}

/// Wait for `prompt`, then press `key`.
fn answer(p: &mut PtySession, prompt: &str, key: &str) {
    p.exp_string(prompt).unwrap_or_else(|err| panic!("waiting for {prompt:?}: {err}"));
    p.send(key).unwrap();
    p.flush().unwrap();
}

const MENU: &str = "[C]ontinue  [G]uide  [E]nd early  [P]ause";
const ISSUE: &str = "Write an issue draft for the follow-up work?";

fn exit_code(p: &mut PtySession) -> i32 {
    match p.process().wait().unwrap() {
        WaitStatus::Exited(_, code) => code,
        other => panic!("debate did not exit normally: {other:?}"),
    }
}

/// A scripted debate with checkpoints on.
fn scripted(sandbox: &Sandbox, answers: &str) -> std::path::PathBuf {
    let config = sandbox.scripted(answers);
    // Checkpoints are on for these debates (the harness turns them off by default).
    let text = std::fs::read_to_string(&config).unwrap().replace("checkpoints: false", "checkpoints: true");
    std::fs::write(&config, text).unwrap();
    config
}

fn status(sandbox: &Sandbox) -> String {
    sandbox.shown()["status"].as_str().unwrap().to_string()
}

fn rounds(sandbox: &Sandbox) -> u64 {
    sandbox.shown()["rounds"].as_u64().unwrap()
}

#[test]
fn continue_runs_the_next_round() {
    let sandbox = Sandbox::new();
    let config = scripted(&sandbox, &varied_answers(&PANEL, 2, CONTINUE));
    let mut p = session(&sandbox, Some(&config), &["-r", "2", QUESTION]);
    p.exp_string("Round 1 Complete").unwrap();
    p.exp_string("assessment: new points emerging").unwrap();
    answer(&mut p, MENU, "c");
    p.exp_string("Round 2 Complete").unwrap();
    answer(&mut p, ISSUE, "n");
    p.exp_string("is complete").unwrap();
    assert_eq!(exit_code(&mut p), 0);
    assert_eq!((status(&sandbox).as_str(), rounds(&sandbox)), ("complete", 2));
}

#[test]
fn guidance_reaches_the_next_round_and_the_record() {
    let sandbox = Sandbox::new();
    let config = scripted(&sandbox, &varied_answers(&PANEL, 2, CONTINUE));
    let mut p = session(&sandbox, Some(&config), &["-r", "2", QUESTION]);
    answer(&mut p, MENU, "g");
    p.exp_string("Your guidance for the next round").unwrap();
    p.send_line("Focus on our team's PostgreSQL experience").unwrap();
    answer(&mut p, ISSUE, "n");
    p.exp_string("is complete").unwrap();
    assert_eq!(exit_code(&mut p), 0);
    let round2: Vec<_> =
        sandbox.prompts().into_iter().filter(|q| q["round"] == 2 && q["perspective"].is_string()).collect();
    assert_eq!(round2.len(), 4);
    for q in &round2 {
        assert!(q["prompt"].as_str().unwrap().contains("Focus on our team's PostgreSQL experience"), "{q}");
    }
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(record.contains("Guidance before round 2: Focus on our team's PostgreSQL experience"), "{record}");
}

#[test]
fn ending_early_goes_straight_to_synthesis() {
    let sandbox = Sandbox::new();
    let config = scripted(&sandbox, &varied_answers(&PANEL, 3, CONTINUE));
    let mut p = session(&sandbox, Some(&config), &["-r", "3", QUESTION]);
    answer(&mut p, MENU, "e");
    p.exp_string("Debate ended: human").unwrap();
    answer(&mut p, ISSUE, "n");
    p.exp_string("is complete").unwrap();
    assert_eq!(exit_code(&mut p), 0);
    assert_eq!((status(&sandbox).as_str(), rounds(&sandbox)), ("complete", 1));
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(record.contains("ended_by: human"), "{record}");
}

#[test]
fn pause_then_resume_asks_again_and_repeats_nothing() {
    let sandbox = Sandbox::new();
    let config = scripted(&sandbox, &varied_answers(&PANEL, 2, CONTINUE));
    let mut p = session(&sandbox, Some(&config), &["-r", "2", QUESTION]);
    answer(&mut p, MENU, "p");
    p.exp_string("Continue with: debate resume DEB-").unwrap();
    assert_eq!(exit_code(&mut p), 0, "a pause is a success");
    assert_eq!(status(&sandbox), "paused");
    assert!(sandbox.records().is_empty());
    let calls_before = sandbox.prompts().len();
    assert_eq!(calls_before, 6, "analysis and round 1");

    let id = sandbox.only_id();
    let mut p = session(&sandbox, Some(&config), &["--resume", &id.to_lowercase()]);
    p.exp_string(&format!("Resuming {id}")).unwrap();
    p.exp_string("1 round so far").unwrap();
    p.exp_string("Round 1 Complete").unwrap();
    answer(&mut p, MENU, "c");
    answer(&mut p, ISSUE, "n");
    p.exp_string("is complete").unwrap();
    assert_eq!(exit_code(&mut p), 0);
    let resumed: Vec<String> =
        sandbox.prompts()[calls_before..].iter().map(|q| q["purpose"].as_str().unwrap().to_string()).collect();
    // Round 2 is the last: the synthesis judges it.
    assert_eq!(resumed, ["argument", "argument", "rebuttal", "rebuttal", "synthesis"]);
}

#[test]
fn ctrl_c_in_the_middle_of_a_round_saves_and_resume_repeats_no_finished_call() {
    let sandbox = Sandbox::new();
    // Round 2: one debater answers fast, the other slowly.
    let slow_debater = format!("{{purpose: argument, round: 2, perspective: \"{}\"", PANEL[0]);
    let answers = varied_answers(&PANEL, 2, CONTINUE);
    let config = scripted(
        &sandbox,
        &replace_answers(
            &answers,
            &slow_debater,
            &format!("{slow_debater}, delay_ms: 4000, text: \"slow\\n{STANCE}\"}}"),
        ),
    );

    let mut p = session(&sandbox, Some(&config), &["-r", "2", QUESTION]);
    answer(&mut p, MENU, "c");
    // The fast debater's argument is stored while the slow one is still in flight.
    wait_for("the fast debater's round-2 argument", || {
        sandbox.try_shown().is_ok_and(|detail| stored_in_round(&detail, 2, "arguments") >= 1)
    });
    p.send_control('c').unwrap();
    p.exp_string("debate resume").unwrap();
    assert_eq!(exit_code(&mut p), 130);
    assert_eq!(status(&sandbox), "paused");
    let started = sandbox.prompts().len();
    // The database itself: the moderator's calls stored are not in --show.
    let stored: i64 = sandbox
        .sqlite()
        .query_row("SELECT (SELECT COUNT(*) FROM contributions) + (SELECT COUNT(*) FROM moderator_calls)", [], |r| {
            r.get(0)
        })
        .unwrap();
    let lost = started - stored as usize;
    assert_eq!(lost, 1, "only the slow argument was in flight");

    let id = sandbox.only_id();
    sandbox.cmd().arg("--config").arg(&config).args(["--no-checkpoints", "--resume", &id]).assert().success();
    // Analysis, two rounds of 2 + 2 and round 1's evaluation, the synthesis.
    let uninterrupted = 1 + 5 + 4 + 1;
    assert_eq!(sandbox.prompts().len(), uninterrupted + lost);
    assert_eq!(status(&sandbox), "complete");
}

#[test]
fn end_of_input_at_a_checkpoint_pauses() {
    let sandbox = Sandbox::new();
    let config = scripted(&sandbox, &varied_answers(&PANEL, 2, CONTINUE));
    let mut p = session(&sandbox, Some(&config), &["-r", "2", QUESTION]);
    p.exp_string(MENU).unwrap();
    p.send_control('d').unwrap();
    p.exp_string("input ended at the checkpoint").unwrap();
    assert_eq!(exit_code(&mut p), 0);
    assert_eq!(status(&sandbox), "paused");
}

/// `echo shell=$$; debate <args>; echo exit=$?; stty -a` on one terminal, to see how
/// debate left it.
fn then_stty(sandbox: &Sandbox, args: &str) -> PtySession {
    let debate = sandbox.std_cmd();
    let mut cmd = std::process::Command::new("sh");
    let program = debate.get_program().to_string_lossy().into_owned();
    cmd.arg("-c").arg(format!("echo shell=$$; '{program}' {args}; echo exit=$?; stty -a"));
    cmd.current_dir(&sandbox.repo).env("TERM", "dumb").env("NO_COLOR", "1");
    for (key, value) in debate.get_envs() {
        match value {
            Some(value) => cmd.env(key, value),
            None => cmd.env_remove(key),
        };
    }
    rexpect::session::spawn_command(cmd, Some(30_000)).unwrap()
}

/// The terminal is back in canonical mode (rexpect starts its terminals with echo off;
/// canonical mode is what raw mode takes away).
fn assert_not_raw(settings: &str) {
    assert!(settings.contains(" icanon") && !settings.contains("-icanon"), "terminal left raw: {settings}");
}

#[test]
fn an_unanswered_checkpoint_pauses_after_its_timeout() {
    let sandbox = Sandbox::new();
    let config = scripted(&sandbox, &varied_answers(&PANEL, 2, CONTINUE));
    let text = std::fs::read_to_string(&config).unwrap() + "  checkpoint_timeout_seconds: 1\n";
    std::fs::write(&config, text).unwrap();
    // Then `stty -a` in the same terminal: the abandoned question must not leave it raw.
    let mut p = then_stty(&sandbox, &format!("--config '{}' -r 2 '{QUESTION}'", config.display()));
    p.exp_string(MENU).unwrap();
    p.exp_string("no answer at the checkpoint in time").unwrap();
    assert_not_raw(&p.exp_eof().unwrap());
    assert_eq!(status(&sandbox), "paused");
}

#[test]
fn sigterm_while_the_clarifying_question_waits_exits_143_and_restores_the_terminal() {
    let sandbox = Sandbox::new();
    let mut p = then_stty(&sandbox, "--offline 'What should we do?'");
    p.exp_string("shell=").unwrap();
    let shell = p.read_line().unwrap().trim().to_string();
    p.exp_string("Clarification").unwrap();
    let children = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children")).unwrap();
    let debate = children.split_whitespace().next().expect("debate runs under the shell");
    let killed = std::process::Command::new("kill").args(["-TERM", debate]).status().unwrap();
    assert!(killed.success());
    p.exp_string("exit=143").unwrap();
    assert_not_raw(&p.exp_eof().unwrap());
    // Stored before it asked, the debate pauses: resuming asks the questions again.
    assert_eq!(status(&sandbox), "paused");
    assert_eq!(sandbox.shown()["clarification"]["answer"], serde_json::Value::Null);
}

#[test]
fn a_vague_question_gets_a_clarifying_question_on_a_terminal() {
    let sandbox = Sandbox::new();
    let mut p = session(&sandbox, None, &["--offline", "-r", "1", "What should we do?"]);
    p.exp_string("The question is vague. The moderator asks:").unwrap();
    p.exp_string("Which options are you choosing between").unwrap();
    p.exp_string("Clarification").unwrap();
    p.send_line("Choose between Redis and Postgres for caching our product pages").unwrap();
    p.exp_string("Performance Advocate").unwrap();
    answer(&mut p, ISSUE, "n");
    p.exp_string("is complete").unwrap();
    assert_eq!(exit_code(&mut p), 0);
    let answer = &sandbox.shown()["clarification"]["answer"];
    assert!(answer.as_str().unwrap().contains("Redis and Postgres"), "{answer}");
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(record.contains("the answer before the debate: Choose between Redis and Postgres"), "{record}");
    assert!(!record.contains("The question was vague"), "{record}");
}

#[test]
fn without_a_terminal_a_vague_question_proceeds_with_a_note() {
    let sandbox = Sandbox::new();
    let out = sandbox.cmd().args(["--offline", "What should we do?"]).write_stdin("").assert().success();
    assert!(!String::from_utf8_lossy(&out.get_output().stderr).contains("Clarification"));
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(record.contains("The question was vague"), "{record}");
    assert!(record.contains("Open question: Which options are you choosing between"), "{record}");
}

#[test]
fn without_a_terminal_nothing_is_asked_no_escape_codes_and_stdout_holds_only_the_result() {
    let sandbox = Sandbox::new();
    let config = scripted(&sandbox, &varied_answers(&PANEL, 3, CONTINUE));
    let out = sandbox
        .std_cmd()
        .arg("--config")
        .arg(&config)
        .args(["-r", "3", QUESTION])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!stderr.contains("[C]ontinue") && !stderr.contains(ISSUE), "{stderr}");
    assert!(!stdout.contains('\x1b') && !stderr.contains('\x1b'), "no ANSI escape sequences");
    assert_eq!(stdout.lines().count(), 1);
    assert!(stdout.trim().ends_with(".md") && std::path::Path::new(stdout.trim()).is_file());
    assert_eq!(rounds(&sandbox), 3, "checkpoints continued by themselves");
}

#[test]
fn an_interactive_debate_offers_an_issue_draft_and_writes_it_on_yes() {
    let sandbox = Sandbox::new();
    let mut p = session(&sandbox, None, &["--offline", "-r", "1", QUESTION]);
    answer(&mut p, ISSUE, "y");
    p.exp_string("gh issue create --title").unwrap();
    p.exp_eof().unwrap();
    let id = sandbox.only_id();
    assert!(sandbox.repo.join(format!(".debate/issues/{id}.md")).is_file());
}

#[test]
fn answering_no_writes_no_draft() {
    let sandbox = Sandbox::new();
    let mut p = session(&sandbox, None, &["--offline", "-r", "1", QUESTION]);
    answer(&mut p, ISSUE, "n");
    p.exp_string("is complete").unwrap();
    p.exp_eof().unwrap();
    assert!(!sandbox.repo.join(".debate/issues").exists());
    assert_eq!(sandbox.records().len(), 1);
}

#[test]
fn no_colour_with_no_color_even_on_a_terminal() {
    for (no_color, coloured) in [(true, false), (false, true)] {
        let sandbox = Sandbox::new();
        let mut cmd = sandbox.std_cmd();
        cmd.args(["--offline", "--no-checkpoints", "-r", "1", QUESTION]).env("TERM", "xterm-256color");
        if no_color {
            cmd.env("NO_COLOR", "1");
        }
        let mut p = rexpect::session::spawn_command(cmd, Some(30_000)).unwrap();
        let screen = p.exp_eof().unwrap();
        // Bold headings and dim headers are the colours this tool uses.
        let has_colour = screen.contains("\x1b[1m") || screen.contains("\x1b[2m") || screen.contains("\x1b[36m");
        assert_eq!(has_colour, coloured, "NO_COLOR set: {no_color}");
    }
}

#[test]
fn an_unanswered_issue_draft_question_times_out_as_no() {
    let sandbox = Sandbox::new();
    let config = scripted(&sandbox, &varied_answers(&PANEL, 1, AGREE));
    let text = std::fs::read_to_string(&config).unwrap() + "  checkpoint_timeout_seconds: 1\n";
    std::fs::write(&config, text).unwrap();
    let mut p = session(&sandbox, Some(&config), &["-r", "1", QUESTION]);
    p.exp_string(ISSUE).unwrap();
    // Nobody answers: after the checkpoint timeout the answer is no, and the debate ends.
    p.exp_string("no").unwrap();
    p.exp_string("is complete").unwrap();
    assert_eq!(exit_code(&mut p), 0);
    assert_eq!(status(&sandbox), "complete");
    assert!(!sandbox.repo.join(".debate/issues").exists());
}

/// What the user types during a debate is masked like the question: a credential in the
/// clarification or in guidance never reaches a prompt, the database or the record.
#[test]
fn secrets_typed_into_answers_are_masked() {
    const AWS: &str = "AKIAIOSFODNN7EXAMPLE";
    const TOKEN: &str = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    let sandbox = Sandbox::new();
    let mut p = session(&sandbox, None, &["--offline", "-r", "1", "What should we do?"]);
    p.exp_string("Clarification").unwrap();
    p.send_line(&format!("Redis or Postgres for caching; our key is {AWS}")).unwrap();
    p.exp_string("masked").unwrap();
    answer(&mut p, ISSUE, "n");
    p.exp_string("is complete").unwrap();
    assert_eq!(exit_code(&mut p), 0);

    let guided = Sandbox::new();
    let config = scripted(&guided, &varied_answers(&PANEL, 2, CONTINUE));
    let mut p = session(&guided, Some(&config), &["-r", "2", QUESTION]);
    answer(&mut p, MENU, "g");
    p.exp_string("Your guidance for the next round").unwrap();
    p.send_line(&format!("Use the token {TOKEN} for the benchmark")).unwrap();
    p.exp_string("masked").unwrap();
    answer(&mut p, ISSUE, "n");
    p.exp_string("is complete").unwrap();
    assert_eq!(exit_code(&mut p), 0);
    assert!(guided.prompts().iter().any(|q| q["prompt"].as_str().unwrap().contains("Use the token [redacted]")));

    for (sandbox, secret) in [(&sandbox, AWS), (&guided, TOKEN)] {
        for (path, bytes) in sandbox.files() {
            assert!(!String::from_utf8_lossy(&bytes).contains(secret), "{} holds the secret", path.display());
        }
        let history = git(&sandbox.repo, &["log", "--all", "-p"]);
        assert!(!history.contains(secret), "{history}");
    }
}

/// A terminal that goes away (a closed tab, a dropped SSH session) while a checkpoint
/// waits: the debate is paused, every finished step kept, and the process ends by itself
/// instead of spinning on the dead terminal. The pseudo-terminal is the debate's
/// controlling terminal (`setsid --ctty`), so closing it also sends the hang-up signal.
#[test]
fn a_terminal_that_goes_away_pauses_the_debate_and_the_process_ends() {
    use nix::fcntl::OFlag;
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let sandbox = Sandbox::new();
    let config = scripted(&sandbox, &varied_answers(&PANEL, 3, CONTINUE));
    // Opened close-on-exec: no process spawned meanwhile (by this test or another) may
    // keep the terminal open after the test closes it.
    let mut master = nix::pty::posix_openpt(OFlag::O_RDWR | OFlag::O_NOCTTY | OFlag::O_CLOEXEC).unwrap();
    nix::pty::grantpt(&master).unwrap();
    nix::pty::unlockpt(&master).unwrap();
    let terminal = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(OFlag::O_NOCTTY.bits())
        .open(nix::pty::ptsname_r(&master).unwrap())
        .unwrap();
    let slave = || std::process::Stdio::from(terminal.try_clone().unwrap());
    let cmd = sandbox.std_cmd();
    let program = cmd.get_program().to_owned();
    let mut hung = std::process::Command::new("setsid");
    hung.arg("--ctty").arg(program).args(cmd.get_args()).current_dir(&sandbox.repo);
    for (key, value) in cmd.get_envs() {
        match value {
            Some(value) => hung.env(key, value),
            None => hung.env_remove(key),
        };
    }
    hung.arg("--config").arg(&config).args(["-r", "3", QUESTION]).env("TERM", "dumb").env("NO_COLOR", "1");
    let mut child = hung.stdin(slave()).stdout(slave()).stderr(slave()).spawn().unwrap();
    drop(terminal);
    let mut seen = Vec::new();
    let mut expect = |master: &mut nix::pty::PtyMaster, needle: &str| {
        let mut buffer = [0u8; 4096];
        while !String::from_utf8_lossy(&seen).contains(needle) {
            let read = master.read(&mut buffer).unwrap_or_else(|err| panic!("waiting for {needle:?}: {err}"));
            assert!(read > 0, "the terminal closed before {needle:?}: {}", String::from_utf8_lossy(&seen));
            seen.extend_from_slice(&buffer[..read]);
        }
    };
    // The checkpoint reads keys, and a line of guidance is half typed, when it goes away.
    expect(&mut master, MENU);
    std::io::Write::write_all(&mut master, b"g").unwrap();
    expect(&mut master, "Your guidance for the next round: ");
    std::io::Write::write_all(&mut master, b"half a line").unwrap();
    expect(&mut master, "half a line");
    drop(master);
    let ended = wait_for("the process to end after its terminal went away", || child.try_wait().unwrap());
    assert!(ended.code().is_some(), "it ended by itself, not by a signal's default action: {ended:?}");
    assert_eq!(ended.code(), Some(129), "as SIGHUP ends a debate, whichever noticed first");
    assert_eq!((status(&sandbox).as_str(), rounds(&sandbox)), ("paused", 1), "paused with round 1 kept");
}
