//! `/connectors` (device session): approve or deny a connector waiting in the OAuth device
//! flow by the user code it shows, list the account's connectors, revoke one (401 from its
//! next request on).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use herald_protocol::agents::{
    check_credential_name, normalize_user_code, ApproveConnectorRequest, ConnectorInfo,
    ConnectorList, DenyConnectorRequest,
};
use herald_protocol::{ConnectorId, ErrorCode};

use super::super::JsonBody;
use crate::auth::DeviceAuth;
use crate::clock::format_time;
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::agents::ConnectorRow;

fn info(r: ConnectorRow) -> ConnectorInfo {
    ConnectorInfo {
        id: r.id,
        name: r.name,
        client_id: r.client_id,
        token_issued: r.token_issued,
        created_at: format_time(r.created_at),
        revoked_at: r.revoked_at.map(format_time),
    }
}

fn user_code(typed: &str) -> Result<String, ApiError> {
    normalize_user_code(typed).ok_or_else(|| {
        ApiError::invalid("userCode", "A user code has 8 letters, shown as XXXX-XXXX.")
    })
}

fn no_such_code() -> ApiError {
    ApiError::with_message(
        ErrorCode::NotFound,
        "No connector is waiting with this code; it may have expired or been answered.",
    )
    .fields(["userCode"])
}

pub(super) async fn approve(
    State(state): State<AppState>,
    auth: DeviceAuth,
    JsonBody { value: req, .. }: JsonBody<ApproveConnectorRequest>,
) -> Result<Json<ConnectorInfo>, ApiError> {
    let code = user_code(&req.user_code)?;
    let name = match req.name.as_deref() {
        None => None,
        Some(n) => Some(
            check_credential_name(n)
                .ok_or_else(|| {
                    ApiError::invalid(
                        "name",
                        "A name has 1 to 100 characters and no control or invisible formatting characters.",
                    )
                })?
                .to_owned(),
        ),
    };
    let id = ConnectorId::from_random(&super::keys::random_id()?);
    let (account, now) = (auth.account.clone(), state.now());
    let row = state
        .agent_store(move |s| s.approve_device_grant(&account, &code, &id, name.as_deref(), now))
        .await
        .map_err(|e| {
            if e.code() == Some(ErrorCode::NotFound) {
                no_such_code()
            } else {
                e
            }
        })?;
    tracing::info!(account = %auth.account, connector = %row.id, "connector approved");
    Ok(Json(info(row)))
}

pub(super) async fn deny(
    State(state): State<AppState>,
    auth: DeviceAuth,
    JsonBody { value: req, .. }: JsonBody<DenyConnectorRequest>,
) -> Result<StatusCode, ApiError> {
    let code = user_code(&req.user_code)?;
    let (account, now) = (auth.account.clone(), state.now());
    state
        .agent_store(move |s| s.deny_device_grant(&account, &code, now))
        .await
        .map_err(|e| {
            if e.code() == Some(ErrorCode::NotFound) {
                no_such_code()
            } else {
                e
            }
        })?;
    tracing::info!(account = %auth.account, "connector denied");
    Ok(StatusCode::NO_CONTENT)
}

pub(super) async fn list(
    State(state): State<AppState>,
    auth: DeviceAuth,
) -> Result<Json<ConnectorList>, ApiError> {
    let account = auth.account.clone();
    let rows = state
        .agent_store(move |s| s.list_connectors(&account))
        .await?;
    Ok(Json(ConnectorList {
        connectors: rows.into_iter().map(info).collect(),
    }))
}

pub(super) async fn revoke(
    State(state): State<AppState>,
    auth: DeviceAuth,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let id = ConnectorId::parse(&id).ok_or_else(ApiError::not_found)?;
    let (account, now, owned) = (auth.account.clone(), state.now(), id.clone());
    state
        .agent_store(move |s| s.revoke_connector(&account, &owned, now))
        .await?;
    tracing::info!(account = %auth.account, connector = %id, "connector revoked");
    let credential = crate::store::agents::AgentCredential::Connector(id);
    state.credential_revoked(&auth.account, &credential).await;
    // Calls it is waiting in end now (401), not when a reply comes.
    state.hub().publish(
        &auth.account,
        crate::hub::Change::AgentCredentialRevoked(credential),
    );
    Ok(StatusCode::NO_CONTENT)
}
