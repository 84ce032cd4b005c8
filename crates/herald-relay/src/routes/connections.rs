//! `/connections` (devices only): register a connection certificate and issue its bearer,
//! list connections, revoke one (its bearer is refused from the next request on).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use herald_protocol::envelope::CertificateBody;
use herald_protocol::scopes::Scope;
use herald_protocol::wire::{
    ConnectionInfo, ConnectionList, CreateConnectionRequest, CreateConnectionResponse,
    CONNECTION_BEARER_PREFIX,
};
use herald_protocol::ConnectionId;

use super::accounts::{certificate_body, check_name};
use super::JsonBody;
use crate::auth::{new_token, token_hash, DeviceAuth};
use crate::clock::format_time;
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::NewConnection;

pub(super) async fn create(
    State(state): State<AppState>,
    auth: DeviceAuth,
    JsonBody { value: req, .. }: JsonBody<CreateConnectionRequest>,
) -> Result<(StatusCode, Json<CreateConnectionResponse>), ApiError> {
    let (account, device) = (&auth.account, &auth.device_id);
    let CertificateBody::Connection {
        account_id,
        connection_id,
        name,
        ..
    } = certificate_body(&req.certificate, "certificate")?
    else {
        return Err(ApiError::invalid(
            "certificate",
            "The certificate must be a connection certificate.",
        ));
    };
    if &account_id != account {
        return Err(ApiError::invalid(
            "certificate.accountId",
            "The connection belongs to another account.",
        ));
    }
    check_name(&name, "certificate.name")?;
    let scopes = checked_scopes(req.scopes)?;
    let bearer = new_token(CONNECTION_BEARER_PREFIX)?;
    let new = NewConnection {
        account_id: account_id.clone(),
        connection_id: connection_id.clone(),
        certificate: req.certificate,
        name,
        scopes: scopes.clone(),
        token_hash: token_hash(&bearer),
        now: state.now(),
    };
    state.store(move |s| s.create_connection(new)).await?;
    tracing::info!(account = %account_id, device = %device, connection = %connection_id, "connection created");
    Ok((
        StatusCode::CREATED,
        Json(CreateConnectionResponse {
            connection_id,
            bearer,
            scopes,
        }),
    ))
}

/// The scopes of a new connection: all when none are named; otherwise 1–3 distinct ones,
/// returned in [`Scope::ALL`] order.
///
/// # Errors
/// `invalid_request` naming `scopes` for an empty list or a repeated scope (an unknown name
/// fails earlier, when the body is parsed).
fn checked_scopes(requested: Option<Vec<Scope>>) -> Result<Vec<Scope>, ApiError> {
    let Some(scopes) = requested else {
        return Ok(Scope::ALL.to_vec());
    };
    if scopes.is_empty() {
        return Err(ApiError::invalid(
            "scopes",
            "A connection needs at least one scope: messages:send, messages:read or events:read.",
        ));
    }
    let named = scopes.len();
    let scopes = Scope::distinct(scopes);
    if scopes.len() != named {
        return Err(ApiError::invalid("scopes", "Name each scope once."));
    }
    Ok(scopes)
}

pub(super) async fn list(
    State(state): State<AppState>,
    auth: DeviceAuth,
) -> Result<Json<ConnectionList>, ApiError> {
    let account = &auth.account;
    let account = account.clone();
    let rows = state.store(move |s| s.list_connections(&account)).await?;
    Ok(Json(ConnectionList {
        connections: rows
            .into_iter()
            .map(|r| ConnectionInfo {
                id: r.id,
                name: r.name,
                scopes: r.scopes,
                created_at: format_time(r.created_at),
                revoked_at: r.revoked_at.map(format_time),
            })
            .collect(),
    }))
}

pub(super) async fn revoke(
    State(state): State<AppState>,
    auth: DeviceAuth,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let (account, device) = (&auth.account, &auth.device_id);
    let id = ConnectionId::parse(&id).ok_or_else(ApiError::not_found)?;
    let account = account.clone();
    let now = state.now();
    let (acc, cid) = (account.clone(), id.clone());
    state
        .store(move |s| s.revoke_connection(&acc, &cid, now))
        .await?;
    state.notify_revoked(&account, &id);
    tracing::info!(account = %account, device = %device, connection = %id, "connection revoked");
    Ok(StatusCode::NO_CONTENT)
}
