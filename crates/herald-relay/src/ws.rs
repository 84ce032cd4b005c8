//! `GET /ws`: live updates. On connect the relay sends `{"type":"sync","revision":N}` with the
//! latest revision the caller can see, then one such frame after every change it can see (a
//! connection: only changes to its own messages). Frames may coalesce; the client reads
//! `GET /messages?after=<cursor>` either way. A websocket Ping every 20 s keeps proxies from
//! closing idle sockets; a socket that answers none of [`MAX_UNANSWERED_PINGS`] pings in a row
//! is closed (1001). A client frame over [`MAX_CLIENT_MESSAGE_BYTES`] closes the socket (1009); a frame the
//! relay cannot write within [`WRITE_DEADLINE`] (a peer that stopped reading) drops it. On shutdown every socket gets a Close frame (1001, going away); the
//! sockets of a revoked device or connection, and every socket of an account that was reset,
//! get one with 1008 (policy). Sockets per credential and per account are limited
//! ([`crate::ws_limits`]): a socket replaced by a newer one of its credential gets a Close frame
//! with code 4000.

use std::time::Duration;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{close_code, CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::Extension;
use herald_protocol::wire::ServerFrame;
use herald_protocol::{ErrorCode, Revision};
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

use crate::auth::Auth;
use crate::error::ApiError;
use crate::http_server::ConnectionSlot;
use crate::hub::Change;
use crate::state::AppState;
use crate::store::{Principal, TokenHash};

/// Keepalive interval.
pub const PING_INTERVAL: Duration = Duration::from_secs(20);
/// Read buffer of each socket. Clients send only pongs and close frames; tungstenite zero-fills
/// the whole buffer on every read attempt, and the session polls for a read after every frame
/// it sends, so its 128 KiB default cost a 128 KiB memset per socket per nudge
/// (docs/benchmarks.md, "Relay"). Larger client frames still arrive, over several reads.
const READ_BUFFER_BYTES: usize = 4 * 1024;
/// Largest frame and message a client may send: 16 KiB. Clients send only pongs and close
/// frames; a larger frame is refused from its header, before its payload is buffered, and the
/// socket is closed with code 1009 (message too big).
pub const MAX_CLIENT_MESSAGE_BYTES: usize = 16 * 1024;
/// Pings in a row a socket may leave unanswered: at the next tick after that it is closed
/// (code 1001), so a silent peer is dropped within three ping intervals (60 s by default) and
/// `GET /v1/status` stops calling its device online.
pub const MAX_UNANSWERED_PINGS: u32 = 2;
/// Longest one frame (a sync nudge, a Ping, a Close) may take to be written and flushed: 10 s.
/// A peer that stops reading fills its receive window and then the relay's send buffer, and a
/// write waits for room that never comes; while it waits, no ping, replacement or shutdown is
/// handled. Past this deadline the socket is dropped without a Close frame (none could be
/// written), its slot freed and its device offline. `RelayConfig::ws_write_timeout` overrides
/// it (docs/protocol.md, `GET /ws`).
pub const WRITE_DEADLINE: Duration = Duration::from_secs(10);
/// Longest the Close frame of relay shutdown may take to be written (at most the write
/// deadline): 1 s, so a socket whose peer stopped reading holds shutdown up no longer.
const SHUTDOWN_CLOSE_DEADLINE: Duration = Duration::from_secs(1);

pub(crate) async fn upgrade(
    State(state): State<AppState>,
    Auth(principal): Auth,
    headers: HeaderMap,
    connection: Option<Extension<ConnectionSlot>>,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let Ok(ws) = ws else {
        return ApiError::with_message(ErrorCode::BadRequest, "Expected a websocket upgrade.")
            .into_response();
    };
    // Auth accepted the bearer, so there is one.
    let Some(token) = crate::auth::bearer_hash(&headers) else {
        return ApiError::unauthorized().into_response();
    };
    let slot = match state
        .inner
        .socket_slots
        .register(&principal, state.config().socket_limits)
    {
        Ok(slot) => slot,
        Err(e) => {
            tracing::info!(account = %principal.account(), "ws: refused, too many sockets");
            return e.into_response();
        }
    };
    let tracker = state.inner.sockets.clone();
    ws.read_buffer_size(READ_BUFFER_BYTES)
        .max_frame_size(MAX_CLIENT_MESSAGE_BYTES)
        .max_message_size(MAX_CLIENT_MESSAGE_BYTES)
        .on_upgrade(move |socket| {
            // The socket keeps its connection's slot under the relay's connection cap.
            let connection = connection.map(|Extension(slot)| slot);
            tracker.track_future(async move {
                let _connection = connection;
                session(socket, state, principal, token, slot).await
            })
        })
}

/// Whether a read failed on a frame or message over [`MAX_CLIENT_MESSAGE_BYTES`].
fn too_big(e: axum::Error) -> bool {
    matches!(
        e.into_inner().downcast_ref::<tungstenite::Error>(),
        Some(tungstenite::Error::Capacity(_))
    )
}

/// What a batch of changes means for one socket.
#[derive(Debug, Default, PartialEq, Eq)]
struct Nudge {
    /// The newest revision this socket may see, if any changed.
    revision: Option<Revision>,
    /// This socket's credential was revoked, or its account reset.
    revoked: bool,
}

fn fold(principal: &Principal, changes: impl IntoIterator<Item = Change>) -> Nudge {
    let mut nudge = Nudge::default();
    for change in changes {
        match (change, principal) {
            (Change::Message { revision, .. }, Principal::Device { .. }) => {
                nudge.revision = nudge.revision.max(Some(revision));
            }
            (
                Change::Message {
                    revision,
                    sender_connection: Some(sender),
                },
                Principal::Connection { connection_id, .. },
            ) if &sender == connection_id => {
                nudge.revision = nudge.revision.max(Some(revision));
            }
            (Change::ConnectionRevoked(id), Principal::Connection { connection_id, .. })
                if &id == connection_id =>
            {
                nudge.revoked = true;
            }
            (Change::DeviceRevoked(id), Principal::Device { device_id, .. })
                if &id == device_id =>
            {
                nudge.revoked = true;
            }
            (Change::AccountClosed, _) => nudge.revoked = true,
            _ => {}
        }
    }
    nudge
}

/// After a lag: whether this socket's credential was revoked (or its account deleted)
/// meanwhile: its token no longer authenticates.
async fn revoked_meanwhile(state: &AppState, token: TokenHash) -> bool {
    match state.store_call(move |s| s.credential(&token)).await {
        Ok(row) => row.is_none_or(|r| r.revoked),
        Err(e) => {
            tracing::error!(error = %e, "ws: checking revocation failed");
            true
        }
    }
}

/// The Close frame of a socket whose credential was revoked (or whose account was reset).
fn revoked_frame() -> CloseFrame {
    CloseFrame {
        code: close_code::POLICY,
        reason: "credential revoked".into(),
    }
}

/// Why a frame was not sent; either way the session ends.
#[derive(Debug)]
enum SendFailed {
    /// The socket failed or was closed.
    Closed,
    /// Not written within the write deadline: the peer stopped reading.
    Stuck,
    /// The relay is shutting down.
    ShuttingDown,
}

/// Writes frames to one socket, each within `deadline`, and gives up on a write the moment
/// `abort` (the relay's shutdown) fires.
struct Writer {
    deadline: Duration,
    abort: CancellationToken,
}

impl Writer {
    async fn send(&self, socket: &mut WebSocket, message: Message) -> Result<(), SendFailed> {
        tokio::select! {
            sent = tokio::time::timeout(self.deadline, socket.send(message)) => match sent {
                Ok(Ok(())) => Ok(()),
                Ok(Err(_)) => Err(SendFailed::Closed),
                Err(_) => Err(SendFailed::Stuck),
            },
            _ = self.abort.cancelled() => Err(SendFailed::ShuttingDown),
        }
    }

    /// Sends a Close frame within the deadline ([`SHUTDOWN_CLOSE_DEADLINE`] during shutdown,
    /// which does not abort it); the socket is dropped right after, so whether it arrived does
    /// not matter.
    async fn close(&self, socket: &mut WebSocket, frame: Option<CloseFrame>) {
        let deadline = if self.abort.is_cancelled() {
            self.deadline.min(SHUTDOWN_CLOSE_DEADLINE)
        } else {
            self.deadline
        };
        let _ = tokio::time::timeout(deadline, socket.send(Message::Close(frame))).await;
    }

    async fn sync(&self, socket: &mut WebSocket, revision: Revision) -> Result<(), SendFailed> {
        let text = serde_json::to_string(&ServerFrame::Sync { revision })
            .expect("a sync frame always serializes");
        self.send(socket, Message::Text(text.into())).await
    }
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

async fn session(
    mut socket: WebSocket,
    state: AppState,
    principal: Principal,
    token: TokenHash,
    slot: crate::ws_limits::SocketSlot,
) {
    // A device's open socket is what `GET /v1/status` calls online (docs/agents.md).
    let _presence = crate::agents::presence::enter(&state, &principal);
    // Subscribe before reading the revision, so no change falls between the two.
    let mut changes = state.hub().subscribe(principal.account());
    let shutdown = state.shutdown_token().clone();
    let writer = Writer {
        deadline: state
            .config()
            .ws_write_timeout
            .filter(|d| !d.is_zero())
            .unwrap_or(WRITE_DEADLINE),
        abort: shutdown.clone(),
    };
    // A revocation between the upgrade and the subscription was not seen: look once.
    if revoked_meanwhile(&state, token).await {
        writer.close(&mut socket, Some(revoked_frame())).await;
        return;
    }
    let Some(current) = latest(&state, &principal).await else {
        writer.close(&mut socket, None).await;
        return;
    };
    if writer.sync(&mut socket, current).await.is_err() {
        return;
    }
    let every = state
        .config()
        .ws_ping_interval
        .filter(|d| !d.is_zero())
        .unwrap_or(PING_INTERVAL);
    let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    // Pings sent since the peer last sent anything.
    let mut unanswered = 0u32;
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => {
                let frame = CloseFrame { code: close_code::AWAY, reason: "relay shutting down".into() };
                writer.close(&mut socket, Some(frame)).await;
                break;
            }
            _ = slot.replaced.cancelled() => {
                let frame = CloseFrame {
                    code: crate::ws_limits::REPLACED_CLOSE_CODE,
                    reason: "replaced by a newer socket of this credential".into(),
                };
                writer.close(&mut socket, Some(frame)).await;
                break;
            }
            _ = ping.tick() => {
                if unanswered >= MAX_UNANSWERED_PINGS {
                    tracing::info!(account = %principal.account(), "ws: no pong, closing");
                    let frame = CloseFrame { code: close_code::AWAY, reason: "no pong".into() };
                    writer.close(&mut socket, Some(frame)).await;
                    break;
                }
                unanswered += 1;
                if let Err(e) = writer.send(&mut socket, Message::Ping(Default::default())).await {
                    stuck(&principal, &e);
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
                        fold(&principal, batch)
                    }
                    Err(RecvError::Lagged(_)) => Nudge {
                        revision: latest(&state, &principal).await,
                        revoked: revoked_meanwhile(&state, token).await,
                    },
                    Err(RecvError::Closed) => break,
                };
                if nudge.revoked {
                    writer.close(&mut socket, Some(revoked_frame())).await;
                    break;
                }
                if let Some(revision) = nudge.revision {
                    if let Err(e) = writer.sync(&mut socket, revision).await {
                        stuck(&principal, &e);
                        break;
                    }
                }
            }
            incoming = socket.recv() => match incoming {
                None | Some(Ok(Message::Close(_))) => break,
                Some(Err(e)) => {
                    if too_big(e) {
                        let frame = CloseFrame {
                            code: close_code::SIZE,
                            reason: "frame too big".into(),
                        };
                        writer.close(&mut socket, Some(frame)).await;
                    }
                    break;
                }
                // Anything from the peer shows it is alive; pongs and client frames are
                // otherwise ignored.
                Some(Ok(_)) => unanswered = 0,
            },
        }
    }
}

