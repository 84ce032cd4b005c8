//! The matrix's vocabulary: who calls ([`Cred`], the columns), what must happen
//! ([`Outcome`]), and the authorization profiles most rows follow ([`Expect`]).
//!
//! "A" is the account whose resources every path names; "B" is another account. Every
//! credential is real: made through the relay's own routes, revoked through them.

use std::fmt;

/// Who calls: the matrix's columns, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cred {
    /// No `Authorization` header.
    None,
    /// A's first device (`hds_`).
    Device,
    /// A's connection (`hdr_`) that sent the messages, files and offers the paths name.
    Connection,
    /// Another live connection of A: it may see only its own messages.
    SiblingConnection,
    /// A's agent key (`hrk_`).
    AgentKey,
    /// A's connector token (`hra_`), from the OAuth device flow.
    Connector,
    /// A device of A revoked with `DELETE /keys/devices/{id}`.
    RevokedDevice,
    /// A connection of A revoked with `DELETE /connections/{id}`.
    RevokedConnection,
    /// An agent key of A revoked with `DELETE /agent-keys/{id}`.
    RevokedAgentKey,
    /// A connector of A revoked with `DELETE /connectors/{id}`.
    RevokedConnector,
    /// B's device.
    OtherDevice,
    /// B's connection.
    OtherConnection,
    /// B's agent key.
    OtherAgentKey,
    /// B's connector token.
    OtherConnector,
    /// The poll token (`hdp_`) of the pairing request the path names (elsewhere: of a live
    /// pairing request).
    PollToken,
    /// The poll token of another pairing request.
    OtherPollToken,
}

pub const COLUMNS: usize = 16;

impl Cred {
    pub const ALL: [Cred; COLUMNS] = [
        Cred::None,
        Cred::Device,
        Cred::Connection,
        Cred::SiblingConnection,
        Cred::AgentKey,
        Cred::Connector,
        Cred::RevokedDevice,
        Cred::RevokedConnection,
        Cred::RevokedAgentKey,
        Cred::RevokedConnector,
        Cred::OtherDevice,
        Cred::OtherConnection,
        Cred::OtherAgentKey,
        Cred::OtherConnector,
        Cred::PollToken,
        Cred::OtherPollToken,
    ];

    pub fn index(self) -> usize {
        Cred::ALL
            .iter()
            .position(|c| *c == self)
            .expect("every credential is a column")
    }

    /// The column heading in docs/authorization.md.
    pub fn heading(self) -> &'static str {
        match self {
            Cred::None => "none",
            Cred::Device => "device",
            Cred::Connection => "conn.",
            Cred::SiblingConnection => "sibling conn.",
            Cred::AgentKey => "agent key",
            Cred::Connector => "connector",
            Cred::RevokedDevice => "revoked device",
            Cred::RevokedConnection => "revoked conn.",
            Cred::RevokedAgentKey => "revoked agent key",
            Cred::RevokedConnector => "revoked connector",
            Cred::OtherDevice => "B device",
            Cred::OtherConnection => "B conn.",
            Cred::OtherAgentKey => "B agent key",
            Cred::OtherConnector => "B connector",
            Cred::PollToken => "poll token",
            Cred::OtherPollToken => "other poll token",
        }
    }

    /// A credential of account B.
    pub fn is_other_account(self) -> bool {
        matches!(
            self,
            Cred::OtherDevice | Cred::OtherConnection | Cred::OtherAgentKey | Cred::OtherConnector
        )
    }
}

/// What the `WWW-Authenticate` header of an answer must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Challenge {
    /// Not looked at.
    Any,
    /// Absent.
    Absent,
    /// Exactly `Bearer` (every 401 outside `/mcp`).
    Bearer,
    /// `/mcp`'s: `Bearer resource_metadata="<relay>/.well-known/oauth-protected-resource"`,
    /// plus `, error="invalid_token"` when a token was sent.
    Mcp { invalid_token: bool },
}

/// The expected answer of one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// HTTP status (101 for an accepted websocket upgrade).
    pub status: u16,
    /// The catalog error code of the body (`None`: the body's code is not checked).
    pub code: Option<&'static str>,
    /// Whether authorization let the call through (a success, or a refusal that is not about
    /// who calls, such as an unknown OAuth device code).
    pub allowed: bool,
    pub challenge: Challenge,
}

/// Allowed, answered with `status` (2xx or 101).
pub const fn ok(status: u16) -> Outcome {
    Outcome {
        status,
        code: None,
        allowed: true,
        challenge: Challenge::Any,
    }
}

/// Allowed: authorization passed and the route answered the error `code` for another reason.
pub const fn passed(status: u16, code: Option<&'static str>) -> Outcome {
    Outcome {
        status,
        code,
        allowed: true,
        challenge: Challenge::Any,
    }
}

