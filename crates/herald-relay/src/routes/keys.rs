//! `GET /keys` (device or connection): what a sender needs to seal to the account and what a
//! receiver needs to verify senders. Revoked connections are left out.

use axum::extract::State;
use axum::Json;
use herald_protocol::wire::KeysResponse;

use crate::auth::Auth;
use crate::error::ApiError;
use crate::state::AppState;

pub(super) async fn get(
    State(state): State<AppState>,
    auth: Auth,
) -> Result<Json<KeysResponse>, ApiError> {
    let account = auth.account().clone();
    let acc = account.clone();
    let keys = state.store(move |s| s.account_keys(&acc)).await?;
    Ok(Json(KeysResponse {
        account_id: account,
        statement: keys.statement,
        encryption_keys: keys.encryption_keys,
        devices: keys.devices,
        connections: keys.connections,
    }))
}
