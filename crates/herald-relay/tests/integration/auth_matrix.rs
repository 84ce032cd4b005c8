//! The authorization matrix (docs/authorization.md): every route of the relay × every kind
//! of credential — none; A's device, connection, sibling connection, agent key and
//! connector; revoked ones of each kind; another account's (B's) of each kind; pairing poll
//! tokens — against a real relay with credentials made and revoked through its own routes.
//!
//! Paths always name account A's resources. Each cell states its outcome exactly: a success,
//! or the refusal's status, catalog code and `WWW-Authenticate`. Every successful answer to
//! one of B's credentials is also searched for A's ids (and a sibling connection's for the
//! other connection's), so nothing of A leaks through a list.
//!
//! Three guards keep the matrix whole: a route added to the router without a row fails
//! [`every_route_has_a_row`]; docs/authorization.md must match the rows
//! ([`the_docs_hold_the_matrix`]); and the rows run in [`every_route_by_every_credential`].

#[path = "auth_matrix/agents.rs"]
mod agents;
#[path = "auth_matrix/cells.rs"]
mod cells;
#[path = "auth_matrix/credentials.rs"]
mod credentials;
#[path = "auth_matrix/devices.rs"]
mod devices;
#[path = "auth_matrix/doc.rs"]
mod doc;
#[path = "auth_matrix/inbox.rs"]
mod inbox;
#[path = "auth_matrix/malformed.rs"]
mod malformed;
#[path = "auth_matrix/paths.rs"]
mod paths;
#[path = "auth_matrix/revocation.rs"]
mod revocation;
use crate::route_source as routes;
#[path = "auth_matrix/rows.rs"]
mod rows;
#[path = "auth_matrix/secrets.rs"]
mod secrets;
#[path = "auth_matrix/world.rs"]
mod world;

use std::collections::BTreeSet;

use cells::{Challenge, Cred};
use reqwest::Method;
use rows::Row;
use world::{Reply, World};

/// Every row, in the order they run.
fn table() -> Vec<Row> {
    let mut rows = inbox::rows();
    rows.extend(secrets::rows());
    rows.extend(devices::rows());
    rows.extend(agents::rows());
    rows
}

/// Why `reply` is not what `row` expects of `cred`, if it is not.
fn check(w: &World, row: &Row, cred: Cred, reply: &Reply) -> Result<(), String> {
    let want = row.expect.of(cred);
    let body = || reply.text.chars().take(300).collect::<String>();
    if reply.status != want.status {
        return Err(format!("expected {want}, got {}: {}", reply.status, body()));
    }
    if let Some(code) = want.code {
        let value: serde_json::Value = serde_json::from_str(&reply.text)
            .map_err(|_| format!("expected a JSON error body, got: {}", body()))?;
        if value["error"] != code {
            return Err(format!("expected error {code}, got: {}", body()));
        }
        if !(value["message"].is_string() && value["fields"].is_array()) {
            return Err(format!(
                "not a catalog body {{error, message, fields}}: {}",
                body()
            ));
        }
    }
    let challenge = reply
        .headers
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap_or("<not text>").to_owned());
    let challenge_ok = match want.challenge {
        Challenge::Any => true,
        Challenge::Absent => challenge.is_none(),
        Challenge::Bearer => challenge.as_deref() == Some("Bearer"),
        Challenge::Mcp { invalid_token } => {
            let base = format!(
                "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource\"",
                w.relay.url
            );
            let want = if invalid_token {
                format!("{base}, error=\"invalid_token\"")
            } else {
                base
            };
            challenge.as_deref() == Some(want.as_str())
        }
    };
    if !challenge_ok {
        return Err(format!(
            "WWW-Authenticate should be {:?}, is {challenge:?}",
            want.challenge
        ));
    }
    if (200..300).contains(&reply.status) && !row.public_data {
        let private = if cred.is_other_account() {
            w.ids_of_a()
        } else if cred == Cred::SiblingConnection {
            w.ids_of_connection()
        } else {
            Vec::new()
        };
        if let Some(id) = private.iter().find(|id| reply.text.contains(id.as_str())) {
            return Err(format!(
                "the answer names {id}, which this caller may not see"
            ));
        }
    }
    Ok(())
}