/// 401 `unauthorized` with `WWW-Authenticate: Bearer`.
pub const U: Outcome = Outcome {
    status: 401,
    code: Some("unauthorized"),
    allowed: false,
    challenge: Challenge::Bearer,
};
/// 403 `forbidden`, no `WWW-Authenticate`.
pub const F: Outcome = Outcome {
    status: 403,
    code: Some("forbidden"),
    allowed: false,
    challenge: Challenge::Absent,
};
/// 404 `not_found`: nothing with that id is visible to this credential.
pub const N: Outcome = Outcome {
    status: 404,
    code: Some("not_found"),
    allowed: false,
    challenge: Challenge::Any,
};
/// 400 `invalid_request`: the body names another account's key or account, refused.
pub const I: Outcome = Outcome {
    status: 400,
    code: Some("invalid_request"),
    allowed: false,
    challenge: Challenge::Any,
};

/// `/mcp`'s 401: the challenge names the metadata; `invalid_token` when a token was sent.
pub const fn mcp_unauthorized(token_sent: bool) -> Outcome {
    Outcome {
        status: 401,
        code: Some("unauthorized"),
        allowed: false,
        challenge: Challenge::Mcp {
            invalid_token: token_sent,
        },
    }
}

impl fmt::Display for Outcome {
    /// The cell text of docs/authorization.md: `✓ 200`, `✗ 401`, `✓ 400 invalid_grant`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mark = if self.allowed { "✓" } else { "✗" };
        match self.code {
            Some(code) if self.allowed => write!(f, "{mark} {} {code}", self.status),
            _ => write!(f, "{mark} {}", self.status),
        }
    }
}

/// The expected outcome of every column of a row.
#[derive(Debug, Clone, Copy)]
pub struct Expect(pub [Outcome; COLUMNS]);

impl Expect {
    pub fn of(&self, cred: Cred) -> Outcome {
        self.0[cred.index()]
    }

    /// The same with `cred`'s cell replaced.
    pub fn with(mut self, cred: Cred, outcome: Outcome) -> Expect {
        self.0[cred.index()] = outcome;
        self
    }

    /// A route that needs no credential: every caller gets `outcome`, except agent
    /// credentials, which may call only `/v1/*`, `/mcp` and the OAuth routes (403; 401 when
    /// revoked). docs/agents.md, "Credentials".
    pub fn public(outcome: Outcome) -> Expect {
        let mut e = Expect([outcome; COLUMNS]);
        for c in [
            Cred::AgentKey,
            Cred::Connector,
            Cred::OtherAgentKey,
            Cred::OtherConnector,
        ] {
            e = e.with(c, F);
        }
        e.with(Cred::RevokedAgentKey, U)
            .with(Cred::RevokedConnector, U)
    }

    /// The OAuth metadata and device-flow routes: no credential needed, none refused.
    pub fn oauth(outcome: Outcome) -> Expect {
        Expect([outcome; COLUMNS])
    }

    /// A device-session route: A's device gets `own`, B's device `other`; connections and
    /// agent credentials 403; no, revoked or poll credentials 401.
    pub fn device(own: Outcome, other: Outcome) -> Expect {
        Expect::refusals()
            .with(Cred::Device, own)
            .with(Cred::OtherDevice, other)
    }

    /// A route for devices and connections: A's device, A's connection and its sibling, B's
    /// device and B's connection get the given outcomes; agent credentials 403; no, revoked
    /// or poll credentials 401.
    pub fn inbox(device: Outcome, conn: Outcome, sibling: Outcome, other: Outcome) -> Expect {
        Expect::refusals()
            .with(Cred::Device, device)
            .with(Cred::Connection, conn)
            .with(Cred::SiblingConnection, sibling)
            .with(Cred::OtherDevice, other)
            .with(Cred::OtherConnection, other)
    }

    /// An agent endpoint (`/v1/*`): A's agent key and connector get `own`, B's `other`;
    /// devices and connections 403; no, revoked or poll credentials 401.
    pub fn agent(own: Outcome, other: Outcome) -> Expect {
        let mut e = Expect([U; COLUMNS]);
        for c in [
            Cred::Device,
            Cred::Connection,
            Cred::SiblingConnection,
            Cred::OtherDevice,
            Cred::OtherConnection,
        ] {
            e = e.with(c, F);
        }
        e.with(Cred::AgentKey, own)
            .with(Cred::Connector, own)
            .with(Cred::OtherAgentKey, other)
            .with(Cred::OtherConnector, other)
    }

    /// `/mcp`: like [`Expect::agent`], with `/mcp`'s challenge on every 401.
    pub fn mcp(own: Outcome, other: Outcome) -> Expect {
        let mut e = Expect::agent(own, other);
        for c in Cred::ALL {
            if e.of(c) == U {
                e = e.with(c, mcp_unauthorized(c != Cred::None));
            }
        }
        e
    }

    /// Nobody is let through: devices' and connections' routes refuse connections and agent
    /// credentials (403) and no, revoked or poll credentials (401).
    fn refusals() -> Expect {
        let mut e = Expect([U; COLUMNS]);
        for c in [
            Cred::Device,
            Cred::Connection,
            Cred::SiblingConnection,
            Cred::AgentKey,
            Cred::Connector,
            Cred::OtherDevice,
            Cred::OtherConnection,
            Cred::OtherAgentKey,
            Cred::OtherConnector,
        ] {
            e = e.with(c, F);
        }
        e
    }
}
