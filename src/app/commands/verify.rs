//! `debate verify [ID|PATH]… [--all [--since REV]] [--require-signature]
//! [--allowed-signers FILE]`: decision records checked offline, from the records alone
//! — each one's digest (an edit named by its section), its signature and who signed it
//! — with aragora-verify's exit codes: 0 all verified, 1 a record failed, 2 usage, 3 a
//! record unsigned (or its signer not named) with `--require-signature`. No state
//! database, no network, no model.

use std::path::Path;

use crate::app::invocation::request::VerifyRequest;
use crate::app::shared::{project, verification};
use crate::error::{Error, Result};
use crate::record::{self, RecordError, Templates, WorkTree};
use crate::terminal::{self, Terminal};
use crate::view::{RecordCheck, Verdict, Verification};

pub fn run(request: &VerifyRequest, json: bool, terminal: &Terminal) -> Result<()> {
    let root = crate::repo::around_working_directory()?;
    let verification = verification(request, &root, terminal)?;
    match json {
        true => terminal::print_json(&verification)?,
        false => terminal::print_out(&report(&verification))?,
    }
    summary(&verification)
}

/// The records `request` names in the repository at `root`, each checked: the document
/// `--json` prints.
pub fn verification(request: &VerifyRequest, root: &Path, terminal: &Terminal) -> Result<Verification> {
    let root = root.to_path_buf();
    let record_settings = project::record_settings(&root, request.config.as_deref(), terminal)?;
    let paths = match request.all {
        true => every_record(&root, &record_settings.directory.0, request.since.as_deref())?,
        false => request
            .targets
            .iter()
            .map(|target| project::locate(&root, target, &record_settings, "verify"))
            .collect::<Result<Vec<_>>>()?,
    };
    let signers = verification::signers(&root, request.allowed_signers.as_deref())?;
    if let Some(warning) = &signers.warning {
        terminal.warn(warning);
    }
    terminal.say(&match &signers.read {
        Some(file) => format!("Signers are named by {file}."),
        None => {
            "No allowed-signers file names the signers (--allowed-signers FILE, or git's gpg.ssh.allowedSignersFile)."
                .into()
        }
    });
    let base = Base::of(&root, request.since.as_deref())?;
    let tree = WorkTree::open(&root)?;
    let mut templates = None;
    let mut checks = Vec::new();
    for relative in &paths {
        let check = match read(&tree, relative) {
            Ok((text, sidecar)) => {
                let check = verification::check(relative, &text, sidecar.as_deref(), signers.named.as_ref());
                let check = match check.note.as_deref() {
                    // Written before records were sealed: trusted as read-back trusts it.
                    Some(verification::BEFORE_SEALS) => {
                        let templates = match &templates {
                            Some(templates) => templates,
                            None => templates.insert(Templates::load(&root)?),
                        };
                        rendered_again(check, &root, relative, &text, sidecar.as_deref(), templates)
                    }
                    _ => check,
                };
                match base.text_of(relative) {
                    Some(before) => verification::against_base(check, relative, &text, &before, &base.rev),
                    None => check,
                }
            }
            Err(why) => RecordCheck::plain(relative, Verdict::Failed, why),
        };
        if !request.all && check.verdict == Verdict::Skipped {
            return Err(Error::input(format!("verify {relative}: {}", verification::NOT_A_RECORD)).with_hint(
                "name a decision record (or its debate's id), or check them all with `debate verify --all`",
            ));
        }
        checks.push(check);
    }
    let mut verification = Verification::of(checks, request.require_signature);
    verification.allowed_signers = signers.read;
    Ok(verification)
}

/// The revision each record is compared with, to tell a record that was debate's there
/// and is no longer checkable as one: `--since REV`'s merge base with HEAD, else HEAD.
struct Base {
    /// As the user named it (`main`, `HEAD`).
    rev: String,
    /// Its commit, and the repository to read from; `None` without either.
    at: Option<(git2::Repository, String)>,
}

impl Base {
    fn of(root: &Path, since: Option<&str>) -> Result<Base> {
        let commit = match since {
            Some(rev) => Some(crate::repo::merge_base(root, rev)?.ok_or_else(|| {
                Error::input(format!("--since {rev}: no commit of that name here"))
                    .with_hint("give a branch, tag or commit this clone has (in CI, fetch the base branch first)")
            })?),
            None => crate::repo::head_id(root),
        };
        let at = commit.and_then(|commit| Some((crate::repo::open(root).ok()??, commit)));
        Ok(Base { rev: since.unwrap_or("HEAD").to_string(), at })
    }

