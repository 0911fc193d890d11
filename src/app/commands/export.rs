//! `debate export ID|PATH --format odr|json|md [-o FILE]`: a finished decision written
//! out — as an Open Decision Receipt v0.2 signed with the key that signs records
//! (`aragora-verify` checks it with `--pubkey`), as the `show --json` document, or as
//! its record exactly as the repository holds it.

use std::path::Path;

use chrono::Utc;

use crate::app::commands::show;
use crate::app::invocation::request::ExportRequest;
use crate::app::shared::{existing, receipt};
use crate::attest::{Receipt, Role, Signing, odr};
use crate::cli::ExportFormat;
use crate::error::{Error, Result};
use crate::model::{DebateState, Status};
use crate::record::seal::Sealer;
use crate::record::{self, WorkTree};
use crate::settings;
use crate::terminal::{self, Terminal};
use crate::text::secrets;

pub fn run(request: &ExportRequest, db_path: &Path, terminal: &Terminal) -> Result<()> {
    let (state, imported) =
        existing::read(db_path, &request.target, request.config.as_deref(), &crate::repo::Here::WorkingDirectory)?;
    if let Some(imported) = imported {
        terminal.say(&imported.said(&state.id));
    }
    if state.status != Status::Complete || state.outcome.is_none() {
        return Err(Error::input(format!(
            "export {}: the debate is {}, so it has no decision yet",
            state.id,
            state.status.as_str()
        ))
        .with_hint(format!("finish it with `debate resume {}` first", state.id)));
    }
    let mut unsigned_receipt = None;
    let text = match request.format {
        ExportFormat::Json => {
            let detail = show::detail_of(db_path, &state)?;
            format!("{}\n", secrets::gated_json(&detail, true).map_err(|err| Error::Internal(err.to_string()))?)
        }
        ExportFormat::Md => {
            let (_, bytes) = record_of(&state)?.ok_or_else(|| no_record(&state))?;
            String::from_utf8(bytes).map_err(|_| Error::input(format!("{}'s record is not UTF-8 text", state.id)))?
        }
        ExportFormat::Odr => {
            let (receipt, unsigned) = signed_receipt(request, &state, terminal)?;
            unsigned_receipt = unsigned;
            receipt
        }
    };
    // What was signed is written as it is: anything the gate would mask now would break it.
    if request.format != ExportFormat::Json && secrets::gate(&text) != text {
        return Err(Error::input(format!(
            "export {}: the {} holds text debate masks as a key, and masking it would break its seal",
            state.id,
            if request.format == ExportFormat::Odr { "receipt" } else { "record" }
        ))
        .with_hint("export it again (a receipt's signature differs each second)"));
    }
    match &request.output {
        Some(path) => write(path, &text)?,
        None => terminal::print_out(&text)?,
    }
    // Written whole, and still a configuration to fix: a receipt nobody signed proves nothing.
    match unsigned_receipt {
        Some(why) => Err(Error::config(format!("the receipt was written unsigned: {why}"))
            .with_hint("set up an ssh signing key (git's gpg.format=ssh and user.signingkey, or signing.key)")),
        None => Ok(()),
    }
}

/// The receipt, signed with the key that signs records when there is one that can (an
/// unsigned receipt and why otherwise), and the public key written where asked.
fn signed_receipt(
    request: &ExportRequest,
    state: &DebateState,
    terminal: &Terminal,
) -> Result<(String, Option<String>)> {
    let record = record_of(state)?;
    let inputs = record.as_ref().map(|(relative, bytes)| receipt::Record { relative, bytes });
    let mut receipt = Receipt::new(&receipt::decision(state, inputs.as_ref()))
        .map_err(|err| Error::input(format!("export {}: {err}", state.id)))?;
    let root = Path::new(&state.repo_root);
    let here = if root.is_dir() { root.to_path_buf() } else { crate::repo::around_working_directory()? };
    let key = settings::load(&here, request.config.as_deref())?.settings.signing.key;
    let sealer = Sealer::new(&here, key);
    if let Some(warning) = sealer.warning() {
        terminal.warn(&warning);
    }
    let unsigned = match sealer.signer() {
        Ok(signer) => {
            let issuer = issuer(&here, signer.public());
            let signing = Signing { issuer, role: Role::Emitter, signed_at: Utc::now(), expires_at: None };
            odr::sign(&mut receipt, signer, &signing)
                .map_err(|err| Error::config(format!("cannot sign the receipt: {err}")))?;
            if let Some(path) = &request.pubkey_out {
                write(path, &odr::pubkey_file(&signer.public()))?;
            }
            None
        }
        Err(why) => {
            if request.pubkey_out.is_some() {
                return Err(Error::config("--pubkey-out: there is no signing key to write the public half of")
                    .with_hint(
                        "set up an ssh signing key (git's gpg.format=ssh and user.signingkey, or signing.key)",
                    ));
            }
            Some(why.to_string())
        }
    };
    let text = serde_json::to_string_pretty(&receipt).map_err(|err| Error::Internal(err.to_string()))?;
    Ok((format!("{text}\n"), unsigned))
}

/// Who signs the receipt, as the receipt names them: the key's principal in the
/// repository's allowed-signers file, else git's user.email, else the key itself.
fn issuer(root: &Path, key: crate::attest::PublicKey) -> String {
    let principal = record::seal::allowed_signers_file(root)
        .and_then(|file| crate::attest::AllowedSigners::read(&file).ok())
        .and_then(|signers| signers.principal(&key, crate::attest::NAMESPACE, Utc::now()).ok().map(str::to_string));
    let email = || {
        let config = crate::repo::GitConfig::at(root);
        crate::repo::identity::person(&config, crate::repo::identity::Role::Author).email
    };
    principal.or_else(email).unwrap_or_else(|| key.fingerprint())
}

/// The debate's record as the repository holds it: in the work tree, else on the branch
/// it was committed to; with its path in the repository.
fn record_of(state: &DebateState) -> Result<Option<(String, Vec<u8>)>> {
    let root = Path::new(&state.repo_root);
    let Some(path) = state.record_path.as_deref().map(Path::new) else { return Ok(None) };
    let Ok(relative) = path.strip_prefix(root) else { return Ok(None) };
    let shown = relative.to_string_lossy().replace('\\', "/");
    if let Ok(tree) = WorkTree::open(root)
        && let Some(bytes) = tree.read(relative)?
    {
        return Ok(Some((shown, bytes)));
    }
    Ok(record::committed(state).map(|bytes| (shown, bytes)))
}

fn no_record(state: &DebateState) -> Error {
    Error::input(format!("export {}: its record is in neither the work tree nor its commit here", state.id))
        .with_hint("run it where the record is, or export --format json")
}

/// The export, whole, at `path`.
fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|err| {
        Error::input(format!("cannot write {}: {err}", path.display())).with_hint("give a path that can be written")
    })
}
