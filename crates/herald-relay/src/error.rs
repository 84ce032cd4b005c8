//! Errors. [`ApiError`] is what a route returns: a code from the shared catalog
//! ([`herald_protocol::ErrorCode`]) with its status, message and offending fields. Internal causes
//! are logged where they happen and never returned. [`Error`] is the library's own error for
//! opening and running the relay.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use herald_protocol::{ErrorBody, ErrorCode};

use crate::store::StoreError;

/// Errors of the relay library outside request handling.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("storage: {0}")]
    Store(#[from] StoreError),
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    /// [`crate::RelayConfig::public_url`] is not a usable URL (the relay does not start).
    #[error(transparent)]
    PublicUrl(#[from] crate::public_url::PublicUrlError),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error response from the catalog.
#[derive(Debug, Clone)]
pub struct ApiError(pub ErrorBody);

impl ApiError {
    pub fn new(code: ErrorCode) -> Self {
        ApiError(ErrorBody::new(code))
    }

    pub fn with_message(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError(ErrorBody::with_message(code, message))
    }

    /// `invalid_request` naming one field.
    pub fn invalid(field: &str, message: impl Into<String>) -> Self {
        ApiError(ErrorBody::with_message(ErrorCode::InvalidRequest, message).fields([field]))
    }

    pub fn fields(mut self, fields: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.0 = self.0.fields(fields);
        self
    }

    pub fn code(&self) -> Option<ErrorCode> {
        self.0.code()
    }

    pub fn unauthorized() -> Self {
        Self::new(ErrorCode::Unauthorized)
    }

    pub fn forbidden() -> Self {
        Self::new(ErrorCode::Forbidden)
    }

    pub fn not_found() -> Self {
        Self::new(ErrorCode::NotFound)
    }

    /// A failure inside the relay: logs the cause, returns the generic body.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(%cause, "internal error");
        Self::new(ErrorCode::Internal)
    }
}

impl From<ErrorCode> for ApiError {
    fn from(code: ErrorCode) -> Self {
        ApiError::new(code)
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e.code() {
            Some(code) => ApiError::new(code),
            None => ApiError::internal(e),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let code = self.code().unwrap_or(ErrorCode::Internal);
        let status =
            StatusCode::from_u16(code.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (status, axum::Json(self.0)).into_response();
        if code == ErrorCode::Unauthorized {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        if code == ErrorCode::RateLimited {
            // `crate::limits::retry_after` adds the header from the relay's clock.
            response.extensions_mut().insert(crate::limits::RateLimited);
        }
        response
    }
}
