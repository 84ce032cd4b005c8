//! `/agent-keys` (device session): create an agent key (`hrk_…`, shown once), list the
//! account's keys, revoke one (401 from its next request on).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use herald_protocol::agents::{
    check_credential_name, AgentKeyCreated, AgentKeyInfo, AgentKeyList, CreateAgentKeyRequest,
    AGENT_KEY_PREFIX,
};
use herald_protocol::AgentKeyId;

use super::super::JsonBody;
use crate::auth::{new_token, token_hash, DeviceAuth};
use crate::clock::format_time;
use crate::error::ApiError;
use crate::state::AppState;

/// A fresh relay-made id.
pub(super) fn random_id() -> Result<[u8; 16], ApiError> {
    use ring::rand::SecureRandom;
    let mut bytes = [0u8; 16];
    ring::rand::SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| ApiError::internal("system randomness failed"))?;
    Ok(bytes)
}

pub(super) async fn create(
    State(state): State<AppState>,
    auth: DeviceAuth,
    JsonBody { value: req, .. }: JsonBody<CreateAgentKeyRequest>,
) -> Result<(StatusCode, Json<AgentKeyCreated>), ApiError> {
    let name = check_credential_name(&req.name)
        .ok_or_else(|| {
            ApiError::invalid(
                "name",
                "A name has 1 to 100 characters and no control or invisible formatting characters.",
            )
        })?
        .to_owned();
    let key = new_token(AGENT_KEY_PREFIX)?;
    let id = AgentKeyId::from_random(&random_id()?);
    let (now, hash) = (state.now(), token_hash(&key));
    let (account, owned_id, owned_name) = (auth.account.clone(), id.clone(), name.clone());
    state
        .agent_store(move |s| s.create_agent_key(&account, &owned_id, &owned_name, &hash, now))
        .await?;
    tracing::info!(account = %auth.account, agent_key = %id, "agent key created");
    Ok((
        StatusCode::CREATED,
        Json(AgentKeyCreated {
            id,
            name,
            key,
            created_at: format_time(now),
        }),
    ))
}

pub(super) async fn list(
    State(state): State<AppState>,
    auth: DeviceAuth,
) -> Result<Json<AgentKeyList>, ApiError> {
    let account = auth.account.clone();
    let rows = state
        .agent_store(move |s| s.list_agent_keys(&account))
        .await?;
    Ok(Json(AgentKeyList {
        agent_keys: rows
            .into_iter()
            .map(|r| AgentKeyInfo {
                id: r.id,
                name: r.name,
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
    let id = AgentKeyId::parse(&id).ok_or_else(ApiError::not_found)?;
    let (account, now, owned) = (auth.account.clone(), state.now(), id.clone());
    state
        .agent_store(move |s| s.revoke_agent_key(&account, &owned, now))
        .await?;
    tracing::info!(account = %auth.account, agent_key = %id, "agent key revoked");
    let credential = crate::store::agents::AgentCredential::AgentKey(id);
    state.credential_revoked(&auth.account, &credential).await;
    // Calls it is waiting in end now (401), not when a reply comes.
    state.hub().publish(
        &auth.account,
        crate::hub::Change::AgentCredentialRevoked(credential),
    );
    Ok(StatusCode::NO_CONTENT)
}
