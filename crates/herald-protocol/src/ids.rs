//! Identifier newtypes. Every id is a short prefix, `_`, and 26 lowercase base32 characters
//! (128 random bits), e.g. `msg_3k2n...`. Ids are made by the party that signs the object
//! (devices and connections), so they can be bound inside signatures; the relay only checks
//! their shape and uniqueness.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

/// Number of base32 characters after the prefix (128 bits, unpadded).
pub const ID_BODY_LEN: usize = 26;

fn is_id_body(s: &str) -> bool {
    s.len() == ID_BODY_LEN
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || (b'2'..=b'7').contains(&b))
}

/// Formats 16 bytes as an id body (RFC 4648 base32, lowercase, no padding).
pub fn id_body(bytes: &[u8; 16]) -> String {
    data_encoding::BASE32_NOPAD
        .encode(bytes)
        .to_ascii_lowercase()
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// The prefix, including the underscore.
            pub const PREFIX: &'static str = $prefix;

            /// Parses and checks the shape `<prefix><26 base32 chars>`.
            pub fn parse(s: &str) -> Option<Self> {
                let body = s.strip_prefix(Self::PREFIX)?;
                is_id_body(body).then(|| Self(s.to_owned()))
            }

            /// Builds an id from 16 random bytes.
            pub fn from_random(bytes: &[u8; 16]) -> Self {
                Self(format!("{}{}", Self::PREFIX, id_body(bytes)))
            }

            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                Self::parse(&s).ok_or_else(|| {
                    serde::de::Error::custom(format!(
                        "invalid {}: expected {}<26 base32 characters>",
                        stringify!($name),
                        Self::PREFIX
                    ))
                })
            }
        }
    };
}

id_type!(
    /// An account. Derived from the account identity key's fingerprint (see docs/protocol.md),
    /// so an account id cannot be claimed with another key.
    AccountId,
    "acc_"
);
id_type!(
    /// A device of an account (desktop app or headless `herald` device).
    DeviceId,
    "dev_"
);
id_type!(
    /// A connection: an agent credential with its own keys, certified by the account.
    ConnectionId,
    "con_"
);
id_type!(
    /// A message or request; made by the sender and bound into the envelope header.
    MessageId,
    "msg_"
);

id_type!(
    /// A pairing request of a new device (docs/devices.md). Made by the new device, because it
    /// is bound into the PAKE identities before the relay has seen the request.
    PairingId,
    "pai_"
);

id_type!(
    /// An encrypted file stored by the relay (an attachment's ciphertext); made by the relay
    /// when the upload is reserved (`POST /files`).
    FileId,
    "fil_"
);

id_type!(
    /// An agent key (`hrk_…` credential) of an account (docs/agents.md); made by the relay.
    AgentKeyId,
    "agk_"
);

id_type!(
    /// A connector: an MCP client approved through the OAuth device flow, holding an `hra_…`
    /// access token (docs/agents.md); made by the relay.
    ConnectorId,
    "ctr_"
);

id_type!(
    /// A notification as the relay stores it (docs/agents.md); made by the relay. Agents name
    /// their notifications with their own `notificationId`; devices use this id.
    NotificationId,
    "ntf_"
);

/// An account-wide, strictly increasing change counter. Every stored change (a new message, an
/// answer, an expiry) gets the next revision; a cursor is the highest revision a reader has
/// stored. `0` means "nothing seen yet".
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Revision(pub u64);

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_reject_bad_shapes() {
        let id = MessageId::from_random(&[7; 16]);
        assert!(id.as_str().starts_with("msg_"), "prefix kept");
        assert_eq!(
            MessageId::parse(id.as_str()),
            Some(id.clone()),
            "round trip"
        );
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(serde_json::from_str::<MessageId>(&json).unwrap(), id);
        for bad in [
            "",
            "msg_",
            "msg_abc",
            "dev_aaaaaaaaaaaaaaaaaaaaaaaaaa",
            "msg_AAAAAAAAAAAAAAAAAAAAAAAAAA",
            "msg_aaaaaaaaaaaaaaaaaaaaaaaaa1",
        ] {
            assert!(MessageId::parse(bad).is_none(), "{bad:?} must be refused");
        }
    }
}