async fn run_cell(w: &World, row: &Row, cred: Cred, failures: &mut Vec<String>) {
    let reply = (row.run)(w, cred).await;
    if let Err(why) = check(w, row, cred, &reply) {
        failures.push(format!(
            "{} {} ({}) as {cred:?}: {why}",
            row.method, row.path, row.case
        ));
    }
}

/// A's request is still pending and its notification unanswered, after every refused call
/// to answer, cancel or reply to them.
async fn untouched(w: &World, failures: &mut Vec<String>) {
    let path = format!("/messages/{}", w.request);
    let record = w.send(Method::GET, &path, Some(&w.a.device_token)).await;
    if record.status != 200 || record.json()["status"] != "pending" {
        failures.push(format!("A's request changed: {}", record.text));
    }
    let path = format!("/v1/replies/{}?wait=0", world::NOTIFICATION);
    let reply = w.send(Method::GET, &path, Some(&w.a.agent_key)).await;
    if reply.status != 200 || reply.json()["replied"] != false {
        failures.push(format!("A's notification changed: {}", reply.text));
    }
}

#[tokio::test]
async fn every_route_by_every_credential() {
    let w = World::new().await;
    let rows = table();
    let mut failures = Vec::new();
    let mut cells = 0;
    for row in &rows {
        for cred in row.first_cells() {
            run_cell(&w, row, cred, &mut failures).await;
            cells += 1;
        }
    }
    // Refused calls changed nothing of A's shared resources.
    untouched(&w, &mut failures).await;
    // The cells that end an account (Reset) run last.
    for row in rows.iter().filter(|r| !r.last.is_empty()) {
        for &cred in row.last {
            run_cell(&w, row, cred, &mut failures).await;
            cells += 1;
        }
    }
    // Both accounts were reset: none of their credentials opens anything any more.
    for cred in [
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
        let agent = matches!(
            cred,
            Cred::AgentKey | Cred::Connector | Cred::OtherAgentKey | Cred::OtherConnector
        );
        let path = if agent { "/v1/status" } else { "/keys" };
        let reply = w.send(Method::GET, path, w.bearer(cred)).await;
        let challenge = reply.headers.get("www-authenticate").cloned();
        if reply.status != 401 || challenge.is_none() {
            failures.push(format!(
                "after the reset, GET {path} as {cred:?}: expected 401 with a challenge, got {}: {}",
                reply.status, reply.text
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {cells} cells are wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
    w.relay.shutdown().await;
}

#[tokio::test]
async fn sockets_close_when_their_credential_is_revoked() {
    revocation::sockets_close_when_their_credential_is_revoked().await;
}

#[tokio::test]
async fn reset_closes_every_socket_of_the_old_account() {
    revocation::reset_closes_every_socket_of_the_old_account().await;
}

#[tokio::test]
async fn a_waiting_reply_call_ends_when_its_key_is_revoked() {
    revocation::a_waiting_reply_call_ends_when_its_key_is_revoked().await;
}

#[tokio::test]
async fn malformed_credentials_are_unauthorized() {
    malformed::malformed_credentials_are_unauthorized().await;
}

#[tokio::test]
async fn agent_credentials_cannot_path_trick_into_device_routes() {
    paths::agent_credentials_cannot_path_trick_into_device_routes().await;
}

#[test]
fn every_route_has_a_row() {
    let served = routes::served();
    let rows: BTreeSet<(String, String)> = table().iter().map(Row::route).collect();
    let missing: Vec<_> = served.difference(&rows).collect();
    let stale: Vec<_> = rows.difference(&served).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "routes without a row in the matrix (add rows to tests/auth_matrix/): {missing:?}; \
         rows of routes the relay does not serve: {stale:?}"
    );
}

#[test]
fn the_docs_hold_the_matrix() {
    let table = doc::render(&table());
    let path = doc::path();
    let text = std::fs::read_to_string(&path).expect("docs/authorization.md exists");
    if std::env::var_os("HERALD_BLESS").is_some() {
        let updated = doc::replace(&text, &table).expect("the markers are in the doc");
        std::fs::write(&path, updated).expect("writing docs/authorization.md");
        return;
    }
    let current = doc::generated(&text).expect("docs/authorization.md has the matrix markers");
    assert!(
        current == table.trim_end(),
        "docs/authorization.md does not match the matrix; run \
         HERALD_BLESS=1 cargo test -p herald-relay --test integration the_docs_hold_the_matrix"
    );
}