    /// The record at `relative` as the base revision holds it, if it does.
    fn text_of(&self, relative: &str) -> Option<String> {
        let (repo, commit) = self.at.as_ref()?;
        let bytes = record::write::git::read_at(repo, commit, Path::new(relative))?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Every record in the decision directories (and the settings' one); with `since`, only
/// those whose file or transcript file changed since that revision's merge base.
fn every_record(root: &Path, directory: &str, since: Option<&str>) -> Result<Vec<String>> {
    let records = crate::context::record_paths(root, directory);
    let Some(rev) = since else { return Ok(records) };
    let changed = crate::repo::changed_since(root, rev)?.ok_or_else(|| {
        Error::input(format!("--since {rev}: no commit of that name here"))
            .with_hint("give a branch, tag or commit this clone has (in CI, fetch the base branch first)")
    })?;
    Ok(records
        .into_iter()
        .filter(|record| {
            let sidecar = record::sidecar_path(Path::new(record)).map(|p| p.to_string_lossy().into_owned());
            changed.contains(record) || sidecar.is_some_and(|side| changed.contains(&side))
        })
        .collect())
}

/// The record's text and its transcript file's, when it has one.
fn read(tree: &WorkTree, relative: &str) -> std::result::Result<(String, Option<String>), String> {
    let relative = Path::new(relative);
    let bytes = tree.read_existing(relative).map_err(|err| err.to_string())?;
    let text = String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_string())?;
    let sidecar = match record::sidecar_path(relative) {
        Some(side) => tree.read(&side).map_err(|err| err.to_string())?,
        None => None,
    };
    Ok((text, sidecar.map(|bytes| String::from_utf8_lossy(&bytes).into_owned())))
}

/// A record written before records were sealed, checked the way reading it back checks
/// it: rendering the debate it carries again must give the file as it is.
fn rendered_again(
    mut check: RecordCheck,
    root: &Path,
    relative: &str,
    text: &str,
    sidecar: Option<&str>,
    templates: &Templates,
) -> RecordCheck {
    let read =
        record::read_back_committed(root, Path::new(relative), text.as_bytes(), sidecar.map(str::as_bytes), templates);
    match read {
        Ok(_) => {
            check.note = Some(format!("{}; it renders again from the debate it carries", verification::BEFORE_SEALS));
        }
        Err(RecordError::EditedByHand { sections, .. }) => {
            check.verdict = Verdict::Failed;
            check.failures.push(format!(
                "{}, and it was edited since debate wrote it, in: {}",
                verification::BEFORE_SEALS,
                sections.join(", ")
            ));
            check.edited = sections;
        }
        Err(err) => {
            check.verdict = Verdict::Failed;
            check.failures.push(format!("{}, and {err}", verification::BEFORE_SEALS));
        }
    }
    check
}

/// A line per record, and its signatures' history under it.
pub fn report(verification: &Verification) -> String {
    let mut out = String::new();
    for record in &verification.records {
        let mark = match record.verdict {
            Verdict::Verified | Verdict::Signed => "ok    ",
            Verdict::Unsigned => "--    ",
            Verdict::Failed => "FAILED",
            Verdict::Skipped => "skip  ",
        };
        out.push_str(&format!("{mark} {}: {}\n", record.path, record.said()));
        for earlier in &record.earlier {
            let by = earlier.signer.as_deref().unwrap_or(&earlier.key);
            out.push_str(&format!(
                "       earlier: signed by {by} when it was {}, {}\n",
                earlier.act, earlier.signed_at
            ));
        }
    }
    out
}

/// What to do about the records that failed: an unknown signer is a key to name (nothing
/// changed), an edit is a change to look at.
fn failed_hint(verification: &Verification) -> String {
    let failed = verification.records.iter().filter(|r| r.verdict == Verdict::Failed);
    let unknown = |failure: &String| failure.starts_with("its signer is unknown");
    let (mut signers, mut edits) = (false, false);
    for record in failed {
        signers |= record.failures.iter().any(unknown);
        edits |= !record.failures.iter().all(unknown);
    }
    let file = verification.allowed_signers.as_deref().unwrap_or("an allowed-signers file");
    let name = format!(
        "a signer nobody names signed the record as it is: if you trust the key, name its owner in {file} (`principal ssh-ed25519 AAAA…`)"
    );
    let look =
        "see what changed with `git log -p -- PATH`; a record is sealed again only by the command that changes it";
    match (signers, edits) {
        (true, false) => name,
        (true, true) => format!("{look}; {name}"),
        _ => look.to_string(),
    }
}

/// The exit code, as an error when it is not 0, with the records that made it.
fn summary(verification: &Verification) -> Result<()> {
    let names = |verdicts: &[Verdict]| {
        let found: Vec<&str> =
            verification.records.iter().filter(|r| verdicts.contains(&r.verdict)).map(|r| r.path.as_str()).collect();
        found.join(", ")
    };
    match verification.exit_code {
        0 => Ok(()),
        1 => Err(Error::unverified(
            format!(
                "{} of {} records did not verify: {}",
                verification.failed,
                verification.records.len(),
                names(&[Verdict::Failed])
            ),
            failed_hint(verification),
            1,
        )),
        code => Err(Error::unverified(
            format!(
                "records without a signature that names its signer: {}",
                names(&[Verdict::Unsigned, Verdict::Signed])
            ),
            match verification.unsigned {
                0 => "name the signers with --allowed-signers FILE or git's gpg.ssh.allowedSignersFile",
                _ => {
                    "sign records with an ssh key: git config gpg.format ssh and user.signingkey (docs/guide.md, \"Signed records\")"
                }
            },
            code,
        )),
    }
}
