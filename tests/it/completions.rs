//! What the shell and man get: completions that know what is here, asked as each
//! shell's script asks (`COMPLETE=SHELL debate -- WORDS`) and, for bash, typed on a
//! terminal with TAB; `debate man`'s pages, which name only pages that are there.

use std::collections::BTreeSet;

use predicates::prelude::*;
use regex::Regex;

use crate::common::*;

/// What `debate` answers when `shell`'s script asks it to complete the last of `words`:
/// a line per candidate, in that shell's format.
fn answer(sandbox: &Sandbox, shell: &str, words: &[&str]) -> Vec<String> {
    let out = sandbox
        .cmd()
        .env("COMPLETE", shell)
        .env("_CLAP_IFS", "\n")
        .env("_CLAP_COMPLETE_INDEX", (words.len() - 1).to_string())
        .env("_CLAP_COMPLETE_COMP_TYPE", "9")
        .env("_CLAP_COMPLETE_SPACE", "true")
        .arg("--")
        .args(words)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    text(&out).lines().map(str::to_string).collect()
}

/// The candidates bash gets for the last of `words`.
fn completions(sandbox: &Sandbox, words: &[&str]) -> Vec<String> {
    answer(sandbox, "bash", words)
}

/// The words an interactive bash runs once the user typed `typed` and pressed TAB:
/// the line as completion left it, parsed by bash, each word in brackets.
fn bash_runs_after_tab(sandbox: &Sandbox, typed: &str) -> String {
    let script = sandbox.home.join("debate.bash");
    let out = sandbox.cmd().args(["completions", "bash"]).output().unwrap();
    std::fs::write(&script, &out.stdout).unwrap();
    let mut bash = sandbox.bash(&sandbox.repo);
    bash.args(["--norc", "--noprofile", "-i"]).env("TERM", "dumb");
    let mut p = rexpect::session::spawn_command(bash, Some(30_000)).expect("bash starts on a pty");
    p.send_line(&format!("source '{}'; PS1='ready''> '", script.display())).unwrap();
    p.exp_string("ready> ").unwrap();
    // TAB; then at the line's start (Ctrl-A) and its end (Ctrl-E), a printf that shows
    // the words bash runs.
    p.send(&format!("{typed}\t\x01printf '[%s]' \x05; printf '%s\\n' ok")).unwrap();
    p.send_line("").unwrap();
    let (_, words) = p.exp_regex(r"\[debate\][^\r\n]*\]ok").unwrap();
    p.send_line("exit").unwrap();
    words.trim_end_matches("ok").to_string()
}

#[test]
fn completions_offer_what_debate_knows_here() {
    let sandbox = Sandbox::new();
    sandbox.cmd().args(["--offline", "-q", QUESTION]).assert().success();
    let id = sandbox.only_id();
    let record = sandbox.records()[0].strip_prefix(&sandbox.repo).unwrap().display().to_string();

    assert!(completions(&sandbox, &["debate", "show", "DEB"]).contains(&id), "debate ids");
    assert!(completions(&sandbox, &["debate", "--resume", ""]).contains(&id));
    assert!(completions(&sandbox, &["debate", "accept", ""]).contains(&record), "record paths");
    assert_eq!(completions(&sandbox, &["debate", "--with", "perf"]), ["Performance Advocate"]);
    let providers = completions(&sandbox, &["debate", "--provider", ""]);
    assert!(providers.contains(&"offline".to_string()) && providers.contains(&"openai".to_string()), "{providers:?}");
    assert_eq!(completions(&sandbox, &["debate", "li"]), ["list"]);
    assert_eq!(completions(&sandbox, &["debate", "man", "sh"]), ["show"], "the commands with a page");

    let script = sandbox.cmd().args(["completions", "bash"]).assert().success().get_output().stdout.clone();
    assert!(text(&script).contains("COMPLETE=\"bash\""), "the script asks debate itself");
}

