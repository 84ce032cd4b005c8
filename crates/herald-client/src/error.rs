//! Typed errors of the device core.

/// Everything the device core can fail with. `code()` is the stable code the UI branches on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("this device has no account yet")]
    NotSetUp,
    #[error("not found: {0}")]
    NotFound(String),
    #[error("{0}")]
    Other(String),
}

impl Error {
    /// Stable machine code for the UI.
    pub fn code(&self) -> &'static str {
        match self {
            Error::NotSetUp => "not_set_up",
            Error::NotFound(_) => "not_found",
            Error::Other(_) => "internal",
        }
    }
}

/// Result alias of the device core.
pub type Result<T> = std::result::Result<T, Error>;
