//! The command contract between the webview and the shell, declared once in `list.rs`.
//!
//! The `commands!` macro below turns that list into: [`NAMES`] (build.rs reads the same list for
//! the permission names), [`dispatch`] (a command by name with its JSON arguments, as the
//! webview sends them) and [`invoke_handler`] (Tauri's handler over `dispatch`), and
//! [`typescript`] (the UI's `ui/src/lib/bindings/commands.ts`, written by this crate's tests
//! like the ts-rs bindings and checked by CI). Every handler has one shape:
//! `async fn(AppHandle<R>, argument…) -> Result<T, UiError>`.

#[cfg(test)]
mod typescript;

use herald_client::device_view::{DeviceView, PairingRequestView, PairingStarted, UnlockResult};
use herald_client::notification_view::{
    AgentKeyView, ConnectorView, NewAgentKey, NotificationSettings, NotificationView,
    QuietHoursSettings,
};
use herald_client::view::{
    AnswerInput, ConnectionView, CoreEvent, InboxPage, MessageSummary, MessageView, NewConnection,
    OnboardResult, SetupState, UiError,
};
use herald_client::SecretReveal;
use serde::Serialize;
use tauri::ipc::{Invoke, InvokeResponseBody};
use tauri::{AppHandle, Manager, Runtime};

use crate::ipc::{shell_error, Bytes};
use crate::launch::LaunchSettings;
use crate::paint::PagePhases;
use crate::speech::SpeechStatus;
use crate::targets::OpenTarget;
use crate::updates::{UpdateCheck, UpdateSettings};
use herald_client::answers::picks::PickedFile;
use herald_client::view::UiErrorCode;

#[cfg(test)]
pub use typescript::typescript;

/// How a handler's result travels back: JSON, or raw bytes for [`Bytes`].
pub trait IntoBody {
    /// The response body. Errors: `internal` when the value does not serialize.
    fn into_body(self) -> Result<InvokeResponseBody, UiError>;
}

impl<T: Serialize> IntoBody for T {
    fn into_body(self) -> Result<InvokeResponseBody, UiError> {
        serde_json::to_string(&self)
            .map(InvokeResponseBody::Json)
            .map_err(|e| {
                shell_error(
                    UiErrorCode::Internal,
                    format!("the reply did not serialize: {e}"),
                )
            })
    }
}

impl IntoBody for Bytes {
    fn into_body(self) -> Result<InvokeResponseBody, UiError> {
        Ok(InvokeResponseBody::Raw(self.0))
    }
}

/// A command's arguments from the JSON object the webview sent (null or absent: no arguments).
/// Errors: `invalid_args`, naming the command and, for a missing or unknown argument, which.
/// serde's text for a value of the wrong type quotes the value (it may be a secret field's),
/// so that case says only "an argument has the wrong type or shape".
fn parse_args<T: serde::de::DeserializeOwned>(
    command: &str,
    args: serde_json::Value,
) -> Result<T, UiError> {
    let args = match args {
        serde_json::Value::Null => serde_json::Value::Object(Default::default()),
        other => other,
    };
    serde_json::from_value(args).map_err(|e| {
        let text = e.to_string();
        let what = if text.starts_with("missing field") || text.starts_with("unknown field") {
            text
        } else {
            "an argument has the wrong type or shape".to_owned()
        };
        shell_error(
            UiErrorCode::InvalidArgs,
            format!("invalid arguments for {command}: {what}"),
        )
    })
}

/// One command's declaration, as the TypeScript generator reads it.
#[cfg(test)]
pub struct CommandInfo {
    /// snake_case, as invoked.
    pub name: &'static str,
    /// The doc comment's lines.
    pub docs: &'static [&'static str],
    /// (snake_case name, TypeScript type, imports it needs).
    pub args: Vec<(&'static str, typescript::TsType)>,
    /// The result's TypeScript type.
    pub result: typescript::TsType,
}

macro_rules! commands {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) -> $ret:ty => $handler:path;
    )*) => {
        /// Every command name, in declaration order (`list.rs`).
        pub const NAMES: &[&str] = &[$(stringify!($name)),*];

        /// Each command's arguments as one JSON object with camelCase keys.
        #[allow(non_camel_case_types)]
        mod args {
            use super::*;
            $(
                #[derive(serde::Deserialize)]
                #[serde(rename_all = "camelCase")]
                pub struct $name { $(pub $arg: $ty,)* }
            )*
        }

        /// Runs command `name` with its JSON `args` (an object with camelCase keys). Errors:
        /// the handler's `UiError`, `invalid_args` when the arguments do not fit, `not_found`
        /// for a name not in the contract.
        pub async fn dispatch<R: Runtime>(
            app: AppHandle<R>,
            name: &str,
            args: serde_json::Value,
        ) -> Result<InvokeResponseBody, UiError> {
            match name {
                $(stringify!($name) => {
                    let args::$name { $($arg),* } = parse_args(name, args)?;
                    let reply: $ret = $handler(app, $($arg),*).await?;
                    reply.into_body()
                })*
                _ => Err(shell_error(UiErrorCode::NotFound, format!("no command named {name}"))),
            }
        }

        /// Every command's declaration, for [`typescript`].
        #[cfg(test)]
        pub fn infos() -> Vec<CommandInfo> {
            vec![$(CommandInfo {
                name: stringify!($name),
                docs: &[$($doc),*],
                args: vec![$((stringify!($arg), typescript::TsType::of::<$ty>())),*],
                result: typescript::TsType::of::<$ret>(),
            }),*]
        }
    };
}

include!("list.rs");

/// An invoke's command name and JSON arguments when it names a contract command (`None`:
/// not ours, left to Tauri). Errors: `invalid_args` for a raw-bytes body.
pub fn contract_call<R: Runtime>(
    invoke: &Invoke<R>,
) -> Option<Result<(String, serde_json::Value), UiError>> {
    let name = invoke.message.command();
    if !NAMES.contains(&name) {
        return None;
    }
    Some(match invoke.message.payload() {
        tauri::ipc::InvokeBody::Json(value) => Ok((name.to_owned(), value.clone())),
        tauri::ipc::InvokeBody::Raw(_) => Err(shell_error(
            UiErrorCode::InvalidArgs,
            format!("{name} takes a JSON object, not raw bytes"),
        )),
    })
}

/// Tauri's invoke handler over [`dispatch`]: a command of the contract runs on the async
/// runtime and answers JSON or raw bytes; any other name is left to Tauri (`false`), which
/// rejects it. The ACL has already checked the window may call it.
pub fn invoke_handler<R: Runtime>() -> impl Fn(Invoke<R>) -> bool + Send + Sync + 'static {
    |invoke: Invoke<R>| {
        let (name, args) = match contract_call(&invoke) {
            None => return false,
            Some(Err(error)) => {
                invoke.resolver.reject(error);
                return true;
            }
            Some(Ok(call)) => call,
        };
        let app = invoke.message.webview().app_handle().clone();
        invoke.resolver.respond_async_serialized(async move {
            dispatch(app, &name, args).await.map_err(Into::into)
        });
        true
    }
}

#[cfg(test)]
mod tests;
