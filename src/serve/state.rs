//! What every handler shares.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::{mpsc, watch};

use super::hub::Hub;
use super::jobs::Job;
use super::launch::Launch;
use super::render::Pages;
use super::security;

/// Everything the handlers share.
pub struct App {
    pub db: PathBuf,
    pub here: Option<String>,
    pub pages: Pages,
    pub hub: Arc<Hub>,
    pub guard: Arc<security::Guard>,
    pub launch: Arc<dyn Launch>,
    pub jobs: mpsc::UnboundedSender<Job>,
    /// Turns true when the server stops: event streams end with it.
    pub stopping: watch::Receiver<bool>,
}
