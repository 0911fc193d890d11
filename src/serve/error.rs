//! The dashboard's failures: JSON `{"error": …, "hint": …}` with the status the failure
//! deserves, a command's error mapped by its exit code.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::error::Error;
use crate::store::StoreError;

/// A failure, as the API and the pages show it.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
    hint: Option<String>,
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: &'a str,
    hint: Option<&'a str>,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError { status, message: message.into(), hint: None }
    }

    /// Its status, message and hint, for a page that shows them.
    pub fn parts(self) -> (StatusCode, String, Option<String>) {
        (self.status, self.message, self.hint)
    }

    pub fn hint(mut self, hint: impl Into<String>) -> ApiError {
        self.hint = Some(hint.into());
        self
    }

    /// A body, path or query the extractors could not read.
    pub fn rejected(rejection: impl IntoResponse + std::fmt::Display) -> ApiError {
        let message = rejection.to_string();
        ApiError::new(rejection.into_response().status(), message)
    }

    /// The server is stopping: nothing new starts.
    pub fn stopping() -> ApiError {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "the dashboard is stopping")
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody { error: &self.message, hint: self.hint.as_deref() };
        (self.status, Json(body)).into_response()
    }
}

impl From<Error> for ApiError {
    /// The command's own message and hint; the status from its exit code (docs/reference.md, "Exit codes").
    fn from(err: Error) -> ApiError {
        let status = match (&err, err.exit_code()) {
            (Error::Store(StoreError::UnknownId(_)), _) => StatusCode::NOT_FOUND,
            (_, 2) => StatusCode::BAD_REQUEST,
            (_, 3) => StatusCode::BAD_GATEWAY,
            // Another process drives the debate, or a repository that moved: try later or elsewhere.
            (_, 75 | 5) => StatusCode::CONFLICT,
            (_, 129 | 130 | 143) => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        ApiError { status, message: err.to_string(), hint: err.hint() }
    }
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> ApiError {
        Error::from(err).into()
    }
}