/// Logs a session ended by a write past its deadline.
fn stuck(principal: &Principal, failed: &SendFailed) {
    if matches!(failed, SendFailed::Stuck) {
        tracing::info!(account = %principal.account(), "ws: peer stopped reading, dropping");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use herald_protocol::{AccountId, ConnectionId, DeviceId};

    fn message(rev: u64, sender: Option<&ConnectionId>) -> Change {
        Change::Message {
            revision: Revision(rev),
            sender_connection: sender.cloned(),
        }
    }

    fn account() -> AccountId {
        AccountId::from_random(&[9; 16])
    }

    fn device(id: &DeviceId) -> Principal {
        Principal::Device {
            account: account(),
            device_id: id.clone(),
        }
    }

    fn connection(id: &ConnectionId) -> Principal {
        Principal::Connection {
            account: account(),
            connection_id: id.clone(),
        }
    }

    #[test]
    fn fold_coalesces_to_the_newest_visible_revision() {
        let me = ConnectionId::from_random(&[1; 16]);
        let other = ConnectionId::from_random(&[2; 16]);
        let laptop = DeviceId::from_random(&[3; 16]);
        let batch = vec![
            message(3, Some(&me)),
            message(5, None),
            message(4, Some(&other)),
        ];
        assert_eq!(
            fold(&device(&laptop), batch.clone()),
            Nudge {
                revision: Some(Revision(5)),
                revoked: false
            },
            "a device sees every change"
        );
        assert_eq!(
            fold(&connection(&me), batch),
            Nudge {
                revision: Some(Revision(3)),
                revoked: false
            },
            "a connection sees only its own messages"
        );
        assert_eq!(
            fold(&connection(&me), vec![Change::ConnectionRevoked(other)]),
            Nudge::default(),
            "another connection's revocation is nothing to this one"
        );
        assert!(
            fold(
                &connection(&me),
                vec![Change::ConnectionRevoked(me.clone())]
            )
            .revoked,
            "its own revocation closes the socket"
        );
    }

    #[test]
    fn fold_closes_on_a_revoked_device_or_a_closed_account() {
        let laptop = DeviceId::from_random(&[3; 16]);
        let phone = DeviceId::from_random(&[4; 16]);
        let me = ConnectionId::from_random(&[1; 16]);
        assert!(
            fold(
                &device(&laptop),
                vec![Change::DeviceRevoked(laptop.clone())]
            )
            .revoked,
            "a device's own revocation closes its socket"
        );
        assert_eq!(
            fold(&device(&laptop), vec![Change::DeviceRevoked(phone.clone())]),
            Nudge::default(),
            "another device's revocation is nothing to this one"
        );
        assert_eq!(
            fold(&connection(&me), vec![Change::DeviceRevoked(phone)]),
            Nudge::default(),
            "a device's revocation is nothing to a connection"
        );
        for principal in [device(&laptop), connection(&me)] {
            assert!(
                fold(&principal, vec![message(7, None), Change::AccountClosed]).revoked,
                "a reset closes every socket of the account"
            );
        }
    }
}
