use super::*;
use crate::model::Rounds;

fn invocation(args: &[&str]) -> Invocation {
    let cli = Cli::read(std::iter::once("debate").chain(args.iter().copied())).unwrap();
    Invocation::from_cli(cli).unwrap()
}

fn refused(args: &[&str]) -> Error {
    let cli = Cli::read(std::iter::once("debate").chain(args.iter().copied())).unwrap();
    Invocation::from_cli(cli).unwrap_err()
}

#[test]
fn a_question_starts_a_debate_with_the_flags_over_the_settings() {
    let run = invocation(&["-r", "3", "--no-checkpoints", "--branch= x ", "Redis or Postgres?"]);
    let Mode::Start(start) = run.mode else { panic!("{:?}", run.mode) };
    assert_eq!(start.question, QuestionSource::Text("Redis or Postgres?".into()));
    assert_eq!(start.flags.options.max_rounds, Rounds::new(3));
    assert!(start.flags.options.no_checkpoints);
    assert_eq!(start.flags.options.branch.as_deref(), Some("x"), "the branch name is trimmed once, here");
}

#[test]
fn a_dash_reads_the_question_from_stdin_either_way() {
    for args in [&["-"][..], &["--file", "-"]] {
        let Mode::Start(start) = invocation(args).mode else { panic!() };
        assert_eq!(start.question, QuestionSource::Stdin);
    }
    let Mode::Preview(preview) = invocation(&["--context-preview", "--file", "q.txt"]).mode else { panic!() };
    assert_eq!(preview.question, QuestionSource::File("q.txt".into()));
}

#[test]
fn no_question_is_an_input_error() {
    let err = Invocation::from_cli(Cli::read(["debate", "-r", "2"]).unwrap()).unwrap_err();
    assert_eq!(err.to_string(), "no question given");
    assert_eq!(err.exit_code(), 2);
}

#[test]
fn guide_makes_a_resume_a_review() {
    let Mode::Resume(resume) = invocation(&["--resume", "deb-k3", "--guide", "cost?", "--discard-edits"]).mode else {
        panic!()
    };
    let review = resume.review.unwrap();
    assert_eq!((resume.id.as_str(), review.discard_edits), ("deb-k3", true));
    assert_eq!(review.objection, QuestionSource::Text("cost?".into()));
    let Mode::Resume(plain) = invocation(&["--resume", "deb-k3"]).mode else { panic!() };
    assert!(plain.review.is_none());
}

#[test]
fn shared_options_are_declared_once_for_every_command() {
    for args in [&["accept", "a.md", "--db", "x.db", "-q"][..], &["accept", "--quiet", "--db=x.db", "a.md"]] {
        let run = invocation(args);
        assert_eq!(run.db.as_deref(), Some(std::path::Path::new("x.db")));
        assert_eq!(run.verbosity, Verbosity::Quiet);
        let Mode::Lifecycle(request) = run.mode else { panic!() };
        assert_eq!((request.target.as_str(), request.verdict), ("a.md", Verdict::Accepted));
    }
}

#[test]
fn the_mode_flags_choose_the_command() {
    assert!(matches!(invocation(&["--list", "--all"]).mode, Mode::List { all: true, limit: 20 }));
    assert!(matches!(invocation(&["--show", "0y"]).mode, Mode::Show { .. }));
    assert!(matches!(invocation(&["--abandon", "0y"]).mode, Mode::GiveUp { delete: false, .. }));
    assert!(matches!(invocation(&["--delete", "DEB-0ym064"]).mode, Mode::GiveUp { delete: true, .. }));
    let Mode::Serve(serve) = invocation(&["serve", "--offline", "--config", "s.yaml"]).mode else { panic!() };
    assert!(serve.offline && serve.config.is_some());
}

