//! The debates this server drives: each start or resume is a job, run on the local task
//! set through the commands (`Launch`), until the server stops.

use std::sync::Arc;

use tokio::sync::{mpsc, watch};

use super::hub::Hub;
use super::launch::{Launch, NewDebate};
use super::web_events::{Reply, WebEvents};
use crate::model::Decision;

/// Work for the driver, which runs the engine on the local task set.
pub enum Job {
    Start {
        debate: NewDebate,
        reply: Reply,
    },
    /// `--resume`; `decision` answers the checkpoint it stopped at, `issue` writes a
    /// complete debate's issue draft.
    Resume {
        id: String,
        decision: Option<Decision>,
        issue: bool,
        reply: Reply,
    },
}

/// The driver: runs each job's debate on the local task set until the server stops,
/// then waits for the debates it drives (each pauses on the signal that stopped it).
pub async fn drive(
    launch: Arc<dyn Launch>,
    hub: Arc<Hub>,
    mut jobs: mpsc::UnboundedReceiver<Job>,
    mut stopping: watch::Receiver<bool>,
) {
    let mut running = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            job = jobs.recv() => match job {
                Some(job) => {
                    running.spawn_local(run(launch.clone(), hub.clone(), job));
                }
                None => break,
            },
            stopped = stopping.wait_for(|stopped| *stopped) => {
                let _ = stopped;
                break;
            }
            Some(_) = running.join_next() => {}
        }
    }
    jobs.close();
    while running.join_next().await.is_some() {}
}

async fn run(launch: Arc<dyn Launch>, hub: Arc<Hub>, job: Job) {
    match job {
        Job::Start { debate, reply } => {
            let label = "a new debate".to_string();
            let mut events = WebEvents { hub, id: None, label, decided: None, reply: Some(reply) };
            let result = launch.start(debate, &mut events).await;
            events.finish(result);
        }
        Job::Resume { id, decision, issue, reply } => {
            let label = id.clone();
            let mut events = WebEvents { hub: hub.clone(), id: None, label, decided: decision, reply: Some(reply) };
            let result = launch.resume(&id, issue, &mut events).await;
            events.finish(result);
            // Claimed before it started, so released however it ended.
            hub.release(&id);
        }
    }
}
