//! `GET /ws`: live updates. On connect the relay sends `{"type":"sync","revision":N}` with the
//! latest revision the caller can see, then one such frame after every change it can see (a
//! connection: only changes to its own messages). Frames may coalesce; the client reads
//! `GET /messages?after=<cursor>` either way. A websocket Ping every 20 s keeps proxies from
//! closing idle sockets. On shutdown every socket gets a Close frame (1001, going away); a
//! revoked connection's sockets get one with 1008 (policy).

use std::time::Duration;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{close_code, CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use herald_protocol::wire::ServerFrame;
use herald_protocol::{ErrorCode, Revision};
use tokio::sync::broadcast::error::RecvError;

use crate::auth::Auth;
use crate::error::ApiError;
use crate::hub::Change;
use crate::state::AppState;
use crate::store::{Principal, Viewer};

/// Keepalive interval.
pub const PING_INTERVAL: Duration = Duration::from_secs(20);

pub(crate) async fn upgrade(
    State(state): State<AppState>,
    Auth(principal): Auth,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let Ok(ws) = ws else {
        return ApiError::with_message(ErrorCode::BadRequest, "Expected a websocket upgrade.")
            .into_response();
    };
    let tracker = state.inner.sockets.clone();
    ws.on_upgrade(move |socket| tracker.track_future(session(socket, state, principal)))
}

/// What a batch of changes means for one socket.
#[derive(Debug, Default, PartialEq, Eq)]
struct Nudge {
    /// The newest revision this socket may see, if any changed.
    revision: Option<Revision>,
    /// This socket's connection was revoked.
    revoked: bool,
}

fn fold(viewer: &Viewer, changes: impl IntoIterator<Item = Change>) -> Nudge {
    let mut nudge = Nudge::default();
    for change in changes {
        match (change, viewer) {
            (Change::Message { revision, .. }, Viewer::Device) => {
                nudge.revision = nudge.revision.max(Some(revision));
            }
            (
                Change::Message {
                    revision,
                    sender_connection: Some(sender),
                },
                Viewer::Connection(me),
            ) if &sender == me => {
                nudge.revision = nudge.revision.max(Some(revision));
            }
            (Change::ConnectionRevoked(id), Viewer::Connection(me)) if &id == me => {
                nudge.revoked = true;
            }
            _ => {}
        }
    }
    nudge
}

/// After a lag: whether this socket's connection was revoked meanwhile.
async fn revoked_meanwhile(state: &AppState, principal: &Principal) -> bool {
    let Principal::Connection {
        account,
        connection_id,
    } = principal
    else {
        return false;
    };
    let (account, id) = (account.clone(), connection_id.clone());
    match state
        .store_call(move |s| s.list_connections(&account))
        .await
    {
        Ok(list) => list.iter().any(|c| c.id == id && c.revoked_at.is_some()),
        Err(e) => {
            tracing::error!(error = %e, "ws: checking revocation failed");
            true
        }
    }
}

async fn send_sync(socket: &mut WebSocket, revision: Revision) -> Result<(), axum::Error> {
    let text = serde_json::to_string(&ServerFrame::Sync { revision })
        .expect("a sync frame always serializes");
    socket.send(Message::Text(text.into())).await
}

async fn latest(state: &AppState, principal: &Principal) -> Option<Revision> {
    let (account, viewer) = (principal.account().clone(), principal.viewer());
    match state
        .store_call(move |s| s.latest_revision(&account, &viewer))
        .await
    {
        Ok(r) => Some(r),
        Err(e) => {
            tracing::error!(error = %e, "ws: reading the latest revision failed");
            None
        }
    }
}

async fn session(mut socket: WebSocket, state: AppState, principal: Principal) {
    let viewer = principal.viewer();
    // A device's open socket is what `GET /v1/status` calls online (docs/agents.md).
    let _presence = crate::agents::presence::enter(&state, &principal);
    // Subscribe before reading the revision, so no change falls between the two.
    let mut changes = state.hub().subscribe(principal.account());
    let shutdown = state.shutdown_token().clone();
    let Some(current) = latest(&state, &principal).await else {
        let _ = socket.send(Message::Close(None)).await;
        return;
    };
    if send_sync(&mut socket, current).await.is_err() {
        return;
    }
    let mut ping =
        tokio::time::interval_at(tokio::time::Instant::now() + PING_INTERVAL, PING_INTERVAL);
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => {
                let frame = CloseFrame { code: close_code::AWAY, reason: "relay shutting down".into() };
                let _ = socket.send(Message::Close(Some(frame))).await;
                break;
            }
            _ = ping.tick() => {
                if socket.send(Message::Ping(Default::default())).await.is_err() {
                    break;
                }
            }
            change = changes.recv() => {
                let nudge = match change {
                    Ok(first) => {
                        // Coalesce whatever else is already queued.
                        let mut batch = vec![first];
                        while let Ok(more) = changes.try_recv() {
                            batch.push(more);
                        }
                        fold(&viewer, batch)
                    }
                    Err(RecvError::Lagged(_)) => Nudge {
                        revision: latest(&state, &principal).await,
                        revoked: revoked_meanwhile(&state, &principal).await,
                    },
                    Err(RecvError::Closed) => break,
                };
                if nudge.revoked {
                    let frame = CloseFrame { code: close_code::POLICY, reason: "credential revoked".into() };
                    let _ = socket.send(Message::Close(Some(frame))).await;
                    break;
                }
                if let Some(revision) = nudge.revision {
                    if send_sync(&mut socket, revision).await.is_err() {
                        break;
                    }
                }
            }
            incoming = socket.recv() => match incoming {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => break,
                Some(Ok(_)) => {} // pongs and client frames are ignored
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use herald_protocol::ConnectionId;

    fn message(rev: u64, sender: Option<&ConnectionId>) -> Change {
        Change::Message {
            revision: Revision(rev),
            sender_connection: sender.cloned(),
        }
    }

    #[test]
    fn fold_coalesces_to_the_newest_visible_revision() {
        let me = ConnectionId::from_random(&[1; 16]);
        let other = ConnectionId::from_random(&[2; 16]);
        let batch = vec![
            message(3, Some(&me)),
            message(5, None),
            message(4, Some(&other)),
        ];
        assert_eq!(
            fold(&Viewer::Device, batch.clone()),
            Nudge {
                revision: Some(Revision(5)),
                revoked: false
            },
            "a device sees every change"
        );
        assert_eq!(
            fold(&Viewer::Connection(me.clone()), batch),
            Nudge {
                revision: Some(Revision(3)),
                revoked: false
            },
            "a connection sees only its own messages"
        );
        assert_eq!(
            fold(
                &Viewer::Connection(me.clone()),
                vec![Change::ConnectionRevoked(other)]
            ),
            Nudge::default(),
            "another connection's revocation is nothing to this one"
        );
        assert!(
            fold(
                &Viewer::Connection(me.clone()),
                vec![Change::ConnectionRevoked(me)]
            )
            .revoked,
            "its own revocation closes the socket"
        );
    }
}