#[test]
fn commands_are_subcommands_and_the_flags_stay_aliases() {
    assert!(matches!(invocation(&["list", "--all"]).mode, Mode::List { all: true, limit: 20 }));
    assert!(matches!(invocation(&["ls", "--limit", "3"]).mode, Mode::List { all: false, limit: 3 }));
    assert!(matches!(invocation(&["show", "0y"]).mode, Mode::Show { .. }));
    assert!(matches!(invocation(&["abandon", "0y"]).mode, Mode::GiveUp { delete: false, .. }));
    assert!(matches!(invocation(&["delete", "DEB-0ym064"]).mode, Mode::GiveUp { delete: true, .. }));
    let Mode::Resume(review) = invocation(&["review", "0y", "--guide", "cost?", "-r", "4"]).mode else { panic!() };
    assert_eq!(
        (review.review.unwrap().objection, review.flags.options.max_rounds.map(Rounds::get)),
        (QuestionSource::Text("cost?".into()), Some(4))
    );
    let Mode::Resume(from_file) = invocation(&["review", "docs/a.md", "--guide-file", "-"]).mode else { panic!() };
    assert_eq!((from_file.id.as_str(), from_file.review.unwrap().objection), ("docs/a.md", QuestionSource::Stdin));
    let Mode::Resume(resume) = invocation(&["resume", "0y", "--no-checkpoints"]).mode else { panic!() };
    assert!(resume.flags.options.no_checkpoints && resume.review.is_none());
}

#[test]
fn shared_options_go_before_a_subcommand_too() {
    let run = invocation(&["--db", "x.db", "-q", "list"]);
    assert_eq!(run.db.as_deref(), Some(std::path::Path::new("x.db")));
    assert!(matches!(run.mode, Mode::List { .. }));
}

/// Every flag a command takes, with a value where it needs one.
const FLAGS: &[&[&str]] = &[
    &["--offline"],
    &["--no-checkpoints"],
    &["-r", "2"],
    &["--max-rounds", "3"],
    &["--issue"],
    &["--no-commit"],
    &["--branch=decide"],
    &["--provider", "local"],
    &["--model", "m"],
    &["--config", "s.yaml"],
    &["--db", "x.db"],
    &["--json"],
    &["-q"],
    &["-v"],
];

fn both_ways(command: &[&str], flag: &[&str], rest: &[&str]) -> (String, String) {
    let before: Vec<&str> = flag.iter().chain(command).chain(rest).copied().collect();
    let after: Vec<&str> = command.iter().chain(flag).chain(rest).copied().collect();
    (format!("{:?}", invocation(&before)), format!("{:?}", invocation(&after)))
}

#[test]
fn every_flag_means_the_same_before_and_after_the_subcommand() {
    let plain = format!("{:?}", invocation(&["new", "Redis or Postgres?"]));
    for flag in FLAGS {
        let (before, after) = both_ways(&["new"], flag, &["Redis or Postgres?"]);
        assert_eq!(before, after, "{flag:?}");
        assert_ne!(before, plain, "{flag:?} changes what runs");
    }
    for flag in FLAGS.iter().filter(|f| !f.contains(&"--no-commit") && !f.contains(&"--branch=decide")) {
        let (before, after) = both_ways(&["review", "DEB-0ym064", "--guide", "cost?"], flag, &[]);
        assert_eq!(before, after, "review {flag:?}");
        let (before, after) = both_ways(&["resume", "DEB-0ym064"], flag, &[]);
        assert_eq!(before, after, "resume {flag:?}");
    }
    for flag in
        [&["--perspectives", "3"][..], &["--with", "Cost Control"], &["--context", "a.md"], &["--no-repo-context"]]
    {
        let (before, after) = both_ways(&["new"], flag, &["Redis or Postgres?"]);
        assert_eq!(before, after, "{flag:?}");
    }
    let (before, after) = both_ways(&["list"], &["--all"], &[]);
    assert_eq!(before, after);
}

#[test]
fn no_pager_goes_with_show_wherever_it_stands_and_nowhere_else() {
    for args in [&["show", "0y"][..], &["--show", "0y"]] {
        assert!(matches!(invocation(args).mode, Mode::Show { paged: true, .. }), "{args:?}");
    }
    for args in [&["show", "0y", "--no-pager"][..], &["--no-pager", "show", "0y"], &["--show", "0y", "--no-pager"]] {
        assert!(matches!(invocation(args).mode, Mode::Show { paged: false, .. }), "{args:?}");
    }
    for args in [&["--no-pager", "list"][..], &["--list", "--no-pager"], &["--no-pager", "new", "Q?"]] {
        let err = refused(args);
        assert_eq!((err.to_string().as_str(), err.exit_code()), ("--no-pager goes with `debate show`", 2));
    }
}

