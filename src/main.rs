//! The `debate` binary: answer a shell asking for completions, parse the command line,
//! run the command, and report an error in a line or two with the exit code it names.

#![forbid(unsafe_code)]

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    // A bug must still end in one line, not a backtrace (RUST_BACKTRACE may be set).
    std::panic::set_hook(Box::new(|info| {
        let _ = writeln!(
            std::io::stderr(),
            "error: internal error: {info}\nhint: please report this with the command you ran"
        );
    }));
    // A shell asking for completions gets them, and nothing else runs.
    debate::app::commands::completion::answer_the_shell();
    let cli = match debate::cli::Cli::read(std::env::args_os()) {
        Ok(cli) => cli,
        Err(err) => {
            let args: Vec<_> = std::env::args_os().collect();
            return match debate::app::invocation::request::mistyped_command(&args) {
                Some(typo) => {
                    report(&typo, false);
                    ExitCode::from(typo.exit_code())
                }
                None => usage_error(&err),
            };
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            let _ = writeln!(std::io::stderr(), "error: cannot start the async runtime: {err}");
            return ExitCode::from(1);
        }
    };
    let verbose = cli.shared.verbose;
    let result = runtime.block_on(debate::app::run(cli));
    // A question's thread ends within a slice of its wait once nobody waits for it; the
    // process never waits longer than that on one, whatever it is blocked on.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            report(&err, verbose);
            ExitCode::from(err.exit_code())
        }
    }
}

/// The error in one line, what to do about it in a second; with `-v`, its causes too.
fn report(err: &debate::error::Error, verbose: bool) {
    use debate::text::secrets::gate;
    use debate::text::untrusted::one_line;
    let one_line = |text: &str| gate(&one_line(text));
    let mut stderr = std::io::stderr();
    // An error may quote the question, a server or a file: one clean line each.
    let _ = writeln!(stderr, "error: {}", one_line(&err.to_string()));
    if verbose {
        for cause in err.causes() {
            let _ = writeln!(stderr, "  caused by: {}", one_line(&cause));
        }
    }
    if let Some(hint) = err.hint() {
        let _ = writeln!(stderr, "hint: {}", one_line(&hint));
    }
}

/// Help and version as clap prints them; any other parse error in two lines (the
/// README's "Exit codes"): clap's message, and a hint from what clap suggests.
fn usage_error(err: &clap::Error) -> ExitCode {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if matches!(err.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = err.print();
        return ExitCode::SUCCESS;
    }
    let rendered = err.render().to_string();
    let mut message =
        rendered.lines().find(|l| l.starts_with("error:")).unwrap_or("error: invalid arguments").to_string();
    if err.kind() == ErrorKind::MissingRequiredArgument
        && let Some(ContextValue::Strings(missing)) = err.get(ContextKind::InvalidArg)
    {
        message = format!("{message} {}", missing.join(", "));
    }
    let suggestion = match (
        err.get(ContextKind::SuggestedSubcommand),
        err.get(ContextKind::SuggestedArg),
        err.get(ContextKind::SuggestedValue),
        err.get(ContextKind::Suggested),
    ) {
        (Some(ContextValue::Strings(names)), ..) if !names.is_empty() => Some(format!("did you mean '{}'?", names[0])),
        (_, Some(ContextValue::String(arg)), ..) => Some(format!("did you mean '{arg}'?")),
        (_, _, Some(ContextValue::String(value)), _) => Some(format!("did you mean '{value}'?")),
        (.., Some(ContextValue::StyledStrs(tips))) if !tips.is_empty() => Some(tips[0].to_string()),
        _ => None,
    };
    // A value outside a fixed set (`completions nushell`): the set, whether or not one is close.
    let valid = match err.get(ContextKind::ValidValue) {
        Some(ContextValue::Strings(values)) if !values.is_empty() => {
            Some(format!("the valid values: {}", values.join(", ")))
        }
        _ => None,
    };
    let hint = match (suggestion, valid) {
        (Some(suggestion), Some(valid)) => format!("{suggestion} ({valid})"),
        (Some(one), None) | (None, Some(one)) => one,
        (None, None) => "see debate --help".to_string(),
    };
    let _ = writeln!(std::io::stderr(), "{message}\nhint: {hint}");
    ExitCode::from(2)
}
