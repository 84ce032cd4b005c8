//! What a window is asked to show: a message, the inbox, an agent's notification, the connector
//! approval with a user code filled in, or "approve a new device". Targets come from banner
//! clicks, the tray menu, the global shortcut and `herald://` deep links.
//!
//! Deep links (registered for the `herald` scheme by the bundles, docs/packaging.md):
//!
//! | link | opens |
//! |---|---|
//! | `herald://message/msg_…` | that message |
//! | `herald://pending` | the newest request waiting for an answer (else the inbox) |
//! | `herald://inbox` | the inbox |
//! | `herald://connect?code=BCDF-GHJK` | Settings → Agents, the connector approval, code filled in |
//! | `herald://approve-device` | Settings → Devices, approving a new device |
//!
//! A link is only ever navigation: it never answers, approves or sends anything by itself.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The URL scheme of deep links.
pub const SCHEME: &str = "herald";
/// Longest deep link accepted: 512 bytes.
const MAX_LINK_BYTES: usize = 512;

/// Why a message was opened, when the window has something to say about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum OpenNotice {
    /// A press on the request's banner came after it was answered: nothing was sent again.
    AlreadyAnswered,
}

/// What to show. Serialized as `{"kind": "message", "id": "msg_…", "notice": null}` and so on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[ts(export)]
pub enum OpenTarget {
    /// A message, with a note to show above it when there is one.
    #[serde(rename_all = "camelCase")]
    Message {
        id: String,
        notice: Option<OpenNotice>,
    },
    /// The newest pending request (the background process turns it into a `Message`).
    NewestPending,
    Inbox,
    /// An agent's notification.
    Notification {
        id: String,
    },
    /// The connector approval with its user code filled in.
    #[serde(rename_all = "camelCase")]
    Connector {
        user_code: String,
    },
    /// Approving a new device (pairing requests).
    ApproveDevice,
}

/// Why a deep link was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LinkError {
    #[error("not a herald:// link")]
    NotHerald,
    #[error("the link is longer than 512 bytes")]
    TooLong,
    #[error("herald://{0} is not a link Herald knows (message/…, pending, inbox, connect?code=…, approve-device)")]
    Unknown(String),
    #[error("the message id in the link is not one")]
    BadMessageId,
    #[error("the code in the link is not a connector code (8 letters, like BCDF-GHJK)")]
    BadUserCode,
}

/// Parses a `herald://` link. Case of the scheme and host is ignored; ids are checked for
/// shape so nothing odd reaches the UI.
pub fn parse_link(link: &str) -> Result<OpenTarget, LinkError> {
    if link.len() > MAX_LINK_BYTES {
        return Err(LinkError::TooLong);
    }
    let url = tauri::Url::parse(link.trim()).map_err(|_| LinkError::NotHerald)?;
    if !url.scheme().eq_ignore_ascii_case(SCHEME) {
        return Err(LinkError::NotHerald);
    }
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    let path = url.path().trim_matches('/');
    match (host.as_str(), path) {
        ("message", id) => {
            if is_message_id(id) {
                Ok(OpenTarget::Message {
                    id: id.to_owned(),
                    notice: None,
                })
            } else {
                Err(LinkError::BadMessageId)
            }
        }
        ("pending", "") => Ok(OpenTarget::NewestPending),
        ("inbox", "") => Ok(OpenTarget::Inbox),
        ("approve-device", "") => Ok(OpenTarget::ApproveDevice),
        ("connect", "") => {
            let code = url
                .query_pairs()
                .find(|(k, _)| k == "code")
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default();
            user_code(&code)
                .map(|user_code| OpenTarget::Connector { user_code })
                .ok_or(LinkError::BadUserCode)
        }
        _ => Err(LinkError::Unknown(
            format!("{host}/{path}").trim_end_matches('/').to_owned(),
        )),
    }
}

/// `msg_` then 1–64 of `[A-Za-z0-9_-]`.
fn is_message_id(id: &str) -> bool {
    id.strip_prefix("msg_").is_some_and(|rest| {
        !rest.is_empty()
            && rest.len() <= 64
            && rest
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    })
}

/// A connector user code as the approval form expects it: 8 ASCII letters, upper case, with a
/// dash in the middle (`bcdfghjk` and `BCDF-GHJK` both give `BCDF-GHJK`).
fn user_code(code: &str) -> Option<String> {
    let letters: String = code.chars().filter(|c| *c != '-').collect();
    let fine = letters.len() == 8 && letters.chars().all(|c| c.is_ascii_alphabetic());
    fine.then(|| {
        let upper = letters.to_ascii_uppercase();
        format!("{}-{}", &upper[..4], &upper[4..])
    })
}

/// The first `herald://` link among a process's arguments, if any.
pub fn link_in_args<'a>(args: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    args.into_iter().find(|a| {
        a.get(..SCHEME.len() + 3)
            .is_some_and(|p| p.eq_ignore_ascii_case("herald://"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_links_open_their_screen() {
        assert_eq!(
            parse_link("herald://message/msg_01J9ZK"),
            Ok(OpenTarget::Message {
                id: "msg_01J9ZK".into(),
                notice: None
            }),
            "a message"
        );
        assert_eq!(
            parse_link("HERALD://Pending/"),
            Ok(OpenTarget::NewestPending),
            "case of scheme and host and a trailing slash do not matter"
        );
        assert_eq!(parse_link("herald://inbox"), Ok(OpenTarget::Inbox), "inbox");
        assert_eq!(
            parse_link("herald://approve-device"),
            Ok(OpenTarget::ApproveDevice),
            "approve a device"
        );
        assert_eq!(
            parse_link("herald://connect?code=bcdfghjk"),
            Ok(OpenTarget::Connector {
                user_code: "BCDF-GHJK".into()
            }),
            "the code is normalised as the form shows it"
        );
    }

    #[test]
    fn odd_links_are_refused_with_a_reason() {
        assert_eq!(parse_link("https://example.com"), Err(LinkError::NotHerald));
        assert_eq!(
            parse_link("herald://message/../../etc"),
            Err(LinkError::BadMessageId),
            "no path tricks"
        );
        assert_eq!(
            parse_link("herald://message/msg_<script>"),
            Err(LinkError::BadMessageId)
        );
        assert_eq!(
            parse_link("herald://connect?code=1234-5678"),
            Err(LinkError::BadUserCode)
        );
        assert_eq!(
            parse_link("herald://connect"),
            Err(LinkError::BadUserCode),
            "the code is required"
        );
        assert!(
            matches!(
                parse_link("herald://answer/msg_1?action=approve"),
                Err(LinkError::Unknown(_))
            ),
            "a link never answers"
        );
        assert_eq!(
            parse_link(&format!("herald://message/msg_{}", "a".repeat(600))),
            Err(LinkError::TooLong)
        );
    }

    #[test]
    fn the_link_is_found_among_other_arguments() {
        assert_eq!(
            link_in_args(["--flag", "herald://inbox", "x"]),
            Some("herald://inbox")
        );
        assert_eq!(link_in_args(["--background"]), None);
    }
}
