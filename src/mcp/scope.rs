//! What a call may touch: the server's confinement (`confine`) narrowed by the roots a
//! client still sends, the repository a call names, the repository of the debate an id
//! names, and the debates this server runs now — one claim on each, so a second call for
//! a running debate is told so instead of racing the first for it.

#![allow(deprecated)] // `Peer::list_roots`: roots are deprecated at 2026-07-28, and asked only before it.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::service::RequestContext;

use super::commands::Commands;
use crate::confine::{self, Confinement};
use crate::error::Error;

/// How long the client may take to list its roots.
const ROOTS_PATIENCE: Duration = Duration::from_secs(30);

/// The server's confinement, and the debates it runs now.
#[derive(Clone)]
pub struct Scope {
    confinement: Confinement,
    running: Arc<Mutex<HashSet<String>>>,
}

/// What a call about a debate or a record works on.
pub struct Target {
    /// The repository's work tree, allowed.
    pub root: PathBuf,
    /// The debate's id as given, or its record's path made absolute in `root`.
    pub target: String,
    /// The debate's whole id, when the id names one.
    pub id: Option<String>,
}

/// Why a call cannot go on, in words for the person behind the agent.
pub type Refusal = String;

/// A debate this server runs, claimed until dropped.
pub struct Claim {
    id: String,
    running: Arc<Mutex<HashSet<String>>>,
}

impl Drop for Claim {
    fn drop(&mut self) {
        self.running.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.id);
    }
}

impl Scope {
    pub fn new(confinement: Confinement) -> Scope {
        Scope { confinement, running: Arc::default() }
    }

    /// What this call may touch: the server's confinement, narrowed by the client's roots
    /// when it declared it has any (only before 2026-07-28, which drops roots).
    pub async fn confinement(&self, ctx: &RequestContext<RoleServer>) -> Result<Confinement, Refusal> {
        let modern = ctx.meta.protocol_version().is_some();
        if modern || ctx.client_capabilities().is_none_or(|caps| caps.roots.is_none()) {
            return Ok(self.confinement.clone());
        }
        match tokio::time::timeout(ROOTS_PATIENCE, ctx.peer.list_roots()).await {
            Ok(Ok(listed)) => {
                let uris: Vec<String> = listed.roots.into_iter().map(|root| root.uri).collect();
                Ok(self.confinement.narrowed(&uris))
            }
            Ok(Err(err)) => Err(format!("the client declared roots but did not list them: {err}")),
            Err(_) => Err("the client declared roots but did not list them in time".into()),
        }
    }

    /// The repository a call works in: the one it names, else the one an absolute record
    /// path is in, else the first allowed.
    pub async fn repository(
        &self,
        given: Option<&str>,
        target: Option<&str>,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<PathBuf, Refusal> {
        repository(&self.confinement(ctx).await?, given, target)
    }

    /// The repository a call about `target` (a debate's id, or its record's path) works
    /// in, and `target` as the command takes it: a record's path made absolute in that
    /// repository; a debate's id whose debate this database ran elsewhere refused unless
    /// that repository is allowed too.
    pub async fn target(
        &self,
        given: Option<&str>,
        target: &str,
        ctx: &RequestContext<RoleServer>,
        commands: &Arc<dyn Commands>,
    ) -> Result<Target, Refusal> {
        let confinement = self.confinement(ctx).await?;
        let root = repository(&confinement, given, Some(target))?;
        if confine::is_record_path(target) {
            let target = confine::record_in(&root, target)?;
            return Ok(Target { root, target, id: None });
        }
        let (lookup, id) = (commands.clone(), target.to_string());
        let stored = tokio::task::spawn_blocking(move || lookup.debate_repository(&id))
            .await
            .map_err(|_| "the debate could not be looked up (a bug: please report it)".to_string())?
            .map_err(|err| said(&err))?;
        let id = match stored {
            Some((id, stored)) => {
                // A repository that moved away is found again by the command, here or nowhere.
                if stored.exists() {
                    confinement
                        .admit(&crate::repo::canonical(&stored))
                        .map_err(|why| format!("debate {id} is of the repository {why}"))?;
                }
                Some(id)
            }
            None => whole_id(target),
        };
        Ok(Target { root, target: target.to_string(), id })
    }

    /// Claim debate `id` (its whole id) for a call that drives it; refused while another
    /// call of this server drives it.
    pub fn claim(&self, id: &str) -> Result<Claim, Refusal> {
        let key = id.to_ascii_lowercase();
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        match running.insert(key.clone()) {
            true => Ok(Claim { id: key, running: self.running.clone() }),
            false => Err(format!(
                "debate {id} is already running in this server (another call drives it): wait for that \
                 call's answer, or follow it with show_debate"
            )),
        }
    }
}

/// The repository a call names, else the one an absolute record path `target` is in,
/// else the first `confinement` allows.
fn repository(confinement: &Confinement, given: Option<&str>, target: Option<&str>) -> Result<PathBuf, Refusal> {
    if given.is_none()
        && let Some(found) = target.and_then(|target| confinement.repository_of_record(target))
    {
        return found;
    }
    confinement.repository(given)
}

/// An error as a refusal's words: what went wrong, and its hint.
fn said(err: &Error) -> Refusal {
    match err.hint() {
        Some(hint) => format!("{err}\nhint: {hint}"),
        None => err.to_string(),
    }
}

/// The whole id of a debate `target` names when it is one (`DEB-` and six characters,
/// any case), for a claim before the database has it.
fn whole_id(target: &str) -> Option<String> {
    let bare = target.trim().to_ascii_lowercase();
    let bare = bare.strip_prefix("deb-").unwrap_or(&bare).to_string();
    (bare.len() == 6 && bare.chars().all(|c| c.is_ascii_alphanumeric())).then(|| format!("DEB-{bare}"))
}