/// `show`, `review` and `eval` take an id or a record's path: both are offered, and only
/// this repository's debates, as `debate list` lists them.
#[test]
fn an_id_or_a_record_is_offered_and_only_this_repositorys() {
    let sandbox = Sandbox::new();
    sandbox.cmd().args(["--offline", "-q", QUESTION]).assert().success();
    let here = sandbox.only_id();
    let record = sandbox.records()[0].strip_prefix(&sandbox.repo).unwrap().display().to_string();
    let elsewhere = sandbox.home.join("other");
    std::fs::create_dir_all(&elsewhere).unwrap();
    git(&elsewhere, &["init", "-q", "-b", "main"]);
    let out =
        sandbox.std_cmd().current_dir(&elsewhere).args(["--offline", "-q", "Kafka or RabbitMQ?"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let ids: Vec<String> = sandbox.listed().iter().map(|d| d["id"].as_str().unwrap().to_string()).collect();
    let other = ids.iter().find(|id| **id != here).expect("a debate in the other repository").clone();

    for command in ["show", "review", "eval"] {
        let offered = completions(&sandbox, &["debate", command, ""]);
        assert!(offered.contains(&here) && offered.contains(&record), "{command}: {offered:?}");
        assert!(!offered.contains(&other), "{command}: another repository's debate: {offered:?}");
    }
    assert_eq!(completions(&sandbox, &["debate", "show", "docs/"]), [record], "a path begun");
    assert!(!completions(&sandbox, &["debate", "resume", ""]).contains(&other));
}

#[test]
fn completions_are_printed_for_each_shell() {
    let sandbox = Sandbox::new();
    // Each script asks `debate` itself for the candidates (tested above).
    for (shell, marker) in
        [("bash", "complete -o filenames"), ("zsh", "#compdef debate"), ("fish", "complete --keep-order")]
    {
        let out = sandbox.cmd().args(["completions", shell]).assert().success().get_output().stdout.clone();
        let script = String::from_utf8(out).unwrap();
        assert!(script.contains(marker) && script.contains("COMPLETE="), "{shell}: {script}");
    }
}

/// `--with Perf<TAB>` on a terminal gives one word `Performance Advocate`, however the
/// word was begun; PowerShell, which inserts a value as it is, gets it quoted.
#[test]
fn a_value_with_a_space_reaches_debate_as_one_word() {
    let sandbox = Sandbox::new();
    let one_word = "[debate][--with][Performance Advocate]";
    assert_eq!(bash_runs_after_tab(&sandbox, "debate --with Perf"), one_word);
    assert_eq!(bash_runs_after_tab(&sandbox, "debate --with 'Perf"), one_word, "inside the quote it opened");
    assert_eq!(bash_runs_after_tab(&sandbox, "debate --with Performance\\ A"), one_word, "a space typed escaped");

    assert_eq!(
        answer(&sandbox, "zsh", &["debate", "--with", "\"Performance A"]),
        ["Performance Advocate:latency, throughput, resource efficiency"]
    );
    assert_eq!(
        answer(&sandbox, "powershell", &["debate", "--with", "Perf"]),
        ["'Performance Advocate'\tlatency, throughput, resource efficiency"]
    );
}

/// `show` takes an id in any case, with or without `DEB-`, from two characters on; a
/// word begun any of those ways completes to one `show` takes, beginning as typed
/// (zsh and fish keep only such candidates).
#[test]
fn an_id_prefix_completes_as_show_takes_it() {
    let sandbox = Sandbox::new();
    sandbox.cmd().args(["--offline", "-q", QUESTION]).assert().success();
    let id = sandbox.only_id();
    let body = id.strip_prefix("DEB-").unwrap();

    for (typed, completed) in [
        (body[..2].to_string(), body.to_string()),
        (body[..2].to_uppercase(), format!("{}{}", body[..2].to_uppercase(), &body[2..])),
        (format!("deb-{}", &body[..1]), format!("deb-{body}")),
        ("d".to_string(), format!("deb-{body}")),
        (String::new(), id.clone()),
    ] {
        for shell in ["bash", "zsh", "fish"] {
            let values: Vec<String> = answer(&sandbox, shell, &["debate", "show", &typed])
                .iter()
                .map(|line| line.split([':', '\t']).next().unwrap().to_string())
                // Options, and the record's path (`d` begins `docs/` too).
                .filter(|value| !value.starts_with('-') && !value.starts_with("docs/"))
                .collect();
            assert_eq!(values, std::slice::from_ref(&completed), "{shell}: show {typed:?}");
        }
        sandbox.cmd().args(["show", &completed]).assert().success().stdout(predicate::str::contains(&id));
    }
    assert_eq!(
        bash_runs_after_tab(&sandbox, &format!("debate show {}", &body[..2])),
        format!("[debate][show][{body}]")
    );
    assert!(completions(&sandbox, &["debate", "show", "zz"]).iter().all(|c| c.starts_with('-')), "no id begins so");
}

/// Where the shell shows descriptions (zsh, fish, PowerShell), an id comes with its
/// debate's title.
#[test]
fn ids_are_described_by_their_titles() {
    let sandbox = Sandbox::new();
    sandbox.cmd().args(["--offline", "-q", QUESTION]).assert().success();
    let id = sandbox.only_id();
    let title = sandbox.shown()["title"].as_str().unwrap().to_string();
    assert!(!title.is_empty());
    assert!(answer(&sandbox, "zsh", &["debate", "show", "DEB"]).contains(&format!("{id}:{title}")));
    for shell in ["fish", "powershell"] {
        assert!(answer(&sandbox, shell, &["debate", "resume", "DEB"]).contains(&format!("{id}\t{title}")), "{shell}");
    }
}

/// The man pages a page names: `debate-show` for `debate-show(1)`, in roff.
fn named_pages(page: &str) -> BTreeSet<String> {
    let reference = Regex::new(r"(?:\\fB)?([a-z][a-z0-9\\-]*)(?:\\fR)?\(1\)").unwrap();
    reference.captures_iter(page).map(|found| found[1].replace("\\-", "-")).collect()
}

fn printed(sandbox: &Sandbox, args: &[&str]) -> String {
    text(&sandbox.cmd().args(args).assert().success().get_output().stdout)
}

/// A page printed alone names no other page, which need not be installed: it names
/// each command by the command that prints its page.
#[test]
fn a_printed_page_names_no_page_that_is_not_there() {
    let sandbox = Sandbox::new();
    let debate = printed(&sandbox, &["man"]);
    assert!(debate.contains(".TH debate 1"), "{debate}");
    assert_eq!(named_pages(&debate), BTreeSet::new());
    assert!(debate.contains(r"\fBdebate show\fR") && debate.contains(r"\fBdebate man \fR\fICOMMAND\fR"), "{debate}");
    // The sections a man reader looks for, the examples under their own name.
    for section in [".SH EXAMPLES", ".SH \"EXIT STATUS\"", ".SH ENVIRONMENT", ".SH FILES"] {
        assert!(debate.contains(section), "{section}: {debate}");
    }
    assert!(!debate.contains("EXTRA"), "{debate}");
    assert!(debate.contains(r"\fBdebate list\fR") && debate.contains("DEBATE_HOME"), "{debate}");

    let show = printed(&sandbox, &["man", "show"]);
    assert!(show.contains(".TH debate-show 1") && show.contains("unique prefix"), "{show}");
    assert_eq!(named_pages(&show), BTreeSet::new());
    assert!(printed(&sandbox, &["man", "ls"]).contains(".TH debate-list 1"), "an alias names its command's page");

    sandbox
        .cmd()
        .args(["man", "shwo"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("debate has no command `shwo`").and(predicate::str::contains("show")));
}

/// `debate man --dir DIR` makes DIR, writes a page for debate and for each command,
/// lists what it wrote, and every page names only pages written there.
#[test]
fn man_dir_writes_every_page_the_pages_name() {
    let sandbox = Sandbox::new();
    let dir = sandbox.home.join("share/man/man1");
    let listed: BTreeSet<String> = printed(&sandbox, &["man", "--dir", dir.to_str().unwrap()])
        .lines()
        .map(|line| std::path::Path::new(line).strip_prefix(&dir).unwrap().display().to_string())
        .collect();
    let written: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(listed, written);
    assert!(written.contains("debate.1") && written.contains("debate-show.1") && written.contains("debate-man.1"));

    let debate = std::fs::read_to_string(dir.join("debate.1")).unwrap();
    let mut every: BTreeSet<String> = named_pages(&debate).iter().map(|name| format!("{name}.1")).collect();
    every.insert("debate.1".to_string());
    assert_eq!(every, written, "debate's page names each command's page");
    for name in &written {
        let page = std::fs::read_to_string(dir.join(name)).unwrap();
        for named in named_pages(&page) {
            assert!(written.contains(&format!("{named}.1")), "{name} names {named}(1)");
        }
    }
    assert_eq!(
        named_pages(&std::fs::read_to_string(dir.join("debate-show.1")).unwrap()),
        BTreeSet::from(["debate".to_string()])
    );
}
