#![forbid(unsafe_code)]

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // A bug must still end in one line, not a backtrace (RUST_BACKTRACE may be set).
    std::panic::set_hook(Box::new(|info| {
        let _ = writeln!(
            std::io::stderr(),
            "error: internal error: {info}\nhint: please report this with the command you ran"
        );
    }));
    let cli = match debate::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage_error(&err),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            let _ = writeln!(std::io::stderr(), "error: cannot start the async runtime: {err}");
            return ExitCode::from(1);
        }
    };
    let verbose = cli.verbose;
    match runtime.block_on(debate::app::run(cli)) {
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

/// Help and version as clap prints them; any other parse error in two lines (SPEC §8):
/// clap's `error:` line and its tip, without the usage block.
fn usage_error(err: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(err.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = err.print();
        return ExitCode::SUCCESS;
    }
    let text = err.render().to_string();
    let mut lines = text.lines().skip_while(|l| !l.starts_with("error:"));
    let mut message = lines.next().unwrap_or("error: invalid arguments").to_string();
    // "the following required arguments were not provided:" names them below.
    if message.ends_with(':') {
        let named: Vec<&str> = lines.take_while(|l| !l.trim().is_empty()).map(str::trim).collect();
        message = format!("{message} {}", named.join(", "));
    }
    let tip = text.lines().find_map(|l| l.trim().strip_prefix("tip: ")).unwrap_or("see debate --help");
    let _ = writeln!(std::io::stderr(), "{message}\nhint: {tip}");
    ExitCode::from(2)
}