#[test]
fn the_issue_34_line_runs_offline_with_one_round_and_no_checkpoints() {
    let Mode::Start(start) = invocation(&["--offline", "--no-checkpoints", "-r", "1", "new", "Q?"]).mode else {
        panic!()
    };
    assert!(start.flags.options.offline && start.flags.options.no_checkpoints);
    assert_eq!(start.flags.options.max_rounds, Rounds::new(1));
}

#[test]
fn a_flag_before_a_command_that_does_not_take_it_is_refused_not_dropped() {
    let err = refused(&["--offline", "show", "DEB-0ym064"]);
    assert_eq!((err.to_string().as_str(), err.exit_code()), ("--offline does not go with `debate show`", 2));
    let twice = refused(&["-r", "2", "new", "-r", "3", "Q?"]);
    assert_eq!(twice.to_string(), "--max-rounds is given both before and after the command");
    assert!(refused(&["--with", "A", "new", "--with", "B", "Q?"]).to_string().contains("both"), "not one dropped");
    assert!(refused(&["--max-cost", "1", "list"]).to_string().contains("does not go with `debate list`"));
    assert!(refused(&["--list", "--offline"]).to_string().contains("does not go with `debate list`"));
    assert!(refused(&["--offline", "new", "--provider", "p", "Q?"]).to_string().contains("--offline"));
    assert!(refused(&["--all", "show", "x"]).to_string().contains("--all"));
}

#[test]
fn a_one_word_question_is_refused_with_the_command_it_resembles() {
    let typo = refused(&["--offline", "acept"]);
    assert_eq!(typo.to_string(), "\"acept\" is not a command; did you mean `debate accept`?");
    assert_eq!(typo.exit_code(), 2);
    assert!(refused(&["list-all"]).to_string().contains("`debate list`"));
    assert!(refused(&["Redis"]).to_string().contains("one word"), "no command near it");
}

#[test]
fn a_mistyped_command_with_arguments_is_named_with_the_line_meant() {
    let typo = |args: &[&str]| {
        let args: Vec<OsString> = std::iter::once("debate").chain(args.iter().copied()).map(Into::into).collect();
        mistyped_command(&args)
    };
    let err = typo(&["shwo", "DEB-k3x9q2", "--json"]).unwrap();
    assert_eq!(err.to_string(), "\"shwo\" is not a command; did you mean `debate show`?");
    assert_eq!(err.exit_code(), 2);
    assert_eq!(err.hint().unwrap(), "debate show DEB-k3x9q2 --json; a question of several words goes in quotes");
    let hint = typo(&["-q", "acept", "docs/my decision.md"]).unwrap().hint().unwrap();
    assert!(hint.starts_with("debate -q accept 'docs/my decision.md';"), "{hint}");
    assert!(typo(&["Redis", "or", "Postgres?"]).is_none(), "no command near it");
    assert!(typo(&["--", "shwo", "DEB-k3x9q2"]).is_none(), "after -- it is a question");
    assert!(typo(&["show", "DEB-k3x9q2", "extra"]).is_none(), "the command is right");
    assert!(typo(&["shwo", "--help"]).is_none(), "help is help");
}

#[test]
fn a_one_word_question_can_be_forced() {
    let Mode::Start(start) = invocation(&["new", "Kafka"]).mode else { panic!() };
    assert_eq!(start.question, QuestionSource::Text("Kafka".into()));
    let cli = Cli::read(["debate", "--", "accept"]).unwrap();
    assert!(matches!(Invocation::from_cli(cli).unwrap().mode, Mode::Start(_)));
    assert!(matches!(invocation(&["-"]).mode, Mode::Start(_)), "a dash reads stdin");
    assert!(matches!(invocation(&["Redis or Postgres?"]).mode, Mode::Start(_)));
}
