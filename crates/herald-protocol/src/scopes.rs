//! What a connection bearer (`hdr_…`) may do: its scopes (docs/authorization.md, "Scopes").
//!
//! A connection holds one or more of three scopes, chosen when a device creates it (all three
//! when the request names none). The relay checks them on every request before the route
//! runs; a missing scope is `403 forbidden` naming it. Devices hold every scope; agent keys and
//! connectors have no scopes of this kind (they may call only `/v1/*` and `/mcp`).

use serde::{Deserialize, Serialize};

/// One scope of a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Scope {
    /// `messages:send`: send messages and requests, cancel its own, upload files and post
    /// secret payloads for them, read `GET /keys` (needed to seal).
    #[serde(rename = "messages:send")]
    MessagesSend,
    /// `messages:read`: read its own messages, their threads and answers, download files of
    /// them, collect the secrets answered to it.
    #[serde(rename = "messages:read")]
    MessagesRead,
    /// `events:read`: the live update socket `GET /ws`.
    #[serde(rename = "events:read")]
    EventsRead,
}

impl Scope {
    /// Every scope, in their published order: what a connection created without `scopes`
    /// holds.
    pub const ALL: [Scope; 3] = [Scope::MessagesSend, Scope::MessagesRead, Scope::EventsRead];

    /// The published name (`messages:send`, `messages:read`, `events:read`).
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::MessagesSend => "messages:send",
            Scope::MessagesRead => "messages:read",
            Scope::EventsRead => "events:read",
        }
    }

    /// The scope of a published name; `None` for anything else.
    pub fn parse(name: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// `scopes` without repeats, in [`Scope::ALL`] order: the form every list of scopes is
    /// stored, sent and shown in.
    pub fn distinct(mut scopes: Vec<Scope>) -> Vec<Scope> {
        scopes.sort();
        scopes.dedup();
        scopes
    }
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_serde_and_parse() {
        for scope in Scope::ALL {
            let json = serde_json::to_string(&scope).expect("serializes");
            assert_eq!(
                json,
                format!("\"{}\"", scope.as_str()),
                "{scope} on the wire"
            );
            assert_eq!(Scope::parse(scope.as_str()), Some(scope), "{scope} parses");
        }
        assert_eq!(Scope::parse("events"), None, "an unknown name");
        assert_eq!(
            Scope::distinct(vec![
                Scope::EventsRead,
                Scope::MessagesSend,
                Scope::EventsRead
            ]),
            vec![Scope::MessagesSend, Scope::EventsRead],
            "repeats go, the published order stays"
        );
        assert!(
            serde_json::from_str::<Scope>("\"messages:write\"").is_err(),
            "serde refuses unknown names too"
        );
    }
}
