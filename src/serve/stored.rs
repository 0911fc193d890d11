//! Reading the state database from a handler: off the runtime's thread, and a debate
//! that must exist.

use std::path::Path;

use axum::http::StatusCode;

use super::error::ApiError;
use crate::store::Store;

/// Store work, off the runtime's thread (the debates this server drives run there):
/// `work` gets the database, `None` when there is none yet.
pub async fn with_store<T: Send + 'static>(
    db: &Path,
    work: impl FnOnce(Option<Store>) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let db = db.to_path_buf();
    tokio::task::spawn_blocking(move || work(Store::open_existing(&db)?))
        .await
        .map_err(|err| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("a database read failed: {err}")))?
}

/// The database, which must exist for a debate to be found.
pub fn existing(store: Option<Store>, id: &str) -> Result<Store, ApiError> {
    store.ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("no debate with id {id:?}")))
}
