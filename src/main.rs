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
    let cli = debate::cli::Cli::parse();
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            let _ = writeln!(std::io::stderr(), "error: cannot start the async runtime: {err}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(debate::app::run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            let mut stderr = std::io::stderr();
            let _ = writeln!(stderr, "error: {}", err.message);
            if let Some(hint) = &err.hint {
                let _ = writeln!(stderr, "hint: {hint}");
            }
            ExitCode::from(err.kind.exit_code())
        }
    }
}
