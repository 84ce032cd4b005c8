//! What to do next, added to errors that otherwise read as a bare relay code (docs/cli.md,
//! "Exit codes"): a device whose session the relay refuses (revoked, or its account was
//! reset), an agent whose connection token the relay refuses, and a message another
//! connection cannot see.

use herald_protocol::ErrorCode;

/// The stable code of the herald-client error inside `e` (`unauthorized`, `not_found`…), if
/// it holds one.
pub fn code(e: &anyhow::Error) -> Option<String> {
    e.chain()
        .find_map(|c| c.downcast_ref::<herald_client::Error>())
        .map(herald_client::Error::code)
}

/// Whether `e` holds a herald-client error with `code`.
pub fn is(e: &anyhow::Error, code: ErrorCode) -> bool {
    self::code(e).as_deref() == Some(code.as_str())
}

/// The hint for a device the relay no longer accepts.
pub const SIGNED_OUT: &str = "this device is signed out (401 unauthorized): it was revoked, or its account was reset. Sign this machine in again with `herald device unlock --relay URL` (recovery key) or `herald device pair --relay URL` (approved from another device)";

/// The hint for an account that holds the most devices it may (`device_limit_reached`).
pub const DEVICE_LIMIT: &str = "this account already has 100 devices, the most it may hold (409 device_limit_reached). Revoke one you no longer use first: on an unlocked device run `herald device list`, then `herald device revoke ID` (or use Settings → Devices in the desktop app), then try again";

/// A revocation's result: `already_revoked` from the relay says so plainly, naming `what`
/// (`connection con_…`); `not_found` says no such `what` exists and names `list`, the
/// command that lists the existing ones (`herald connection list`).
pub fn revoked<T>(result: herald_client::Result<T>, what: &str, list: &str) -> anyhow::Result<T> {
    result.map_err(|e| {
        if e.code() == ErrorCode::AlreadyRevoked.as_str() {
            anyhow::anyhow!("{what} was already revoked (409 already_revoked): it no longer works; nothing changed")
        } else if e.code() == ErrorCode::NotFound.as_str() {
            anyhow::anyhow!("there is no {what} on this account (404 not_found): check the id; `{list}` lists the existing ones")
        } else {
            e.into()
        }
    })
}

/// What to check when an agent command cannot reach its relay.
pub const AGENT_UNREACHABLE: &str = "check that the relay is running at that URL (the Herald desktop app runs its relay while it is open) and that HERALD_URL (or --relay) names it";

/// What to check when a device command cannot reach the device's relay.
pub const DEVICE_UNREACHABLE: &str = "check that the relay is running at that URL (the Herald desktop app runs its relay while it is open); `herald device init|unlock|pair` take it from --relay or HERALD_URL, every other command uses the relay this device was set up with (`herald whoami` shows it)";

/// `e` with what to check added when it is a `network` error (the relay's URL is in it).
fn unreachable(e: anyhow::Error, what_to_check: &str) -> anyhow::Error {
    if self::code(&e).as_deref() == Some("network") {
        anyhow::anyhow!("{e:#}. What to do: {what_to_check}")
    } else {
        e
    }
}

/// For device commands (`device`, `whoami`, `connection`, `inbox`, `agent-key`,
/// `connector`, `notifications`): a 401 from the relay says the device is signed out and how
/// to sign in again; a full account (`unlock`, `pair`, `approve`) says to revoke a device.
pub fn device(
    result: anyhow::Result<std::process::ExitCode>,
) -> anyhow::Result<std::process::ExitCode> {
    result.map_err(|e| {
        if is(&e, ErrorCode::Unauthorized) {
            anyhow::anyhow!(SIGNED_OUT)
        } else if is(&e, ErrorCode::DeviceLimitReached) {
            anyhow::anyhow!(DEVICE_LIMIT)
        } else {
            unreachable(e, DEVICE_UNREACHABLE)
        }
    })
}

/// For agent commands (`send`, `ask`, `wait`, `cancel`): a 401 says the connection token is
/// revoked or unknown; a `not_found` for message `id` says this connection cannot see it.
pub fn agent(e: anyhow::Error, id: Option<&str>) -> anyhow::Error {
    if is(&e, ErrorCode::Unauthorized) {
        return anyhow::anyhow!(
            "this connection token was revoked or is unknown (401): create a new connection (`herald connection create --name NAME` on a device) and use its token"
        );
    }
    match id {
        Some(id) if is(&e, ErrorCode::NotFound) => anyhow::anyhow!(
            "not found: no message {id} visible to this connection (it sends and reads only its own requests)"
        ),
        _ if is(&e, ErrorCode::SecretCollected) => e.context(
            "the secret values of this answer were collected already (by an earlier `herald ask` or `herald wait`): they are handed over once",
        ),
        _ => unreachable(e, AGENT_UNREACHABLE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn relay(code: ErrorCode) -> anyhow::Error {
        anyhow::Error::new(herald_client::Error::Relay {
            status: code.status(),
            body: herald_protocol::ErrorBody::new(code),
        })
        .context("outer context")
    }

    #[test]
    fn codes_are_found_through_context() {
        assert!(is(&relay(ErrorCode::Unauthorized), ErrorCode::Unauthorized));
        assert!(!is(&anyhow::anyhow!("plain"), ErrorCode::Unauthorized));
        let e = agent(relay(ErrorCode::NotFound), Some("msg_x"));
        assert!(e.to_string().contains("no message msg_x visible"), "{e}");
        let e = agent(relay(ErrorCode::Unauthorized), None);
        assert!(e.to_string().contains("revoked or is unknown (401)"), "{e}");
        let e = device(Err(relay(ErrorCode::Unauthorized))).unwrap_err();
        assert!(e.to_string().contains("herald device unlock"), "{e}");
        let e = device(Err(relay(ErrorCode::DeviceLimitReached))).unwrap_err();
        assert!(e.to_string().contains("herald device revoke ID"), "{e}");
    }
}
