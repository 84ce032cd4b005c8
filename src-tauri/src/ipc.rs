//! What every command handler shares, below the handlers and the contract that lists them:
//! the result type, the one error shape (`UiError` with a `UiErrorCode`) and raw-byte replies.

use herald_client::view::{UiError, UiErrorCode};

/// What every command handler returns (the contract's one error shape).
pub type CmdResult<T> = Result<T, UiError>;

/// The core's typed error as the UI sees it: a stable code, a readable message and the
/// inputs at fault (`fields`).
pub fn ui_error(error: herald_client::Error) -> UiError {
    UiError::from(&error)
}

/// An error of the shell itself (not the core), with its stable code and no fields.
pub fn shell_error(code: UiErrorCode, message: impl Into<String>) -> UiError {
    UiError::new(code, message)
}

/// Raw bytes answered as an `ArrayBuffer` (not JSON), e.g. an image for an `<img>` blob.
pub struct Bytes(pub Vec<u8>);

impl ts_rs::TS for Bytes {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;

    fn name(_: &ts_rs::Config) -> String {
        "ArrayBuffer".to_owned()
    }

    fn inline(_: &ts_rs::Config) -> String {
        "ArrayBuffer".to_owned()
    }
}
